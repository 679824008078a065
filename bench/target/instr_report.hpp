// SPDX-License-Identifier: Apache-2.0
#pragma once
// Shared by the board benchmarks (core_bench, csp_bench, reactor_bench):
// turning now_ns() differences into instruction counts and printing one
// JSON line per workload (shared/BENCH.md, unit instr/op).
//
// Under `qemu-system-arm -icount shift=0,sleep=off` one instruction is one
// nanosecond of virtual time, so each workload runs at N and at 0
// operations on the same code path and the difference divided by the
// extra operations is the exact cost of one; runs agree to the
// instruction (a first, cold run may not), and p10/p90 are kept for the
// shared report tools.
#include <weft/core/frame_pool.hpp>
#include <weft/port/port.hpp>

#include <cstdint>
#include <cstdio>

namespace bench_target {

// The compiler is part of the system: firmware Clang compiled
// (preset cortex-m4-clang) reports "weft_clang", "bare_coroutine_clang", ...
#if defined(__clang__)
inline constexpr const char* compiler_suffix = "_clang";
#else
inline constexpr const char* compiler_suffix = "";
#endif

/// Prints one line; `hundredths` are instructions x 100. `extra` is
/// appended inside the object (e.g. ",\"chain\":32"), or "".
inline void print(const char* suite, const char* workload, std::int64_t median, std::int64_t lo, std::int64_t hi,
                  int runs, std::uint32_t ops, const char* extra = "", const char* system = "weft") noexcept {
    char line[288];
    int len = std::snprintf(line, sizeof line,
                            "{\"suite\":\"%s\",\"workload\":\"%s\",\"system\":\"%s%s\",\"target\":\"%s\","
                            "\"unit\":\"instr/op\",\"median\":%u.%02u,\"p10\":%u.%02u,\"p90\":%u.%02u,"
                            "\"runs\":%d,\"ops_per_run\":%u%s}\n",
                            suite, workload, system, compiler_suffix, weft::port::target_name(), unsigned(median / 100),
                            unsigned(median % 100), unsigned(lo / 100), unsigned(lo % 100), unsigned(hi / 100),
                            unsigned(hi % 100), runs, unsigned(ops), extra);
    weft::port::console_write(line, std::size_t(len));
}

/// Median, p10 and p90 of three counts, as bench/common/harness.hpp
/// computes them on the host (sorted, linear interpolation between ranks),
/// so that spreads compare across suites.
struct spread {
    std::int64_t median, p10, p90;
};
inline spread spread_of(std::int64_t a, std::int64_t b, std::int64_t c) noexcept {
    auto order = [](std::int64_t& x, std::int64_t& y) {
        if (y < x) { std::int64_t t = x; x = y; y = t; }
    };
    order(a, b), order(b, c), order(a, b);
    return {b, a + (b - a) / 5, b + (c - b) * 4 / 5};
}

/// Runs `run(n)` and `run(0)` three times, each run doing n x ops_per_n
/// operations, and prints the per-operation difference. Stops the
/// program (exit status 2) if a workload did nothing or a frame could not
/// be allocated: a partial run must not print a number.
inline void measure(const char* suite, const char* workload, std::uint64_t (*run)(int), int n, int ops_per_n,
                    const char* extra = "", const char* system = "weft") noexcept {
    std::int64_t hundredths[3];
    const std::uint32_t ops = std::uint32_t(n * ops_per_n);
    for (auto& h : hundredths) {
        std::int64_t full = std::int64_t(run(n)), none = std::int64_t(run(0));
        h = (full - none) * 100 / std::int64_t(ops);
    }
    // Every run, not only the first: one whose N operations cost no more
    // than none did nothing, and print() cannot show a negative count.
    for (auto h : hundredths)
        if (h <= 0) weft::port::fatal("bench: a workload did no work (N operations cost no more than 0)");
    if (weft::frame_allocator::last_error())
        weft::port::fatal("bench: a workload failed (frame pool too small?)");
    const spread s = spread_of(hundredths[0], hundredths[1], hundredths[2]);
    print(suite, workload, s.median, s.p10, s.p90, 3, ops, extra, system);
}

}  // namespace bench_target
