// SPDX-License-Identifier: Apache-2.0
#include <weft/core/executor.hpp>
#include <weft/core/event.hpp>
#include <weft/core/task.hpp>
#include <weft/core/yield.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>

#include <string>

using namespace weft;

namespace {
task<> record(std::string& log, char name, int yields) {
    for (int i = 0; i < yields; ++i) {
        log += name;
        co_await yield();
    }
    log += name;
}
}  // namespace

TEST(executor, higher_priority_runs_first) {
    executor ex{test::virtual_clock()};
    std::string log;
    auto a = ex.spawn(record(log, 'a', 0), 1);
    auto b = ex.spawn(record(log, 'b', 0), 7);
    auto c = ex.spawn(record(log, 'c', 0), 31);
    auto d = ex.spawn(record(log, 'd', 0), 0);
    ASSERT_TRUE(a && b && c && d);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(log, "cbad");
}

TEST(executor, same_priority_is_fifo_and_yield_round_robins) {
    executor ex{test::virtual_clock()};
    std::string log;
    auto a = ex.spawn(record(log, 'a', 2), 4);
    auto b = ex.spawn(record(log, 'b', 2), 4);
    auto c = ex.spawn(record(log, 'c', 2), 4);
    ASSERT_TRUE(a && b && c);
    ex.run();
    EXPECT_EQ(log, "abcabcabc");
}

TEST(executor, yield_does_not_let_lower_priority_run) {
    executor ex{test::virtual_clock()};
    std::string log;
    auto lo = ex.spawn(record(log, 'l', 1), 1);
    auto hi = ex.spawn(record(log, 'h', 3), 2);
    ASSERT_TRUE(lo && hi);
    ex.run();
    EXPECT_EQ(log, "hhhhll");
}

TEST(executor, woken_task_preempts_at_next_scheduling_point_by_priority) {
    executor ex{test::virtual_clock()};
    std::string log;
    event go{"go"};
    auto waiter = [&]() -> task<> {
        co_await go.wait();
        log += 'H';
    };
    auto setter = [&]() -> task<> {
        log += 's';
        go.set();
        co_await yield();  // the woken high-priority task runs here
        log += 's';
    };
    auto w = ex.spawn(waiter(), 9);
    auto s = ex.spawn(setter(), 1);
    ASSERT_TRUE(w && s);
    ex.run();
    EXPECT_EQ(log, "sHs");
}

TEST(executor, run_reports_stall_on_virtual_clock) {
    executor ex{test::virtual_clock()};
    event never{"never"};
    auto t = [&]() -> task<> { co_await never.wait(); };
    auto h = ex.spawn(t());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::stalled);
    EXPECT_EQ(ex.live_tasks(), 1u);
    h->cancel();  // unblocks the wait with `cancelled`
    EXPECT_EQ(ex.run(), run_outcome::completed);
}

TEST(executor, request_stop_returns_from_run) {
    executor ex{test::virtual_clock()};
    int loops = 0;
    auto spinner = [&]() -> task<> {
        for (;;) {
            if (++loops == 10) ex.request_stop();
            co_await yield();
        }
    };
    auto h = ex.spawn(spinner());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::stopped);
    EXPECT_EQ(loops, 10);
    h->cancel();
}

// The yield fast path rotates a level's ring in place; check it against the
// plain FIFO order with levels joining and leaving while tasks yield.
TEST(executor, yield_ring_keeps_fifo_order_across_levels) {
    executor ex{test::virtual_clock()};
    std::string log;
    auto a = ex.spawn(record(log, 'a', 3), 2);
    auto b = ex.spawn(record(log, 'b', 1), 2);
    auto c = ex.spawn(record(log, 'c', 2), 2);
    auto x = ex.spawn(record(log, 'x', 1), 1);
    auto y = ex.spawn(record(log, 'y', 0), 1);
    auto z = ex.spawn(record(log, 'z', 2), 5);
    ASSERT_TRUE(a && b && c && x && y && z);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(log, "zzzabcabcacaxyx");
}

TEST(executor, yield_of_a_lone_task_continues_it) {
    executor ex{test::virtual_clock()};
    std::string log;
    auto a = ex.spawn(record(log, 'a', 4), 9);
    ASSERT_TRUE(a);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(log, "aaaaa");
}

// A stop requested by a yielding task must reach run() even though the
// yield would otherwise switch straight to the next task.
TEST(executor, request_stop_interrupts_a_yield_ring) {
    executor ex{test::virtual_clock()};
    int spins = 0;
    auto spin = [&]() -> task<> {
        for (;;) {
            if (++spins == 100) ex.request_stop();
            co_await yield();
        }
    };
    auto a = ex.spawn(spin());
    auto b = ex.spawn(spin());
    ASSERT_TRUE(a && b);
    EXPECT_EQ(ex.run(), run_outcome::stopped);
    EXPECT_LE(spins, 101);
    a->cancel();
    b->cancel();
}
