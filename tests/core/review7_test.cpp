// SPDX-License-Identifier: Apache-2.0
// Review 7: the executor's stops and interrupts, timers, events and
// semaphores, split_phase values with destructors, groups.
#include <weft/core/cancel.hpp>
#include <weft/core/event.hpp>
#include <weft/core/semaphore.hpp>
#include <weft/core/sleep.hpp>
#include <weft/core/split_phase.hpp>
#include <weft/core/task.hpp>
#include <weft/core/timeout.hpp>
#include <weft/core/when_all.hpp>
#include <weft/core/when_any.hpp>
#include <weft/core/yield.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>

#include <string>
#include <tuple>
#include <vector>

using namespace weft;
using namespace std::chrono_literals;
using test::counted;
using test::text;

namespace {

struct stop_node : irq_node {
    executor* ex;
    explicit stop_node(executor& e) : irq_node(&on_run), ex(&e) {}
    static void on_run(irq_node* n) noexcept { static_cast<stop_node*>(n)->ex->request_stop(); }
};

// An interrupt node whose handler sets an event.
struct set_node : irq_node {
    event* e;
    explicit set_node(event& x) : irq_node(&on_run), e(&x) {}
    static void on_run(irq_node* n) noexcept { static_cast<set_node*>(n)->e->set(); }
};

}  // namespace

// ------------------------------------------------------------- executor

// A stop requested by an interrupt handler ends run(); the next run()
// goes on where it left off and loses no task.
TEST(review7, a_stop_from_a_handler_ends_run_and_the_next_run_goes_on) {
    executor ex{test::virtual_clock()};
    stop_node n{ex};
    std::vector<int> log;
    auto worker = [&](int id) -> task<> {
        for (int i = 0; i < 3; ++i) {
            log.push_back(id * 10 + i);
            if (id == 1 && i == 0) (void)ex.post(n);
            co_await yield();
        }
    };
    auto a = ex.spawn(worker(1));
    auto b = ex.spawn(worker(2));
    ASSERT_TRUE(a && b);
    EXPECT_EQ(ex.run(), run_outcome::stopped);
    EXPECT_EQ(ex.live_tasks(), 2u);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(log, (std::vector<int>{10, 20, 11, 21, 12, 22}));
    EXPECT_EQ(ex.live_tasks(), 0u);
}

// A stop requested by a task ends run() before a second stop is
// requested; both are consumed, one per run().
TEST(review7, two_stops_each_end_one_run) {
    executor ex{test::virtual_clock()};
    int rounds = 0;
    auto worker = [&]() -> task<> {
        ex.request_stop();
        co_await sleep_for(1ms);
        ++rounds;
        ex.request_stop();
        co_await sleep_for(1ms);
        ++rounds;
    };
    auto a = ex.spawn(worker());
    ASSERT_TRUE(a);
    EXPECT_EQ(ex.run(), run_outcome::stopped);
    EXPECT_EQ(rounds, 0);
    EXPECT_EQ(ex.run(), run_outcome::stopped);
    EXPECT_EQ(rounds, 1);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(rounds, 2);
    EXPECT_EQ(test::ms(ex), 2);
}

// A stop requested from a handler whose batch also holds a node whose
// handler wakes a task: the stop wins, and the woken task runs in the
// next run().
TEST(review7, a_stop_from_a_handler_then_a_wake_in_the_same_batch) {
    executor ex{test::virtual_clock()};
    stop_node n{ex};
    event ev{"ev"};
    set_node s{ev};
    bool woke = false;
    auto waiter = [&]() -> task<> {
        co_await ev.wait();
        woke = true;
    };
    auto poster = [&]() -> task<> {
        (void)ex.post(n);
        (void)ex.post(s);
        co_return;
    };
    auto a = ex.spawn(waiter());
    auto b = ex.spawn(poster());
    ASSERT_TRUE(a && b);
    EXPECT_EQ(ex.run(), run_outcome::stopped);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_TRUE(woke);
}

// Tasks woken by one timer instant, interleaved with handlers: a higher
// priority task woken by a handler runs before lower ones woken by timers.
TEST(review7, a_handler_wake_of_a_high_task_runs_before_timer_wakes_of_low_ones) {
    executor ex{test::virtual_clock()};
    std::vector<std::string> log;
    event ev{"ev"};
    set_node s{ev};
    auto low = [&](const char* name) -> task<> {
        co_await sleep_for(1ms);
        log.push_back(name);
    };
    auto high = [&]() -> task<> {
        co_await ev.wait();
        log.push_back("high");
    };
    auto poster = [&]() -> task<> {
        co_await sleep_for(1ms);
        log.push_back("poster");
        (void)ex.post(s);
    };
    auto p = ex.spawn(poster(), 2);
    auto a = ex.spawn(low("a"), 1);
    auto b = ex.spawn(low("b"), 1);
    auto h = ex.spawn(high(), 3);
    ASSERT_TRUE(p && a && b && h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(log, (std::vector<std::string>{"poster", "high", "a", "b"}));
}

// ---------------------------------------------------------------- timers

// Equal deadlines from sleep_for and sleep_until fire in arming order.
TEST(review7, equal_deadlines_from_sleep_for_and_sleep_until_keep_arming_order) {
    executor ex{test::virtual_clock()};
    std::vector<int> log;
    auto rel = [&](int id) -> task<> {
        co_await sleep_for(5ms);
        log.push_back(id);
    };
    auto abs = [&](int id) -> task<> {
        co_await sleep_until(from_ns(5'000'000));
        log.push_back(id);
    };
    auto a = ex.spawn(rel(1));
    auto b = ex.spawn(abs(2));
    auto c = ex.spawn(rel(3));
    auto d = ex.spawn(abs(4));
    ASSERT_TRUE(a && b && c && d);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(log, (std::vector<int>{1, 2, 3, 4}));
}

// A cancelled sleeper in the middle of equal deadlines leaves the
// others' order alone.
TEST(review7, cancelling_a_sleeper_among_equal_deadlines_keeps_the_others_order) {
    executor ex{test::virtual_clock()};
    std::vector<std::string> log;
    auto sleeper = [&](int id) -> task<> {
        auto s = co_await sleep_for(5ms);
        log.push_back(std::to_string(id) + ":" + text(s) + "@" + std::to_string(test::ms(ex)));
    };
    std::vector<join_handle<void>> hs;
    for (int i = 0; i < 5; ++i) {
        auto h = ex.spawn(sleeper(i));
        ASSERT_TRUE(h);
        hs.push_back(std::move(*h));
    }
    test::cancel_after(ex, hs[2], 2ms);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(log, (std::vector<std::string>{"2:cancelled@2", "0:ok@5", "1:ok@5", "3:ok@5", "4:ok@5"}));
}

// Nested bounds on an event wait: the shorter decides, either way round.
TEST(review7, nested_bounds_on_an_event_the_shorter_decides) {
    static frame_pool<4096, 2> big{"r7_big"};
    executor ex{test::virtual_clock()};
    event ev{"ev"};
    std::vector<std::string> log;
    auto w = [&]() -> task<> {
        auto a = co_await with_timeout(with_timeout(ev.wait(), 10ms), 5ms);
        log.push_back(text(a) + "@" + std::to_string(test::ms(ex)));
        auto b = co_await with_timeout(with_deadline(ev.wait(), ex.now() + 3ms), 7ms);
        log.push_back(text(b) + "@" + std::to_string(test::ms(ex)));
        auto c = co_await with_timeout(with_timeout(ev.wait(), 10ms), 20ms);
        log.push_back(text(c) + "@" + std::to_string(test::ms(ex)));
        // The event is set at 25 ms, before either bound.
        auto d = co_await with_timeout(with_timeout(ev.wait(), 10ms), 20ms);
        log.push_back(text(d) + "@" + std::to_string(test::ms(ex)));
    };
    auto s = [&]() -> task<> {
        co_await sleep_until(from_ns(25'000'000));
        ev.set();
    };
    task<> wt;
    {
        use_frames scope{big};
        wt = w();
    }
    auto a = ex.spawn(std::move(wt));
    ASSERT_TRUE(a) << text(a);
    auto b = ex.spawn(s());
    ASSERT_TRUE(b) << text(b);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(log, (std::vector<std::string>{"event 'ev': timeout@5", "event 'ev': timeout@8",
                                             "event 'ev': timeout@18", "ok@25"}));
}


// ------------------------------------------------------ event / semaphore

// Waiters cancelled in the middle of a semaphore's queue are skipped;
// the units go to the others in arrival order.
TEST(review7, semaphore_units_skip_waiters_cancelled_in_the_middle) {
    executor ex{test::virtual_clock()};
    semaphore sem{"s", 0, 4};
    std::vector<std::string> log;
    auto taker = [&](int id) -> task<> {
        auto s = co_await sem.acquire();
        log.push_back(std::to_string(id) + ":" + text(s));
    };
    std::vector<join_handle<void>> hs;
    for (int i = 0; i < 4; ++i) {
        auto h = ex.spawn(taker(i));
        ASSERT_TRUE(h);
        hs.push_back(std::move(*h));
    }
    auto releaser = [&]() -> task<> {
        co_await sleep_for(1ms);
        hs[1].cancel();
        hs[2].cancel();
        EXPECT_TRUE(sem.release());
        EXPECT_TRUE(sem.release());
        EXPECT_TRUE(sem.release());
    };
    auto r = ex.spawn(releaser());
    ASSERT_TRUE(r);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(log, (std::vector<std::string>{"1:semaphore 's': cancelled", "2:semaphore 's': cancelled", "0:ok",
                                             "3:ok"}));
    EXPECT_EQ(sem.available(), 1u);
    auto over = [&]() -> task<> {
        EXPECT_TRUE(sem.release());
        EXPECT_TRUE(sem.release());
        EXPECT_TRUE(sem.release());
        auto s = sem.release();
        EXPECT_TRUE(test::failed_with(s, errc::full, "semaphore 's': released above its maximum (limit 4)"));
        co_return;
    };
    auto o = ex.spawn(over());
    ASSERT_TRUE(o);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(sem.available(), 4u);
}

// An event set, reset and set again before its waiters run wakes each
// waiter once; a waiter that arrives after the reset waits for the next set.
TEST(review7, event_set_reset_set_wakes_each_waiter_once) {
    executor ex{test::virtual_clock()};
    event ev{"ev"};
    std::vector<std::string> log;
    auto waiter = [&](int id) -> task<> {
        auto s = co_await ev.wait();
        log.push_back(std::to_string(id) + ":" + text(s) + "@" + std::to_string(test::ms(ex)));
    };
    auto setter = [&]() -> task<> {
        co_await sleep_for(1ms);
        ev.set();
        ev.reset();
        ev.set();
        ev.reset();
        auto late = ex.spawn(waiter(9));
        EXPECT_TRUE(late);
        co_await sleep_for(1ms);
        ev.set();
    };
    auto a = ex.spawn(waiter(1));
    auto b = ex.spawn(waiter(2));
    auto s = ex.spawn(setter());
    ASSERT_TRUE(a && b && s);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(log, (std::vector<std::string>{"1:ok@1", "2:ok@1", "9:ok@2"}));
}

// ----------------------------------------------------------- split_phase

// Every value a split_phase is completed with is destroyed once, also
// one refused, one consumed after a cancel and one never awaited.
TEST(review7, split_phase_values_with_destructors_are_destroyed_once_each) {
    counted::live = 0;
    {
        executor ex{test::virtual_clock()};
        split_phase<counted> op{"op"};
        std::vector<std::string> log;
        auto user = [&]() -> task<> {
            {
                auto r = co_await with_timeout(op.wait(), 1ms);
                log.push_back(text(r));
            }
            EXPECT_TRUE(op.complete(counted{1}));
            EXPECT_FALSE(op.complete(counted{2}));
            {
                auto r = co_await op;
                log.push_back(r ? std::to_string(r->v) : text(r));
            }
            EXPECT_TRUE(op.complete(counted{3}));  // never awaited
        };
        auto a = ex.spawn(user());
        ASSERT_TRUE(a);
        EXPECT_EQ(ex.run(), run_outcome::completed);
        EXPECT_EQ(log, (std::vector<std::string>{"split_phase 'op': timeout", "1"}));
    }
    EXPECT_EQ(counted::live, 0);
}

// ------------------------------------------------------------------ groups

// Children that finish in the same turn: the leftmost wins, and every
// loser's value (with a destructor) is destroyed when the await ends.
TEST(review7, when_any_values_with_destructors_are_destroyed_once) {
    counted::live = 0;
    {
        executor ex{test::virtual_clock()};
        std::size_t index = 99;
        int got = 0;
        auto child = [](int v) -> task<counted> {
            co_await sleep_for(1ms);
            co_return counted{v};
        };
        auto root = [&]() -> task<> {
            auto r = co_await when_any(child(1), child(2), child(3));
            index = r.index;
            got = (*std::get<0>(r.values))->v;
            auto [x, y] = co_await when_all(child(4), child(5));
            EXPECT_EQ(x->v + y->v, 9);
        };
        auto a = ex.spawn(root());
        ASSERT_TRUE(a);
        EXPECT_EQ(ex.run(), run_outcome::completed);
        EXPECT_EQ(index, 0u);
        EXPECT_EQ(got, 1);
    }
    EXPECT_EQ(counted::live, 0);
}


// ------------------------------------------------- executor, continued

// A task resumed by a split_phase's handler right in the drain asks for
// a stop: run() returns stopped, and the next run() resumes it.
TEST(review7, a_stop_requested_by_a_task_resumed_in_the_drain_ends_run) {
    executor ex{test::virtual_clock()};
    split_phase<int> op{"op"};
    std::vector<std::string> log;
    auto waiter = [&]() -> task<> {
        auto r = co_await op;
        log.push_back("got " + std::to_string(r ? *r : -1));
        ex.request_stop();
        co_await yield();
        log.push_back("after stop");
    };
    auto completer = [&]() -> task<> {
        co_await yield();
        EXPECT_TRUE(op.complete(7));
        log.push_back("completed");
    };
    auto a = ex.spawn(waiter());
    auto b = ex.spawn(completer());
    ASSERT_TRUE(a && b);
    EXPECT_EQ(ex.run(), run_outcome::stopped);
    EXPECT_EQ(log, (std::vector<std::string>{"completed", "got 7"}));
    EXPECT_EQ(ex.live_tasks(), 1u);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(log, (std::vector<std::string>{"completed", "got 7", "after stop"}));
}

// A task spawned by a handler at a high priority runs before the lower
// tasks already ready; cancelling a task queued after its yield makes
// that yield report cancelled.
TEST(review7, a_task_spawned_by_a_handler_runs_first_and_a_queued_yield_sees_its_cancel) {
    executor ex{test::virtual_clock()};
    std::vector<std::string> log;
    join_handle<void>* victim = nullptr;
    auto high = [&]() -> task<> {
        log.push_back("high");
        victim->cancel();
        co_return;
    };
    struct spawn_node : irq_node {
        executor* ex;
        task<> (*make)(void*);
        void* ctx;
        spawn_node(executor& e) : irq_node(&on_run), ex(&e) {}
        static void on_run(irq_node* n) noexcept {
            auto* self = static_cast<spawn_node*>(n);
            auto h = self->ex->spawn(self->make(self->ctx), 5);
            EXPECT_TRUE(h);
        }
    } sn{ex};
    sn.ctx = &high;
    sn.make = [](void* c) -> task<> { return (*static_cast<decltype(high)*>(c))(); };
    auto low = [&](int id) -> task<> {
        if (id == 1) (void)ex.post(sn);
        auto s = co_await yield();
        log.push_back(std::to_string(id) + ":" + text(s));
    };
    auto a = ex.spawn(low(1), 1);
    auto b = ex.spawn(low(2), 1);
    ASSERT_TRUE(a && b);
    victim = &*b;
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(log, (std::vector<std::string>{"high", "1:ok", "2:cancelled"}));
}

// A with_timeout bound on a semaphore acquire racing a release at the
// bound's own instant from a task woken by a timer armed earlier: the
// bound wins (timers fire before tasks run), the unit stays counted.
TEST(review7, a_bound_and_a_release_at_the_same_instant_the_bound_wins_and_the_unit_stays) {
    executor ex{test::virtual_clock()};
    semaphore sem{"s", 0, 1};
    status got;
    auto releaser = [&]() -> task<> {
        co_await sleep_for(5ms);
        EXPECT_TRUE(sem.release());
    };
    auto taker = [&]() -> task<> {
        got = co_await with_timeout(sem.acquire(), 5ms);
    };
    auto r = ex.spawn(releaser());
    auto t = ex.spawn(taker());
    ASSERT_TRUE(r && t);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_TRUE(test::failed_with(got, errc::timeout, "semaphore 's': timeout"));
    EXPECT_EQ(sem.available(), 1u);
}

