// SPDX-License-Identifier: Apache-2.0
#include <weft/core/executor.hpp>
#include <weft/core/event.hpp>
#include <weft/core/sleep.hpp>
#include <weft/core/task.hpp>
#include <weft/core/yield.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>

#include <string>

using namespace weft;
using namespace std::chrono_literals;

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
TEST(executor, a_stop_requested_before_run_is_not_lost) {
    executor ex{test::virtual_clock()};
    bool ran = false;
    auto body = [&]() -> task<> {
        ran = true;
        co_return;
    };
    auto h = ex.spawn(body());
    ASSERT_TRUE(h);
    ex.request_stop();  // e.g. from another thread, before run() starts
    EXPECT_EQ(ex.run(), run_outcome::stopped);
    EXPECT_FALSE(ran);
    EXPECT_EQ(ex.run(), run_outcome::completed);  // that stop was consumed
    EXPECT_TRUE(ran);
}

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

namespace {
task<> child_yields(std::string& log, char name) {
    log += name;
    co_await yield();
    log += name;
}
task<> parent(std::string& log, char name) {
    co_await child_yields(log, name);
    log += char(name - 'a' + 'A');
}
}  // namespace

// The queue's cached front (hosts) must track what each queued task
// resumes: a child task's frame, a task woken into a non-empty level, the
// task behind one that finishes.
TEST(executor, ready_queue_resumes_children_and_woken_tasks_in_fifo_order) {
    executor ex{test::virtual_clock()};
    std::string log;
    event go{"go"};
    auto p = ex.spawn(parent(log, 'p'), 3);
    auto r = ex.spawn(record(log, 'r', 2), 3);
    auto w = ex.spawn([](std::string& l, event& e) -> task<> {
        co_await e.wait();
        l += 'w';
    }(log, go), 3);
    auto s = ex.spawn([](std::string& l, event& e) -> task<> {
        e.set();
        co_await yield();
        l += 's';
    }(log, go), 3);
    ASSERT_TRUE(p && r && w && s);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(log, "prpPrwsr");
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

namespace {
// Parks the awaiting task with no wake-up source and records its control
// block, so that an irq_node handler can wake it.
struct parked {
    task_control* ctl = nullptr;
};
struct park_here {
    parked& p;
    bool await_ready() const noexcept { return false; }
    template <class P>
    void await_suspend(std::coroutine_handle<P> h) noexcept {
        p.ctl = &h.promise().control();
        p.ctl->park(h);
    }
    void await_resume() const noexcept {}
};
task<> park_then_log(parked& p, std::string& log, char name) {
    co_await park_here{p};
    log += name;
}
// A handler whose last action is wake_from_handler; it logs '|' after it,
// which shows whether the task ran inside the call.
struct wake_node : irq_node {
    wake_node(executor& e, parked& t, std::string& l) : irq_node(&on_run), ex(&e), p(&t), log(&l) {}
    static void on_run(irq_node* n) noexcept {
        auto* self = static_cast<wake_node*>(n);
        self->ex->wake_from_handler(*self->p->ctl);
        *self->log += '|';
    }
    executor* ex;
    parked* p;
    std::string* log;
};
}  // namespace

TEST(executor, wake_from_handler_resumes_at_once_when_nothing_else_would_run) {
    executor ex{test::virtual_clock()};
    std::string log;
    parked p;
    wake_node n{ex, p, log};
    auto t = ex.spawn(park_then_log(p, log, 'T'), 3);
    auto poster = [&]() -> task<> {
        ex.post(n);
        co_return;
    };
    auto q = ex.spawn(poster(), 1);
    ASSERT_TRUE(t && q);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(log, "T|");
}

TEST(executor, wake_from_handler_queues_when_a_timer_is_armed) {
    executor ex{test::virtual_clock()};
    std::string log;
    parked p;
    wake_node n{ex, p, log};
    auto t = ex.spawn(park_then_log(p, log, 'T'), 3);
    auto poster = [&]() -> task<> {
        ex.post(n);
        co_await sleep_for(1ms);
        log += 'S';
    };
    auto q = ex.spawn(poster(), 1);
    ASSERT_TRUE(t && q);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(log, "|TS");
}

// Two wakes in one batch, in either order: the higher-priority task runs
// first. Only the last node of a batch may resume its task directly, and
// only if no ready task has its priority or a higher one.
TEST(executor, wake_from_handler_keeps_the_priority_order) {
    for (bool high_first : {true, false}) {
        executor ex{test::virtual_clock()};
        std::string log;
        parked ph, pl;
        wake_node nh{ex, ph, log}, nl{ex, pl, log};
        auto h = ex.spawn(park_then_log(ph, log, 'H'), 5);
        auto l = ex.spawn(park_then_log(pl, log, 'L'), 1);
        auto poster = [&]() -> task<> {
            if (high_first) {
                ex.post(nh);
                ex.post(nl);
            } else {
                ex.post(nl);
                ex.post(nh);
            }
            co_return;
        };
        auto q = ex.spawn(poster(), 0);
        ASSERT_TRUE(h && l && q);
        EXPECT_EQ(ex.run(), run_outcome::completed);
        EXPECT_EQ(log, high_first ? "||HL" : "|H|L") << "high_first=" << high_first;
    }
}

TEST(executor, wake_from_handler_keeps_fifo_within_a_priority) {
    executor ex{test::virtual_clock()};
    std::string log;
    parked pa, pb;
    wake_node na{ex, pa, log}, nb{ex, pb, log};
    auto a = ex.spawn(park_then_log(pa, log, 'A'), 2);
    auto b = ex.spawn(park_then_log(pb, log, 'B'), 2);
    auto poster = [&]() -> task<> {
        ex.post(na);
        ex.post(nb);
        co_return;
    };
    auto q = ex.spawn(poster(), 0);
    ASSERT_TRUE(a && b && q);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(log, "||AB");
}

// A task resumed inside a handler runs one call deeper than from run();
// a wake_from_handler it makes itself is queued, so the depth stays bounded.
TEST(executor, wake_from_handler_does_not_nest) {
    executor ex{test::virtual_clock()};
    std::string log;
    parked pt, po;
    wake_node n{ex, pt, log};
    auto t = [&]() -> task<> {
        co_await park_here{pt};
        log += 'a';
        ex.wake_from_handler(*po.ctl);
        log += 'b';
    };
    auto other = ex.spawn(park_then_log(po, log, 'o'), 4);
    auto th = ex.spawn(t(), 3);
    auto poster = [&]() -> task<> {
        ex.post(n);
        co_return;
    };
    auto q = ex.spawn(poster(), 1);
    ASSERT_TRUE(other && th && q);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(log, "ab|o");
}
