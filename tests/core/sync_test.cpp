// SPDX-License-Identifier: Apache-2.0
// event, semaphore, mutex: waiters in the awaiting frame, FIFO hand-off,
// errors naming the object.
#include <weft/core/event.hpp>
#include <weft/core/mutex.hpp>
#include <weft/core/semaphore.hpp>
#include <weft/core/sleep.hpp>
#include <weft/core/task.hpp>
#include <weft/core/timeout.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>

#include <string>

using namespace weft;

TEST(event, set_releases_all_waiters_in_order) {
    executor ex{test::virtual_clock()};
    event ev{"ready"};
    std::string log;
    auto w = [&](char c) -> task<> {
        auto s = co_await ev.wait();
        if (s) log += c;
    };
    auto a = ex.spawn(w('a'));
    auto b = ex.spawn(w('b'));
    auto setter = [&]() -> task<> {
        co_await sleep_for(1ms);
        ev.set();
    };
    auto s = ex.spawn(setter());
    ASSERT_TRUE(a && b && s);
    ex.run();
    EXPECT_EQ(log, "ab");
    EXPECT_TRUE(ev.is_set());
}

TEST(semaphore, release_hands_unit_to_oldest_waiter) {
    executor ex{test::virtual_clock()};
    semaphore sem{"slots", 1, 2};
    std::string log;
    auto user = [&](char c) -> task<> {
        co_await sem.acquire();
        log += c;
        co_await sleep_for(1ms);
        log += char(c - 32);
        (void)sem.release();
    };
    auto a = ex.spawn(user('a'));
    auto b = ex.spawn(user('b'));
    auto c = ex.spawn(user('c'));
    ASSERT_TRUE(a && b && c);
    ex.run();
    EXPECT_EQ(log, "aAbBcC");
    EXPECT_EQ(sem.available(), 1u);
}

TEST(semaphore, release_above_max_is_an_error_naming_it) {
    semaphore sem{"uart_tx", 2, 2};
    status s = sem.release();
    ASSERT_TRUE(test::failed_with(s, errc::full, "semaphore 'uart_tx': released above its maximum (limit 2)"));
    EXPECT_EQ(sem.available(), 2u);
}

TEST(mutex, lock_is_fifo_and_exclusive) {
    executor ex{test::virtual_clock()};
    mutex m{"bus"};
    std::string log;
    int inside = 0, max_inside = 0;
    auto user = [&](char c) -> task<> {
        auto g = co_await m.scoped_lock();
        if (!g) co_return;
        ++inside;
        max_inside = std::max(max_inside, inside);
        log += c;
        co_await sleep_for(1ms);
        --inside;
    };
    auto a = ex.spawn(user('a'));
    auto b = ex.spawn(user('b'));
    auto c = ex.spawn(user('c'));
    ASSERT_TRUE(a && b && c);
    ex.run();
    EXPECT_EQ(log, "abc");
    EXPECT_EQ(max_inside, 1);
    EXPECT_FALSE(m.locked());
    EXPECT_EQ(test::ms(ex), 3);
}

TEST(timeout, with_timeout_ends_wait_and_unlinks_waiter) {
    executor ex{test::virtual_clock()};
    semaphore sem{"slots", 0, 1};
    errc first = errc::ok;
    bool second_got_it = false;
    auto t = [&]() -> task<> {
        auto s = co_await with_timeout(sem.acquire(), 5ms);
        first = s.code();
        EXPECT_EQ(test::ms(ex), 5);
        // The timed-out waiter must be gone from the queue: this release
        // goes to the count, and the next acquire takes it at once.
        (void)sem.release();
        second_got_it = bool(co_await with_timeout(sem.acquire(), 5ms));
    };
    auto h = ex.spawn(t());
    ASSERT_TRUE(h);
    ex.run();
    EXPECT_EQ(first, errc::timeout);
    EXPECT_TRUE(second_got_it);
    EXPECT_EQ(test::ms(ex), 5);
}

TEST(timeout, completed_wait_disarms_its_timer) {
    executor ex{test::virtual_clock()};
    event ev{"ev"};
    errc got = errc::timeout;
    auto waiter = [&]() -> task<> { got = (co_await with_timeout(ev.wait(), 100ms)).code(); };
    auto setter = [&]() -> task<> {
        co_await sleep_for(1ms);
        ev.set();
    };
    auto a = ex.spawn(waiter());
    auto b = ex.spawn(setter());
    ASSERT_TRUE(a && b);
    ex.run();
    EXPECT_EQ(got, errc::ok);
    EXPECT_EQ(test::ms(ex), 1);  // no stray timer kept the clock running
}

// After a sleep of duration::max() the virtual clock reads above 2^62 ns,
// where now + longest_delay no longer fits: a bound of duration::max()
// from there must still mean never (the end of time), not already late.
TEST(timeout, a_duration_max_bound_past_2_62_ns_is_the_end_of_time) {
    executor ex{test::virtual_clock()};
    event never{"never"};
    errc got = errc::ok;
    time_point ended{};
    auto t = [&]() -> task<> {
        co_await sleep_for(1ms);
        co_await sleep_for(duration::max());  // the clock jumps to 1 ms + 2^62 ns
        got = (co_await with_timeout(never.wait(), duration::max())).code();
        ended = ex.now();
    };
    auto h = ex.spawn(t());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got, errc::timeout);
    EXPECT_EQ(ended, time_point::max());
}

namespace {
// A leaf await that records whether the executor, as its task suspends,
// would still let it wait in place (what split_phase asks before sleeping
// in the port), and ends only by an abort.
struct idle_probe : detail::wait_node {
    bool* still_idle;
    task_control* ctl = nullptr;
    errc outcome = errc::ok;
    bool await_ready() const noexcept { return false; }
    template <class P>
    bool await_suspend(std::coroutine_handle<P> h) noexcept {
        ctl = &h.promise().control();
        *still_idle = ctl->exec().still_idle();
        abort = &on_abort;
        ctl->park(h, this);
        return true;
    }
    status await_resume() const noexcept { return status{outcome}; }
    static void on_abort(detail::wait_node* w, errc why) noexcept {
        auto* self = static_cast<idle_probe*>(w);
        self->outcome = why;
        self->ctl->wake();
    }
};
}  // namespace

// A deadline before the clock's epoch is past too. The inner wait must see
// its timer as due, or a split_phase on the real clock would sleep in
// place without a bound (a deadline of -1 ns read as "no deadline").
TEST(timeout, a_deadline_before_the_epoch_is_due_for_the_inner_wait) {
    executor ex{{"real", clock_mode::real}};
    bool idle = true;
    errc got = errc::ok;
    auto t = [&]() -> task<> {
        got = (co_await with_deadline(idle_probe{{}, &idle}, time_point{-1ns})).code();
    };
    auto h = ex.spawn(t());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_FALSE(idle);
    EXPECT_EQ(got, errc::timeout);
}

// A wait that ends early says what it waited for: "semaphore 'pool':
// timeout", not a bare code.
TEST(sync, waits_that_end_early_name_the_object_they_waited_for) {
    executor ex{test::virtual_clock()};
    semaphore pool{"pool", 0, 1};
    event ready{"ready"};
    mutex bus{"bus"};
    std::string sem_msg, ev_msg, mutex_msg, sleep_msg;
    auto owner = [&]() -> task<> {
        EXPECT_TRUE(co_await bus.lock());
        lock_guard g{bus};
        co_await sleep_for(10ms);
    };
    // One wait per task: three bounded awaits and their messages in one
    // frame outgrow the test pools' 1 KiB slots with GCC.
    auto on_sem = [&]() -> task<> { sem_msg = (co_await with_timeout(pool.acquire(), 1ms)).err().message().c_str(); };
    auto on_ev = [&]() -> task<> { ev_msg = (co_await with_timeout(ready.wait(), 1ms)).err().message().c_str(); };
    auto on_bus = [&]() -> task<> {
        co_await sleep_for(1ms);  // the owner holds the bus by now
        mutex_msg = (co_await with_timeout(bus.lock(), 1ms)).err().message().c_str();
    };
    auto sleeper = [&]() -> task<> { sleep_msg = (co_await sleep_for(1s)).err().message().c_str(); };
    auto o = ex.spawn(owner(), 1);
    auto a = ex.spawn(on_sem(), 1);
    auto b = ex.spawn(on_ev(), 1);
    auto c = ex.spawn(on_bus(), 1);
    auto s = ex.spawn(sleeper(), 1);
    ASSERT_TRUE(o && a && b && c && s);
    s->cancel();
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(sem_msg, "semaphore 'pool': timeout");
    EXPECT_EQ(ev_msg, "event 'ready': timeout");
    EXPECT_EQ(mutex_msg, "mutex 'bus': timeout");
    EXPECT_EQ(sleep_msg, "cancelled");
}
