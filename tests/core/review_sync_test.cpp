// SPDX-License-Identifier: Apache-2.0
// Core review: races between an await's end and the task's resumption
// (a wait already ended, its task not yet run) in split_phase, join and
// when_any. Each test was written failing before its fix. Virtual clock
// only; a watchdog stops a run that would otherwise hang.
#include <weft/core/event.hpp>
#include <weft/core/mutex.hpp>
#include <weft/core/semaphore.hpp>
#include <weft/core/sleep.hpp>
#include <weft/core/split_phase.hpp>
#include <weft/core/task.hpp>
#include <weft/core/timeout.hpp>
#include <weft/core/when_any.hpp>
#include <weft/core/yield.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>

#include <memory>
#include <string>

using namespace weft;
using namespace std::chrono_literals;

// A waits with a 5 ms bound and times out; B (higher priority, woken at
// the same instant) awaits the operation before A has resumed. A must
// still see its timeout (not a stale value as success), and B's wait must
// stay armed so that the next completion reaches it.
TEST(split_phase, a_timed_out_waiter_keeps_its_timeout_when_another_task_awaits_before_it_resumes) {
    executor ex{test::virtual_clock()};
    split_phase<int> op{"adc"};
    errc a_got = errc::ok;
    int b_got = -1;
    auto a = [&]() -> task<> { a_got = (co_await with_timeout(op.wait(), 5ms)).code(); };
    auto b = [&]() -> task<> {
        co_await sleep_for(5ms);  // armed first: fires just before A's bound
        auto r = co_await op;
        if (r) b_got = *r;
    };
    auto c = [&]() -> task<> {
        co_await sleep_for(6ms);
        EXPECT_TRUE(bool(op.complete(7)));
    };
    auto watchdog = [&]() -> task<> {  // fails fast instead of hanging
        co_await sleep_for(20ms);
        if (b_got != 7) ex.request_stop();
    };
    auto hb = ex.spawn(b(), 2);
    auto ha = ex.spawn(a(), 1);
    auto hc = ex.spawn(c(), 1);
    auto hw = ex.spawn(watchdog(), 1);
    ASSERT_TRUE(ha && hb && hc && hw);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(a_got, errc::timeout);
    EXPECT_EQ(b_got, 7);
}

namespace {
// The target ends at 1 ms; just before it returns it sets `go`, which wakes
// a higher-priority task that runs after the target has finished and its
// joiner has been woken, but before the joiner resumes.
task<int> ends_after_setting(event& go) {
    co_await sleep_for(1ms);
    go.set();
    co_return 42;
}
}  // namespace

// Dropping the handle in that window must end the join as a drop during a
// join does (`invalid`, named), not read the destroyed handle.
TEST(task, dropping_the_handle_after_the_task_ended_but_before_the_joiner_resumed_ends_the_join) {
    executor ex{test::virtual_clock()};
    event go{"go"};
    auto spawned = ex.spawn(ends_after_setting(go), 1);
    ASSERT_TRUE(spawned);
    auto handle = std::make_unique<join_handle<int>>(std::move(*spawned));
    std::string got;
    auto joiner = [&]() -> task<> {
        auto r = co_await handle->join();  // `handle` is read here, before the drop
        got = r ? "value" : r.err().message().c_str();
    };
    auto dropper = [&]() -> task<> {
        co_await go.wait();
        handle.reset();  // frees the join_handle the join refers to
    };
    auto j = ex.spawn(joiner(), 1);
    auto d = ex.spawn(dropper(), 2);
    ASSERT_TRUE(j && d);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got, "join_handle 'join': detached while being joined");
}

// A second join in that window is refused (one joiner at a time); the
// first joiner, whose wait already ended with the task, gets the value.
TEST(task, a_join_after_the_task_ended_but_before_the_first_joiner_resumed_is_refused) {
    executor ex{test::virtual_clock()};
    event go{"go"};
    auto h = ex.spawn(ends_after_setting(go), 1);
    ASSERT_TRUE(h);
    int first = -1;
    std::string second;
    auto joiner = [&]() -> task<> {
        auto r = co_await h->join();
        if (r) first = *r;
    };
    auto late = [&]() -> task<> {
        co_await go.wait();
        auto r = co_await h->join();
        second = r ? "value" : r.err().message().c_str();
    };
    auto j = ex.spawn(joiner(), 1);
    auto l = ex.spawn(late(), 2);
    ASSERT_TRUE(j && l);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(first, 42);
    EXPECT_EQ(second, "join_handle 'join': already joined by another task (limit 1)");
}

// The winner finishes at 4 ms, inside a 5 ms bound; the loser takes 3 ms
// of (simulated) clean-up after its cancellation, so the bound expires
// while when_any waits for it. The await did not end early: a winner was
// in before the deadline, so the outcome is ok.
TEST(when_any, a_bound_that_expires_while_the_losers_unwind_does_not_turn_the_win_into_a_timeout) {
    executor ex{test::virtual_clock()};
    auto winner = [&]() -> task<int> {
        co_await sleep_for(4ms);
        co_return 1;
    };
    auto loser = [&]() -> task<int> {
        co_await sleep_for(1h);   // cancelled at 4 ms
        ex.advance(3ms);          // clean-up that takes time...
        co_await yield();         // ...and lets run() fire the bound
        co_return 2;
    };
    std::size_t index = 9;
    errc outcome = errc::invalid;
    int value = -1;
    auto root = [&]() -> task<> {
        auto r = co_await with_timeout(when_any(winner(), loser()), 5ms);
        index = r.index;
        outcome = r.outcome;
        if (std::get<0>(r.values)) value = **std::get<0>(r.values);
    };
    auto h = ex.spawn(root());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(index, 0u);
    EXPECT_EQ(value, 1);
    EXPECT_EQ(outcome, errc::ok);
    EXPECT_EQ(test::ms(ex), 7);
}

// More units than the maximum is a configuration error, not something to
// clamp silently: the program stops, naming the semaphore and the limit.
TEST(semaphore, an_initial_count_above_the_maximum_stops_the_program_naming_it) {
    auto build = [] { semaphore adc("adc", 3, 2); };
    EXPECT_DEATH(build(), "semaphore 'adc': initial count above its maximum \\(limit 2\\)");
}

TEST(semaphore, an_initial_count_at_the_maximum_is_full) {
    semaphore sem{"spi", 2, 2};
    EXPECT_EQ(sem.available(), 2u);
    auto r = sem.release();
    ASSERT_FALSE(r);
    EXPECT_STREQ(r.err().message().c_str(), "semaphore 'spi': released above its maximum (limit 2)");
    EXPECT_EQ(sem.available(), 2u);
}

// A maximum of 0 is a pulse: a release reaches a waiting task or fails,
// and the failure says so (a limit of 0 is not printed).
TEST(semaphore, a_pulse_semaphore_hands_units_to_waiters_only) {
    executor ex{test::virtual_clock()};
    semaphore pulse{"tick", 0, 0};
    auto r = pulse.release();
    ASSERT_FALSE(r);
    EXPECT_STREQ(r.err().message().c_str(), "semaphore 'tick': released with no task waiting (maximum 0)");
    bool got = false;
    auto waiter = [&]() -> task<> { got = bool(co_await pulse.acquire()); };
    auto h = ex.spawn(waiter());
    ASSERT_TRUE(h);
    (void)ex.run();
    EXPECT_FALSE(got);
    EXPECT_TRUE(pulse.release());
    (void)ex.run();
    EXPECT_TRUE(got);
    EXPECT_EQ(pulse.available(), 0u);
}

// A unit or a lock handed to a waiter is its own from then on: a cancel
// that arrives before the waiter runs again cancels its next await, not
// this one (the unit or the lock would otherwise belong to nobody).
TEST(cancel, a_unit_or_lock_granted_before_the_cancel_is_kept) {
    executor ex{test::virtual_clock()};
    semaphore units{"units", 0, 1};
    mutex bus{"bus"};
    status got_unit{errc::invalid}, got_lock{errc::invalid}, next{errc::invalid};
    join_handle<void>* waiters[2] = {};
    auto granter = [&]() -> task<> {
        EXPECT_TRUE(co_await bus.lock());
        co_await sleep_for(1ms);  // both waiters park meanwhile
        EXPECT_TRUE(units.release());  // hands the unit over
        bus.unlock();                  // hands the lock over
        for (auto* w : waiters) w->cancel();  // before either runs again
    };
    auto sem_waiter = [&]() -> task<> {
        got_unit = co_await units.acquire();
        next = co_await sleep_for(1ms);
        if (got_unit) (void)units.release();
    };
    auto lock_waiter = [&]() -> task<> {
        got_lock = co_await bus.lock();
        if (got_lock) bus.unlock();
    };
    auto h0 = ex.spawn(granter(), 1);
    auto h1 = ex.spawn(sem_waiter(), 1);
    auto h2 = ex.spawn(lock_waiter(), 1);
    ASSERT_TRUE(h0 && h1 && h2);
    waiters[0] = &*h1;
    waiters[1] = &*h2;
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_TRUE(got_unit);
    EXPECT_EQ(next.code(), errc::cancelled);
    EXPECT_TRUE(got_lock);
    EXPECT_FALSE(bus.locked());
    EXPECT_EQ(units.available(), 1u);
}
