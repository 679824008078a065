// SPDX-License-Identifier: Apache-2.0
// weft's side of the switching workloads (runs.hpp): two tasks yielding to
// each other, seed 004's generator, and same-fringe with nested generators.
#include <weft/core.hpp>

#include <cstdlib>

#include "runs.hpp"

#ifndef WEFT_BENCH_SYSTEM
#define WEFT_BENCH_SYSTEM "weft"
#endif

namespace {

using bench::node;
using bench::core::fringe_inputs;

// Sized as the frame report says an application would: same_fringe_large
// keeps one generator frame per tree level alive in each of its two walks
// (2 x 17 for 65536 leaves); with 8 slots most of them came from the slow
// path into the 512-byte pool. core_bench's other workloads use them too.
weft::frame_pool<256, 64> small_frames{"bench_small"};
weft::frame_pool<512, 1100> task_frames{"bench_tasks"};

constexpr long yields_per_task = 2'000'000;  // 2 x that many switches per run

weft::task<> yielder(long n) {
    for (long i = 0; i < n; ++i) co_await weft::yield();
}

void yield_run(const fringe_inputs&) {
    weft::executor ex;
    auto a = ex.spawn(yielder(yields_per_task));
    auto b = ex.spawn(yielder(yields_per_task));
    if (!a || !b) std::abort();
    ex.run();
}

constexpr long generated = 1'000'000;
volatile long long_sink;

weft::generator<long> counter(long n) {
    for (long i = 0; i < n; ++i) co_yield i;
}

void generator_run(const fringe_inputs&) {
    long s = 0;
    for (long v : counter(generated)) s += v;
    long_sink = s;
}

weft::generator<int> fringe(const node* n) {
    if (n->leaf()) {
        co_yield n->value;
        co_return;
    }
    co_yield weft::elements_of(fringe(n->left));
    co_yield weft::elements_of(fringe(n->right));
}

bool same_fringe(const node* a, const node* b) {
    auto ga = fringe(a);
    auto gb = fringe(b);
    auto ia = ga.begin();
    auto ib = gb.begin();
    for (; ia != ga.end() && ib != gb.end(); ++ia, ++ib)
        if (*ia != *ib) return false;
    return (ia == ga.end()) == (ib == gb.end());
}

using namespace bench::core;
const timed_run runs[] = {
    {"yield_roundtrip", WEFT_BENCH_SYSTEM, 2 * yields_per_task, 15, "", yield_run},
    {"generator_1m", WEFT_BENCH_SYSTEM, generated, 25, "", generator_run},
    {"same_fringe", WEFT_BENCH_SYSTEM, long(small_leaves) * small_reps, 15, small_extra, fringe_runs<same_fringe>::small},
    {"same_fringe_large", WEFT_BENCH_SYSTEM, long(large_leaves) * large_reps, 15, large_extra,
     fringe_runs<same_fringe>::large},
};

}  // namespace

bench::core::run_table bench::core::weft_runs() { return {runs, sizeof runs / sizeof runs[0]}; }
