// SPDX-License-Identifier: Apache-2.0
#pragma once
// Measures each run of a table (runs.hpp) on its own, as bench::measure
// does every workload: one warm-up, then the runs, one result line. For the
// programs' main files only (harness.hpp defines the counting operator new).
#include "../common/harness.hpp"
#include "runs.hpp"

namespace bench::core {

inline void measure_runs(const options& o, run_table table, const fringe_inputs& in) {
    for (std::size_t i = 0; i < table.count; ++i) {
        const timed_run& r = table.runs[i];
        if (o.wants(r.workload))
            measure("core", r.workload, r.system, o.runs(r.full_runs), r.ops, [&] { r.run(in); }, r.extra);
    }
}

}  // namespace bench::core
