// SPDX-License-Identifier: Apache-2.0
// The peers' side of the switching workloads (runs.hpp), built with
// exceptions on, as these libraries expect: boost_context (callcc
// continuations) and boost_coroutine2 (pull_type). The bare coroutines
// are in bare_runs.cpp.
#include <boost/context/continuation.hpp>
#include <boost/coroutine2/coroutine.hpp>

#include <cstdlib>
#include <utility>

#include "runs.hpp"

namespace ctx = boost::context;

namespace {

using bench::node;
using bench::core::fringe_inputs;

// --- yield_roundtrip ---------------------------------------------------------
constexpr long switches = 2'000'000;  // boost_context: one resume is one switch

void boost_context_yield_run(const fringe_inputs&) {
    long count = 0;
    ctx::continuation c = ctx::callcc([&](ctx::continuation&& main) {
        for (;;) {
            ++count;
            main = main.resume();
        }
        return std::move(main);
    });
    for (long i = 0; i < switches / 2; ++i) c = c.resume();
    if (count < switches / 2) std::abort();
}

// --- generator_1m ------------------------------------------------------------
constexpr long generated = 1'000'000;
volatile long long_sink;


void boost_coroutine2_generator_run(const fringe_inputs&) {
    using coro = boost::coroutines2::coroutine<long>;
    coro::pull_type gen([&](coro::push_type& yield) {
        for (long i = 0; i < generated; ++i) yield(i);
    });
    long s = 0;
    for (long v : gen) s += v;
    long_sink = s;
}

// --- same_fringe -------------------------------------------------------------
// Stackful: each tree walked recursively on its own stack, handing leaves
// back through a continuation.
struct walker {
    ctx::continuation self;
    ctx::continuation back;
    int value = 0;
    bool done = false;
    void walk(const node* n) {
        if (n->leaf()) {
            value = n->value;
            back = back.resume();
            return;
        }
        walk(n->left);
        walk(n->right);
    }
    explicit walker(const node* root) {
        self = ctx::callcc([this, root](ctx::continuation&& caller) {
            back = std::move(caller);
            back = back.resume();  // wait for the first request
            walk(root);
            done = true;
            return std::move(back);
        });
    }
    bool next() {
        self = self.resume();
        return !done;
    }
};

bool same_fringe(const node* a, const node* b) {
    walker wa(a), wb(b);
    for (;;) {
        bool ha = wa.next(), hb = wb.next();
        if (ha != hb) return false;
        if (!ha) return true;
        if (wa.value != wb.value) return false;
    }
}

using namespace bench::core;
const timed_run runs[] = {
    {"yield_roundtrip", "boost_context", switches, 15, "", boost_context_yield_run},
    {"generator_1m", "boost_coroutine2", generated, 25, "", boost_coroutine2_generator_run},
    {"same_fringe", "boost_context", long(small_leaves) * small_reps, 15, small_extra, fringe_runs<same_fringe>::small},
    {"same_fringe_large", "boost_context", long(large_leaves) * large_reps, 15, large_extra,
     fringe_runs<same_fringe>::large},
};

}  // namespace

bench::core::run_table bench::core::peer_runs() { return {runs, sizeof runs / sizeof runs[0]}; }
