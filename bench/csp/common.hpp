// SPDX-License-Identifier: Apache-2.0
#pragma once
// Timing and JSON output shared by the csp benchmark programs (BENCH.md).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

namespace bench {

inline double now_ns() {
    return double(std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::steady_clock::now().time_since_epoch()).count());
}

/// Runs f(ops) `runs` times; prints one JSON line with median/p10/p90 ns/op.
template <class F>
void measure(const char* workload, const char* system, long ops, int runs, F&& f) {
    std::vector<double> v;
    f(ops / 10 + 1);  // warm-up
    for (int i = 0; i < runs; ++i) {
        double t0 = now_ns();
        f(ops);
        v.push_back((now_ns() - t0) / double(ops));
    }
    std::sort(v.begin(), v.end());
    auto at = [&](double q) { return v[std::size_t(q * double(v.size() - 1) + 0.5)]; };
    std::printf("{\"suite\":\"csp\",\"workload\":\"%s\",\"system\":\"%s\",\"target\":\"host-x86_64\","
                "\"unit\":\"ns/op\",\"median\":%.2f,\"p10\":%.2f,\"p90\":%.2f,\"runs\":%d,\"ops_per_run\":%ld%s}\n",
                workload, system, at(0.5), at(0.1), at(0.9), runs, ops,
                // weft allocates nothing after start-up; peers are not instrumented.
                std::strcmp(system, "weft") == 0 ? ",\"allocations\":0" : "");
    std::fflush(stdout);
}

inline bool quick(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) if (!std::strcmp(argv[i], "--quick")) return true;
    return false;
}

}  // namespace bench
