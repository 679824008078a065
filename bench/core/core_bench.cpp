// SPDX-License-Identifier: Apache-2.0
// bench/run core — weft's side: yield_roundtrip, generator_1m, same_fringe
// and same_fringe_large (weft_runs.cpp, shared with core_paired),
// yield_timer_armed, timer_churn, spawn_complete. Peers run the same work
// in core_peers (yield_timer_armed: weft only).
#include <weft/core.hpp>

#include <ctime>
#include <random>

#include "measure_runs.hpp"

namespace {

// A second build of the same code with another compiler reports itself
// under another name (bench/run core: "weft_clang"); weft_runs.cpp, built
// with the same definition, names its lines the same way.
#ifndef WEFT_BENCH_SYSTEM
#define WEFT_BENCH_SYSTEM "weft"
#endif
constexpr const char* system_name = WEFT_BENCH_SYSTEM;

// The frames of timer_churn's and spawn_complete's tasks come from the
// pools weft_runs.cpp declares.
constexpr const char* suite = "core";

// --- timer_churn: 1000 tasks x 100 random short sleeps, real clock --------
weft::task<> churner(std::uint32_t seed, int rounds) {
    std::minstd_rand rng(seed);
    for (int i = 0; i < rounds; ++i)
        co_await weft::sleep_for(std::chrono::microseconds(1 + rng() % 200));
}

double thread_cpu_ns() {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e9 + double(ts.tv_nsec);
}

void timer_churn(const bench::options& o) {
    const int tasks = 1000, rounds = 100;
    const long ops = long(tasks) * rounds;
    std::fprintf(stderr, "  %-22s %-16s ...\n", "timer_churn", system_name);
    std::vector<double> cpu_per_op, wall_per_op;
    std::size_t allocs = 0;
    const int runs = o.runs(7);
    for (int r = -1; r < runs; ++r) {  // r == -1: the warm-up, as bench::measure() has
        weft::executor ex;
        for (int i = 0; i < tasks; ++i) {
            auto h = ex.spawn(churner(std::uint32_t(i + 1), rounds));
            if (!h) std::abort();
        }
        const std::size_t a0 = bench::allocations.load(std::memory_order_relaxed);
        double c0 = thread_cpu_ns();
        auto t0 = std::chrono::steady_clock::now();
        ex.run();
        auto t1 = std::chrono::steady_clock::now();
        if (r < 0) continue;
        allocs += bench::allocations.load(std::memory_order_relaxed) - a0;
        cpu_per_op.push_back((thread_cpu_ns() - c0) / double(ops));
        wall_per_op.push_back(double((t1 - t0).count()) / double(ops));
    }
    // The executor sleeps while timers are pending, so the cost of a timer
    // operation is the CPU time spent, not the wall time.
    char extra[96];
    std::snprintf(extra, sizeof extra, ",\"measure\":\"thread_cpu\",\"wall_median\":%.1f",
                  bench::percentile(wall_per_op, 0.5));
    bench::report(suite, "timer_churn", system_name, "ns/op", cpu_per_op, ops, double(allocs) / runs, extra);
}

// --- spawn_complete -------------------------------------------------------------
weft::task<> trivial() { co_return; }

void spawn_complete(const bench::options& o) {
    const long n = 1'000'000;
    weft::executor ex;
    bench::measure(suite, "spawn_complete", system_name, o.runs(15), n, [&] {
        for (long i = 0; i < n; ++i) {
            auto h = ex.spawn(trivial());
            if (!h) std::abort();
            h->detach();
            ex.run();
        }
    });
}

// --- yield_timer_armed: yield_roundtrip with one timer armed an hour away,
// as in any program with a periodic task or a pending timeout. weft only:
// the hosts have no alarm yet (docs/core.md, "Timers and the alarm"), so
// this is what a timer armed costs each switch; compare with this run's
// yield_roundtrip line.
constexpr long armed_yields_per_task = 1'000'000;

weft::task<> armed_yielder(long n, weft::join_handle<void>* then_cancel) {
    for (long i = 0; i < n; ++i) co_await weft::yield();
    if (then_cancel) then_cancel->cancel();
}
weft::task<> far_sleeper() { (void)co_await weft::sleep_for(std::chrono::hours(1)); }

void yield_timer_armed(const bench::options& o) {
    bench::measure(suite, "yield_timer_armed", system_name, o.runs(15), 2 * armed_yields_per_task, [&] {
        weft::executor ex;
        auto s = ex.spawn(far_sleeper());
        if (!s) std::abort();
        auto a = ex.spawn(armed_yielder(armed_yields_per_task, &*s));
        auto b = ex.spawn(armed_yielder(armed_yields_per_task, nullptr));
        if (!a || !b) std::abort();
        ex.run();
    });
}

}  // namespace

int main(int argc, char** argv) {
    auto o = bench::parse(argc, argv);
    const bench::core::fringe_trees trees;
    bench::core::measure_runs(o, bench::core::weft_runs(), trees.inputs());
    if (o.wants("yield_timer_armed")) yield_timer_armed(o);
    if (o.wants("timer_churn")) timer_churn(o);
    if (o.wants("spawn_complete")) spawn_complete(o);
}
