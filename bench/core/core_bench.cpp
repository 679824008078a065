// SPDX-License-Identifier: Apache-2.0
// bench/run core — weft's side: yield_roundtrip, timer_churn, generator_1m,
// same_fringe, spawn_complete. Peers run the same work in core_peers.
#include <weft/core.hpp>

#include <ctime>
#include <random>

#include "../common/harness.hpp"
#include "trees.hpp"

namespace {

#ifndef WEFT_BENCH_SYSTEM
#define WEFT_BENCH_SYSTEM "weft"
#endif
// A second build of the same code with another compiler reports itself
// under another name (bench/run core: "weft_clang").
constexpr const char* system_name = WEFT_BENCH_SYSTEM;

// Sized as the frame report says an application would: same_fringe_large
// keeps one generator frame per tree level alive in each of its two walks
// (2 x 17 for 65536 leaves); with 8 slots most of them came from the slow
// path into the 512-byte pool.
weft::frame_pool<256, 64> small_frames{"bench_small"};
weft::frame_pool<512, 1100> task_frames{"bench_tasks"};

constexpr const char* suite = "core";

// --- yield_roundtrip: two tasks yielding to each other -------------------
weft::task<> yielder(long n) {
    for (long i = 0; i < n; ++i) co_await weft::yield();
}

void yield_roundtrip(const bench::options& o) {
    const long n = 2'000'000;  // yields per task; 2n switches per run
    bench::measure(suite, "yield_roundtrip", system_name, o.runs(15), 2 * n, [&] {
        weft::executor ex;
        auto a = ex.spawn(yielder(n));
        auto b = ex.spawn(yielder(n));
        if (!a || !b) std::abort();
        ex.run();
    });
}

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

// --- generator_1m -----------------------------------------------------------
weft::generator<long> counter(long n) {
    for (long i = 0; i < n; ++i) co_yield i;
}

void generator_1m(const bench::options& o) {
    const long n = 1'000'000;
    volatile long sink = 0;
    bench::measure(suite, "generator_1m", system_name, o.runs(25), n, [&] {
        long s = 0;
        for (long v : counter(n)) s += v;
        sink = s;
    });
    (void)sink;
}

// --- same_fringe --------------------------------------------------------------
weft::generator<int> fringe(const bench::node* n) {
    if (n->leaf()) {
        co_yield n->value;
        co_return;
    }
    co_yield weft::elements_of(fringe(n->left));
    co_yield weft::elements_of(fringe(n->right));
}

bool same_fringe(const bench::node* a, const bench::node* b) {
    auto ga = fringe(a);
    auto gb = fringe(b);
    auto ia = ga.begin();
    auto ib = gb.begin();
    for (; ia != ga.end() && ib != gb.end(); ++ia, ++ib)
        if (*ia != *ib) return false;
    return (ia == ga.end()) == (ib == gb.end());
}

void same_fringe_bench(const bench::options& o, const char* workload, int leaves, int reps) {
    auto a = bench::make_tree(leaves, true);
    auto b = bench::make_tree(leaves, false);
    volatile bool sink = false;
    char extra[48];
    std::snprintf(extra, sizeof extra, ",\"leaves\":%d", leaves);
    bench::measure(suite, workload, system_name, o.runs(15), long(leaves) * reps, [&] {
        bool all = true;
        for (int r = 0; r < reps; ++r) all &= same_fringe(a.root, b.root);
        if (!all) std::abort();
        sink = all;
    }, extra);
    (void)sink;
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

}  // namespace

int main(int argc, char** argv) {
    auto o = bench::parse(argc, argv);
    if (o.wants("yield_roundtrip")) yield_roundtrip(o);
    if (o.wants("timer_churn")) timer_churn(o);
    if (o.wants("generator_1m")) generator_1m(o);
    if (o.wants("same_fringe")) same_fringe_bench(o, "same_fringe", 8, 100'000);
    if (o.wants("same_fringe_large")) same_fringe_bench(o, "same_fringe_large", 1 << 16, 8);
    if (o.wants("spawn_complete")) spawn_complete(o);
}
