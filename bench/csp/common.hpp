// SPDX-License-Identifier: Apache-2.0
#pragma once
// Timing and JSON output shared by the csp benchmark programs (BENCH.md).
// Every run returns a checksum of what it received; a run whose checksum
// differs from the expected one is reported ("valid":false, and on stderr),
// so a benchmark that measures nothing cannot pass for a fast one.
#include "workloads.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

namespace bench {

/// The compiler that built this program (weft is measured with both).
inline const char* compiler() {
    static char name[32];
#if defined(__clang__)
    std::snprintf(name, sizeof name, "clang-%d", __clang_major__);
#elif defined(__GNUC__)
    std::snprintf(name, sizeof name, "gcc-%d", __GNUC__);
#else
    std::snprintf(name, sizeof name, "unknown");
#endif
    return name;
}

inline double now_ns() {
    return double(std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::steady_clock::now().time_since_epoch()).count());
}

/// Heap allocations so far, if the program counts them (weft_bench.cpp
/// replaces operator new to do so); nullptr: not instrumented.
inline std::uint64_t (*allocations)() = nullptr;

/// Set when a run's checksum differed: the program's exit status is then 1
/// (exit_status()), so bench/run fails instead of reporting a fast nothing.
inline bool failed = false;
inline int exit_status() { return failed ? 1 : 0; }

struct config {
    bool quick = false;
    const char* only = nullptr;  ///< run just this workload if set
    const csp::sizes& size() const { return quick ? csp::quick : csp::full; }
    bool wants(const char* w) const { return !only || !std::strcmp(only, w); }
};

inline config parse(int argc, char** argv) {
    config c;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--quick")) c.quick = true;
        else c.only = argv[i];
    }
    return c;
}

/// Runs f() (which performs `ops` operations and returns its checksum)
/// once to warm up, then `runs` times; prints one JSON line with the
/// median and p10/p90 of ns per operation. `op` names the operation.
/// With `allocations` set, the line also gives the heap allocations made
/// by the timed runs (weft: must be 0).
template <class F>
void measure(const config& cfg, const char* workload, const char* system, const char* op, long ops,
             int runs, std::uint64_t expected, F&& f) {
    if (!cfg.wants(workload)) return;
    std::fprintf(stderr, "  %-20s %-12s ...\n", workload, system);
    std::vector<double> v;
    v.reserve(std::size_t(runs));  // before counting: the harness's own allocation
    std::uint64_t got = f();
    std::uint64_t allocs0 = allocations ? allocations() : 0;
    bool valid = got == expected;
    for (int i = 0; i < runs; ++i) {
        double t0 = now_ns();
        std::uint64_t c = f();
        v.push_back((now_ns() - t0) / double(ops));
        valid = valid && c == expected;
        got = c;
    }
    char allocs[48] = "";
    if (allocations)
        std::snprintf(allocs, sizeof allocs, ",\"allocations\":%llu", (unsigned long long)(allocations() - allocs0));
    if (!valid) {
        std::fprintf(stderr, "  %s/%s: checksum %llu, expected %llu\n", workload, system,
                     (unsigned long long)got, (unsigned long long)expected);
        failed = true;
    }
    std::sort(v.begin(), v.end());
    // Linear interpolation between ranks, as bench/common/harness.hpp does,
    // so that spreads compare across suites (with 3 runs p10/p90 are near
    // the extremes, not equal to them).
    auto at = [&](double q) {
        const double idx = q * double(v.size() - 1);
        const std::size_t lo = std::size_t(idx), hi = std::min(lo + 1, v.size() - 1);
        return v[lo] + (v[hi] - v[lo]) * (idx - double(lo));
    };
    std::printf("{\"suite\":\"csp\",\"workload\":\"%s\",\"system\":\"%s\",\"target\":\"host-x86_64\","
                "\"unit\":\"ns/op\",\"op\":\"%s\",\"median\":%.2f,\"p10\":%.2f,\"p90\":%.2f,\"runs\":%d,"
                "\"ops_per_run\":%ld,\"checksum\":%llu,\"valid\":%s,\"compiler\":\"%s\"%s}\n",
                workload, system, op, at(0.5), at(0.1), at(0.9), runs, ops, (unsigned long long)got,
                valid ? "true" : "false", compiler(), allocs);
    std::fflush(stdout);
}

/// For a workload a peer cannot express: says so on stderr, prints no line.
inline void unsupported(const config& cfg, const char* workload, const char* system, const char* why) {
    if (cfg.wants(workload)) std::fprintf(stderr, "  %-20s %-12s not run: %s\n", workload, system, why);
}

/// Runs every workload that `System` provides (static member functions
/// taking the sizes and returning the checksum), in the suite's order.
/// A workload the system lacks is announced as not run, with `System::why`.
template <class System>
void run_suite(const config& cfg, const char* system, int runs) {
    const csp::sizes& z = cfg.size();
    using namespace csp;
    measure(cfg, "pingpong_rendezvous", system, "msg", z.pingpong_msgs, runs, expect_pingpong(z),
            [&] { return System::pingpong(z); });
    measure(cfg, "throughput_buffered", system, "msg", z.buffered_msgs, runs, expect_buffered(z),
            [&] { return System::buffered_1to1(z); });
    if constexpr (requires { System::choose8(z); })
        measure(cfg, "choose_8", system, "msg", z.choose_msgs, runs, expect_choose(z),
                [&] { return System::choose8(z); });
    else
        unsupported(cfg, "choose_8", system, System::why_no_choose);
    measure(cfg, "savina_pingpong", system, "msg", 2 * z.savina_pings, runs, expect_savina_pingpong(z),
            [&] { return System::savina_pingpong(z); });
    measure(cfg, "savina_counting", system, "msg", z.counting_n, runs, expect_counting(z),
            [&] { return System::counting(z); });
    measure(cfg, "savina_threadring", system, "hop", z.ring_hops, runs, expect_ring(z),
            [&] { return System::thread_ring(z); });
    measure(cfg, "savina_throughput", system, "msg", long(z.throughput_actors) * z.throughput_per, runs,
            expect_throughput(z), [&] { return System::throughput(z); });
    measure(cfg, "savina_chameneos", system, "meeting", z.meetings, runs, expect_chameneos(z),
            [&] { return System::chameneos(z); });
    measure(cfg, "savina_big", system, "msg", 2 * long(z.big_workers) * z.big_pings, runs, expect_big(z),
            [&] { return System::big(z); });
}

}  // namespace bench
