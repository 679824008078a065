// SPDX-License-Identifier: Apache-2.0
// Property test: seeded random programs that mix every core primitive
// (mutex, semaphore, event, split_phase, sleep, yield, join, cancel,
// with_timeout, when_any, when_all, nested tasks) at random priorities.
// Whatever the interleaving, everything ends, nothing stays held or
// queued, and every frame goes back to its pool.
#include <weft/core.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>

#include <random>

using namespace weft;
using namespace std::chrono_literals;

namespace {

constexpr int tasks = 6;
frame_pool<4096, 256> mix_frames{"mix"};

struct world {
    std::mt19937 rng;
    mutex m[2] = {mutex{"m0"}, mutex{"m1"}};
    semaphore sem[2] = {semaphore{"s0", 2, 2}, semaphore{"s1", 1, 1}};
    event ev{"ev"};
    split_phase<int> sp{"sp"};
    result<join_handle<int>> handles[tasks] = {errc::invalid, errc::invalid, errc::invalid,
                                               errc::invalid, errc::invalid, errc::invalid};
    int units_held[2] = {0, 0};
    int pick(int n) { return int(rng() % unsigned(n)); }
    bool coin() { return pick(2) == 1; }
    duration some_time() { return std::chrono::microseconds(pick(5) * 100); }
};

task<int> body(world& w, int depth, int steps);

task<int> child(world& w, int depth, int steps) {
    use_frames scope{mix_frames};
    return body(w, depth, steps);
}

// No co_await inside ?: (GCC 12 starts both arms' awaits: csp.md).
task<status> lock_maybe_bounded(world& w, mutex& m) {
    if (w.coin()) co_return co_await with_timeout(m.lock(), w.some_time());
    co_return co_await m.lock();
}

task<int> body(world& w, int depth, int steps) {
    int sum = 0;
    for (int i = 0; i < steps; ++i) {
        switch (w.pick(depth < 2 ? 14 : 10)) {
            case 0: {
                int k = w.pick(2);
                status s = co_await lock_maybe_bounded(w, w.m[k]);
                if (s) {
                    lock_guard held{w.m[k]};
                    (void)co_await sleep_for(w.some_time());
                    if (w.pick(3) == 0) {  // nested: the other mutex too
                        status s2 = co_await with_timeout(w.m[1 - k].lock(), w.some_time());
                        if (s2) w.m[1 - k].unlock();
                    }
                }
                break;
            }
            case 1: {
                int k = w.pick(2);
                status s;
                if (w.coin()) s = co_await with_timeout(w.sem[k].acquire(), w.some_time());
                else s = co_await w.sem[k].acquire();
                if (s) {
                    ++w.units_held[k];
                    (void)co_await sleep_for(w.some_time());
                    --w.units_held[k];
                    EXPECT_TRUE(w.sem[k].release());
                }
                break;
            }
            case 2: (void)co_await with_timeout(w.ev.wait(), w.some_time()); break;
            case 3:
                if (w.coin()) w.ev.set();
                else w.ev.reset();
                break;
            case 4: (void)w.sp.complete(i); break;  // busy while one is unconsumed
            case 5: {
                // Several tasks may try: one waits, the others are refused
                // with busy, also while a value is on its way to the waiter.
                result<int> r = co_await with_timeout(w.sp.wait(), w.some_time());
                if (r) sum += *r;
                else EXPECT_TRUE(r.code() == errc::timeout || r.code() == errc::busy || r.code() == errc::cancelled)
                    << r.err().message().c_str();
                break;
            }
            case 6: {
                auto& h = w.handles[w.pick(tasks)];
                if (h) h->cancel();
                break;
            }
            case 7: (void)co_await yield(); break;
            case 8: (void)co_await sleep_for(w.some_time()); break;
            case 9: {
                auto& h = w.handles[w.pick(tasks)];
                if (h) {
                    result<int> r = co_await with_timeout(h->join(), w.some_time());
                    if (r) sum += *r;
                }
                break;
            }
            case 10: {
                auto r = co_await when_any(child(w, depth + 1, 3), child(w, depth + 1, 3));
                if (r.outcome == errc::ok) {
                    if (r.index == 0 && *std::get<0>(r.values)) sum += **std::get<0>(r.values);
                    if (r.index == 1 && *std::get<1>(r.values)) sum += **std::get<1>(r.values);
                }
                break;
            }
            case 11: {
                auto [a, b] = co_await with_timeout(when_all(child(w, depth + 1, 3), child(w, depth + 1, 3)),
                                                    w.some_time());
                if (a) sum += *a;
                if (b) sum += *b;
                break;
            }
            case 12: {
                result<int> r = co_await with_timeout(child(w, depth + 1, 3), w.some_time());
                if (r) sum += *r;
                break;
            }
            case 13: {
                result<int> r = co_await child(w, depth + 1, 2);
                if (r) sum += *r;
                break;
            }
        }
    }
    co_return sum;
}

void run_seed(unsigned seed) {
    executor ex{test::virtual_clock()};
    world w;
    w.rng.seed(seed);
    for (auto& h : w.handles) {
        h = ex.spawn(child(w, 0, 12), priority(w.pick(4)));
        ASSERT_TRUE(h) << h.err().message().c_str();
    }
    // A task may wait for ever (a join of a task joining it back, an
    // unbounded lock or acquire behind it): run() then reports a stall,
    // and cancelling every task must end them all.
    for (int rounds = 0;; ++rounds) {
        run_outcome o = ex.run();
        if (o == run_outcome::completed) break;
        ASSERT_EQ(o, run_outcome::stalled) << "seed " << seed;
        ASSERT_LT(rounds, 4) << "seed " << seed << ": cancelling every task did not end them";
        for (auto& h : w.handles)
            if (h) h->cancel();
    }
    for (int k = 0; k < 2; ++k) {
        EXPECT_FALSE(w.m[k].locked()) << "seed " << seed << " mutex " << k;
        EXPECT_EQ(w.units_held[k], 0) << "seed " << seed;
    }
    EXPECT_EQ(w.sem[0].available(), 2u) << "seed " << seed;
    EXPECT_EQ(w.sem[1].available(), 1u) << "seed " << seed;
    EXPECT_EQ(ex.contended_locks(), nullptr) << "seed " << seed;
    EXPECT_EQ(ex.live_tasks(), 0u) << "seed " << seed;
    for (auto& h : w.handles)
        if (h) h->detach();
    EXPECT_EQ(mix_frames.in_use(), 0u) << "seed " << seed;
}

}  // namespace

TEST(random_mix, every_primitive_in_random_programs_ends_with_nothing_held_or_leaked) {
    for (unsigned seed = 1; seed <= 2000; ++seed) {
        run_seed(seed);
        if (::testing::Test::HasFailure()) break;
    }
}
