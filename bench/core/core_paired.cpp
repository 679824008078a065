// SPDX-License-Identifier: Apache-2.0
// bench/run core — paired runs: weft's switching workloads (weft_runs.cpp)
// and the peers' (peer_runs.cpp) alternated in one process, one run of
// each system per round, and the ratio peer/weft taken per round.
//
// Why: on the Zen 3 guest the same binary runs the switching workloads at
// two speeds that change with time, not with the binary or its addresses
// (docs/measurements.md, "2026-11-29: paired runs"): weft's yield takes
// 4.7 ns for a minute, then 7.5 ns, and boost_context changes with it. A
// ratio of medians from two processes minutes apart mixes the two; runs
// seconds apart share one. Lines: unit "ratio" (> 1: weft is faster),
// "baseline" the peer, and each side's median ns/op over the rounds.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

#include "../common/harness.hpp"
#include "runs.hpp"

namespace {

double time_one(const bench::core::timed_run& r, const bench::core::fringe_inputs& in) {
    auto t0 = std::chrono::steady_clock::now();
    r.run(in);
    auto t1 = std::chrono::steady_clock::now();
    return double(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count()) / double(r.ops);
}

void pair_up(const bench::core::timed_run& weft, int rounds, const bench::core::fringe_inputs& in) {
    std::vector<const bench::core::timed_run*> sides{&weft};
    for (const bench::core::run_table peers : {bench::core::peer_runs(), bench::core::bare_runs()})
        for (std::size_t i = 0; i < peers.count; ++i)
            if (!std::strcmp(peers.runs[i].workload, weft.workload)) sides.push_back(&peers.runs[i]);
    if (sides.size() == 1) return;
    std::fprintf(stderr, "  %-22s paired, %d rounds ...\n", weft.workload, rounds);
    std::vector<std::vector<double>> ns(sides.size());
    for (const auto* s : sides) s->run(in);  // warm-up
    for (int r = 0; r < rounds; ++r) {
        // Who goes first alternates, so that neither side always runs
        // right after the other's caches and predictors.
        for (std::size_t k = 0; k < sides.size(); ++k) {
            const std::size_t i = r % 2 ? sides.size() - 1 - k : k;
            ns[i].push_back(time_one(*sides[i], in));
        }
    }
    for (std::size_t p = 1; p < sides.size(); ++p) {
        std::vector<double> ratio;
        for (int r = 0; r < rounds; ++r) ratio.push_back(ns[p][r] / ns[0][r]);
        std::printf("{\"suite\":\"core\",\"workload\":\"%s\",\"system\":\"%s\",\"target\":\"%s\","
                    "\"unit\":\"ratio\",\"baseline\":\"%s\",\"median\":%.3f,\"p10\":%.3f,\"p90\":%.3f,"
                    "\"runs\":%d,\"method\":\"paired\",\"ns_per_op\":%.3f,\"baseline_ns_per_op\":%.3f%s}\n",
                    weft.workload, weft.system, bench::target(), sides[p]->system, bench::percentile(ratio, 0.5),
                    bench::percentile(ratio, 0.1), bench::percentile(ratio, 0.9), rounds,
                    bench::percentile(ns[0], 0.5), bench::percentile(ns[p], 0.5), weft.extra);
        std::fflush(stdout);
    }
}

}  // namespace

int main(int argc, char** argv) {
    auto o = bench::parse(argc, argv);
    const int rounds = o.quick ? 9 : 31;
    const bench::core::fringe_trees trees;
    const auto weft = bench::core::weft_runs();
    for (std::size_t i = 0; i < weft.count; ++i)
        if (o.wants(weft.runs[i].workload)) pair_up(weft.runs[i], rounds, trees.inputs());
}
