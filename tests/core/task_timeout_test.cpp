// SPDX-License-Identifier: Apache-2.0
// with_timeout / with_deadline around a task: the child runs under the
// bound, is cancelled and awaited when the bound passes first, and the
// await yields what co_await of the task would, or the reason it ended.
#include <weft/core/event.hpp>
#include <weft/core/mutex.hpp>
#include <weft/core/sleep.hpp>
#include <weft/core/task.hpp>
#include <weft/core/timeout.hpp>
#include <weft/core/yield.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>

#include <coroutine>
#include <string>
#include <type_traits>

using namespace weft;
using namespace std::chrono_literals;

namespace {

task<int> reading_after(duration d, int v, errc* slept = nullptr) {
    status s = co_await sleep_for(d);
    if (slept) *slept = s.code();
    co_return v;
}

}  // namespace

TEST(task_timeout, a_task_that_ends_in_time_gives_its_value_and_disarms_the_bound) {
    executor ex{test::virtual_clock()};
    result<int> got = errc::invalid;
    auto root = [&]() -> task<> { got = co_await with_timeout(reading_after(2ms, 7), 5ms); };
    auto h = ex.spawn(root());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    ASSERT_TRUE(got);
    EXPECT_EQ(*got, 7);
    EXPECT_EQ(test::ms(ex), 2);  // the bound's timer did not keep run() going
}

TEST(task_timeout, a_task_that_overruns_is_cancelled_awaited_and_reported_as_a_timeout) {
    executor ex{test::virtual_clock()};
    errc child_saw = errc::ok;
    result<int> got = 0;
    auto root = [&]() -> task<> { got = co_await with_timeout(reading_after(1h, 7, &child_saw), 5ms); };
    auto h = ex.spawn(root());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_TRUE(test::failed_with(got, errc::timeout, "task: timeout"));
    EXPECT_EQ(child_saw, errc::cancelled);  // it ended before the await returned
    EXPECT_EQ(test::ms(ex), 5);
}

TEST(task_timeout, with_deadline_bounds_a_task_to_an_instant) {
    executor ex{test::virtual_clock()};
    status late = errc::ok, early = errc::invalid;
    auto child = [](duration d) -> task<> { (void)co_await sleep_for(d); };
    auto root = [&]() -> task<> {
        time_point t = ex.now() + 3ms;
        early = co_await with_deadline(child(1ms), t);
        late = co_await with_deadline(child(1h), t);
    };
    auto h = ex.spawn(root());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_TRUE(early);
    EXPECT_EQ(late.code(), errc::timeout);
    EXPECT_EQ(test::ms(ex), 3);
}

TEST(task_timeout, a_task_returning_a_result_passes_its_own_error_through) {
    executor ex{test::virtual_clock()};
    result<int> got = 0;
    auto child = []() -> task<result<int>> {
        (void)co_await sleep_for(1ms);
        co_return error{errc::device, "sensor", "adc0", 0, "no reply"};
    };
    auto root = [&]() -> task<> { got = co_await with_timeout(child(), 5ms); };
    auto h = ex.spawn(root());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_TRUE(test::failed_with(got, errc::device, "sensor 'adc0': no reply"));
}

TEST(task_timeout, cancelling_the_awaiting_task_cancels_the_child_and_says_cancelled) {
    executor ex{test::virtual_clock()};
    errc child_saw = errc::ok;
    result<int> got = 0;
    auto root = [&]() -> task<> { got = co_await with_timeout(reading_after(1h, 7, &child_saw), 1h); };
    auto canceller = [&](join_handle<void>& h) -> task<> {
        (void)co_await sleep_for(2ms);
        h.cancel();
    };
    auto h = ex.spawn(root());
    ASSERT_TRUE(h);
    auto c = ex.spawn(canceller(*h));
    ASSERT_TRUE(c);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_TRUE(test::failed_with(got, errc::cancelled, "task: cancelled"));
    EXPECT_EQ(child_saw, errc::cancelled);
    EXPECT_EQ(test::ms(ex), 2);
}

// What the child held is given back before the bounded await returns: the
// next lock() after it succeeds at once.
TEST(task_timeout, a_timed_out_child_releases_its_mutex_before_the_await_returns) {
    executor ex{test::virtual_clock()};
    mutex bus{"bus"};
    bool relocked = false;
    auto holder = [&]() -> task<> {
        EXPECT_TRUE(co_await bus.lock());
        lock_guard g{bus};
        (void)co_await sleep_for(1h);  // cancelled at 4 ms, unlocks on the way out
    };
    auto root = [&]() -> task<> {
        status s = co_await with_timeout(holder(), 4ms);
        EXPECT_EQ(s.code(), errc::timeout);
        EXPECT_TRUE(bus.try_lock());
        relocked = true;
        bus.unlock();
    };
    auto h = ex.spawn(root());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_TRUE(relocked);
    EXPECT_EQ(test::ms(ex), 4);
}

TEST(task_timeout, a_child_without_a_frame_reports_the_pool_at_once) {
    static frame_pool<512, 1> tiny{"bounded_tiny"};
    executor ex{test::virtual_clock()};
    result<int> got = 0;
    auto root = [&]() -> task<> {
        task<int> first, second;
        {
            use_frames s{tiny};
            first = reading_after(1ms, 1);
            second = reading_after(1ms, 2);  // no slot left
        }
        got = co_await with_timeout(std::move(second), 5ms);
    };
    auto h = ex.spawn(root());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_TRUE(test::failed_with(got, errc::no_memory, "frame pool 'bounded_tiny': all slots in use (limit 1)"));
    EXPECT_EQ(test::ms(ex), 0);
}

// The bound counts from the suspension, and a zero one has passed by then:
// the child still starts (it is a task like any other) and sees the cancel
// at its first await.
TEST(task_timeout, a_zero_bound_times_out_after_the_child_saw_the_cancel) {
    executor ex{test::virtual_clock()};
    errc child_saw = errc::ok;
    result<int> got = 0;
    auto root = [&]() -> task<> { got = co_await with_timeout(reading_after(1ms, 7, &child_saw), 0ms); };
    auto h = ex.spawn(root());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got.code(), errc::timeout);
    EXPECT_EQ(child_saw, errc::cancelled);
    EXPECT_EQ(test::ms(ex), 0);
}

// --- adversarial cases: children that do not cooperate, equal instants,
// nested bounds, priorities, late cancels, the awaiter itself ---

namespace {

// Ignores cancellation: yields `yields` times whatever they report, then
// sleeps again (which ends at once once cancelled), then returns 7.
task<int> stubborn(int yields, int& ran, errc* sleep_saw, duration first = 1h) {
    (void)co_await sleep_for(first);
    for (int i = 0; i < yields; ++i) {
        (void)co_await yield();
        ++ran;
    }
    status s = co_await sleep_for(1h);
    if (sleep_saw) *sleep_saw = s.code();
    co_return 7;
}

// The priority the awaiting task runs at now.
struct current_priority {
    int prio = -1;
    bool await_ready() const noexcept { return false; }
    template <class P>
    bool await_suspend(std::coroutine_handle<P> h) noexcept {
        prio = h.promise().control().prio();
        return false;
    }
    int await_resume() const noexcept { return prio; }
};

}  // namespace

// A child that goes on after the cancel is still awaited to its end: the
// await does not return before it, whatever it does meanwhile, and then
// reports the timeout, not the value the child returned late.
TEST(task_timeout, a_child_that_ignores_the_cancel_is_awaited_to_its_end_and_still_times_out) {
    executor ex{test::virtual_clock()};
    int ran = 0, ran_at_return = -1;
    errc sleep_saw = errc::ok;
    result<int> got = 0;
    auto root = [&]() -> task<> {
        got = co_await with_timeout(stubborn(5, ran, &sleep_saw), 3ms);
        ran_at_return = ran;
    };
    auto h = ex.spawn(root());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_TRUE(test::failed_with(got, errc::timeout, "task: timeout"));
    EXPECT_EQ(ran_at_return, 5);            // every yield happened before the await returned
    EXPECT_EQ(sleep_saw, errc::cancelled);  // the second sleep ended at once
    EXPECT_EQ(test::ms(ex), 3);             // and took no virtual time
}

// Equal instants: every timer due at an instant fires before any task
// runs at it, so the bound has cancelled the child before the child can
// end: a bound wins against anything due at its own instant. Here the
// child's timer was armed after the bound's (when the child first ran), so
// the bound fires first and the child's sleep ends `cancelled`; the next
// test has the other arming order.
TEST(task_timeout, a_child_due_at_the_bounds_own_instant_times_out) {
    executor ex{test::virtual_clock()};
    errc child_saw = errc::invalid;
    result<int> by_duration = 0, by_deadline = 0;
    auto root = [&]() -> task<> {
        by_duration = co_await with_timeout(reading_after(5ms, 7, &child_saw), 5ms);
        by_deadline = co_await with_deadline(reading_after(5ms, 8), ex.now() + 5ms);
    };
    auto h = ex.spawn(root());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(by_duration.code(), errc::timeout);
    EXPECT_EQ(by_deadline.code(), errc::timeout);
    EXPECT_EQ(child_saw, errc::cancelled);
    EXPECT_EQ(test::ms(ex), 10);
}

// The same with the child woken by another task whose timer was armed
// before the bound (so it fires first at that instant): the bound still
// cancels the child before the woken child runs; the waker's set() finds
// nobody waiting.
TEST(task_timeout, a_child_woken_at_the_bounds_own_instant_by_an_earlier_timer_times_out) {
    executor ex{test::virtual_clock()};
    event ready{"ready"};
    status child_saw = errc::invalid;
    result<int> got = 0;
    auto setter = [&]() -> task<> {
        (void)co_await sleep_for(5ms);  // armed at 0, before the bound
        ready.set();
    };
    auto child = [&]() -> task<int> {
        child_saw = co_await ready.wait();
        co_return 1;
    };
    auto root = [&]() -> task<> { got = co_await with_timeout(child(), 5ms); };
    auto s = ex.spawn(setter(), 1);  // runs first, arms first
    auto h = ex.spawn(root(), 0);
    ASSERT_TRUE(s && h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got.code(), errc::timeout);
    EXPECT_EQ(child_saw.code(), errc::cancelled);
    EXPECT_EQ(test::ms(ex), 5);
}

// One instant earlier the child wins, and a bound that then comes due
// while the awaiting task is only ready (not yet resumed) changes nothing.
TEST(task_timeout, a_child_that_ends_before_the_bound_wins_even_if_the_bound_fires_before_the_await_resumes) {
    executor ex{test::virtual_clock()};
    result<int> got = 0;
    auto child = [&]() -> task<int> {
        (void)co_await sleep_for(4ms);
        ex.advance(2ms);  // takes "2 ms" after its last await: past the bound
        co_return 9;
    };
    auto root = [&]() -> task<> { got = co_await with_timeout(child(), 5ms); };
    auto h = ex.spawn(root());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    ASSERT_TRUE(got);
    EXPECT_EQ(*got, 9);
    EXPECT_EQ(test::ms(ex), 6);
}

// Bounds nest: the inner of a bounded task that is shorter ends first and
// its timeout is what the middle task returns; an outer one that is
// shorter cancels the middle task, whose own bounded await then ends with
// `cancelled` and cancels the innermost child, all before the outer await
// returns.
TEST(task_timeout, nested_bounds_the_shorter_one_decides) {
    executor ex{test::virtual_clock()};
    errc inner_saw = errc::ok;
    result<int> middle_got = 0, outer_got = 0;
    auto middle = [&](duration inner_bound) -> task<int> {
        middle_got = co_await with_timeout(reading_after(1h, 1, &inner_saw), inner_bound);
        co_return middle_got ? *middle_got : -1;
    };
    auto root = [&]() -> task<> {
        // inner 2 ms, outer 10 ms: the inner times out, the middle returns -1 in time
        outer_got = co_await with_timeout(middle(2ms), 10ms);
        EXPECT_EQ(test::ms(ex), 2);
        EXPECT_TRUE(test::failed_with(middle_got, errc::timeout, "task: timeout"));
        EXPECT_TRUE(outer_got && *outer_got == -1);
        EXPECT_EQ(inner_saw, errc::cancelled);
        // inner 20 ms, outer 3 ms: the outer cancels the middle, which
        // cancels the inner
        inner_saw = errc::ok;
        outer_got = co_await with_timeout(middle(20ms), 3ms);
        EXPECT_EQ(test::ms(ex), 5);
        EXPECT_TRUE(test::failed_with(middle_got, errc::cancelled, "task: cancelled"));
        EXPECT_TRUE(test::failed_with(outer_got, errc::timeout, "task: timeout"));
        EXPECT_EQ(inner_saw, errc::cancelled);
    };
    auto h = ex.spawn(root());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(test::ms(ex), 5);  // the 20 ms bound was disarmed, not waited for
}

// A task<result<U>> that returns an error at the bound's instant, or in
// answer to the cancel, is reported as the timeout: its own error is
// dropped with its value.
TEST(task_timeout, a_result_task_whose_error_comes_at_the_bound_reports_the_timeout) {
    executor ex{test::virtual_clock()};
    result<int> at_bound = 0, on_cancel = 0;
    auto at_instant = []() -> task<result<int>> {
        (void)co_await sleep_for(5ms);
        co_return error{errc::device, "sensor", "adc0", 0, "no reply"};
    };
    auto answers_cancel = []() -> task<result<int>> {
        status s = co_await sleep_for(1h);
        co_return error{s.code() == errc::cancelled ? errc::device : errc::ok, "sensor", "adc0", 0, "gave up"};
    };
    auto root = [&]() -> task<> {
        at_bound = co_await with_timeout(at_instant(), 5ms);
        on_cancel = co_await with_timeout(answers_cancel(), 5ms);
    };
    auto h = ex.spawn(root());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_TRUE(test::failed_with(at_bound, errc::timeout, "task: timeout"));
    EXPECT_TRUE(test::failed_with(on_cancel, errc::timeout, "task: timeout"));
    EXPECT_EQ(test::ms(ex), 10);
}

// The child runs at the priority its parent runs at, also one the parent
// inherits through a mutex, both when the parent already inherits as the
// child starts and when the waiter comes later: the bounded work of a
// low-priority owner (1) runs at what it inherits from `high` (3), ahead
// of a medium task (2) woken at the same instant (without: "MOH").
TEST(task_timeout, the_child_runs_at_the_priority_its_parent_inherits) {
    for (bool waiter_first : {true, false}) {
        executor ex{test::virtual_clock()};
        mutex m{"bus"};
        std::string log;
        int child_prio = -1;
        auto work = [&]() -> task<> {
            (void)co_await sleep_until(time_point{2ms});
            child_prio = co_await current_priority{};
            log += 'O';
        };
        auto owner = [&]() -> task<> {
            EXPECT_TRUE(co_await m.lock());
            if (waiter_first) (void)co_await sleep_until(time_point{1ms});  // behind high's timer
            status s = co_await with_timeout(work(), 50ms);
            EXPECT_TRUE(s);
            m.unlock();
        };
        auto high = [&]() -> task<> {
            (void)co_await sleep_for(1ms);
            EXPECT_TRUE(co_await m.lock());
            lock_guard g{m};
            log += 'H';
        };
        auto medium = [&]() -> task<> {
            (void)co_await sleep_for(2ms);  // armed before the child's sleep
            log += 'M';
        };
        auto hi = ex.spawn(high(), 3);
        auto md = ex.spawn(medium(), 2);
        auto a = ex.spawn(owner(), 1);
        ASSERT_TRUE(a && hi && md);
        EXPECT_EQ(ex.run(), run_outcome::completed);
        EXPECT_EQ(log, "OHM") << (waiter_first ? "waiter first" : "waiter later");
        EXPECT_EQ(child_prio, 3);
    }
}

// A cancel of the awaiting task while the child is still unwinding from
// the timeout does not change the outcome (the bound came first), and
// the child is still awaited; the awaiting task's next await is cancelled.
TEST(task_timeout, a_cancel_while_the_child_unwinds_from_the_timeout_keeps_the_timeout) {
    executor ex{test::virtual_clock()};
    int ran = 0, ran_at_return = -1;
    result<int> got = 0;
    status after = errc::ok;
    auto root = [&]() -> task<> {
        got = co_await with_timeout(stubborn(4, ran, nullptr), 3ms);
        ran_at_return = ran;
        after = co_await yield();
    };
    auto h = ex.spawn(root());
    ASSERT_TRUE(h);
    auto canceller = [&]() -> task<> {
        (void)co_await sleep_for(3ms);  // armed after the bound: fires after it
        (void)co_await yield();         // the child is unwinding now
        EXPECT_EQ(ran, 1);
        h->cancel();
    };
    auto c = ex.spawn(canceller());
    ASSERT_TRUE(c);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_TRUE(test::failed_with(got, errc::timeout, "task: timeout"));
    EXPECT_EQ(ran_at_return, 4);
    EXPECT_EQ(after.code(), errc::cancelled);
    EXPECT_EQ(test::ms(ex), 3);
}

// The awaiter is movable before it is awaited (not copyable: it owns the
// child), and an lvalue one can be awaited; a moved-from one is harmless.
TEST(task_timeout, the_awaiter_can_be_moved_before_the_await_and_awaited_as_an_lvalue) {
    static_assert(!std::is_copy_constructible_v<task_timeout_operation<int>>);
    static_assert(std::is_nothrow_move_constructible_v<task_timeout_operation<int>>);
    executor ex{test::virtual_clock()};
    result<int> moved = 0, late = 0;
    auto root = [&]() -> task<> {
        auto op = with_timeout(reading_after(1ms, 3), 5ms);
        auto op2 = std::move(op);
        moved = co_await op2;
        auto op3 = with_timeout(reading_after(1h, 4), 5ms);
        late = co_await std::move(op3);
    };
    auto h = ex.spawn(root());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    ASSERT_TRUE(moved);
    EXPECT_EQ(*moved, 3);
    EXPECT_EQ(late.code(), errc::timeout);
    EXPECT_EQ(test::ms(ex), 6);
}

// Unlike `co_await t`, which runs t at once inside the awaiting task, a
// bounded task starts as a new ready task of the awaiting task's priority:
// behind what is already ready at that level (FIFO), ahead of lower ones.
TEST(task_timeout, a_bounded_child_queues_behind_tasks_already_ready_at_its_priority) {
    executor ex{test::virtual_clock()};
    std::string log;
    auto child = [&](char c) -> task<> {
        log += c;
        co_return;
    };
    auto root = [&]() -> task<> {
        log += 'P';
        (void)co_await child('i');  // inline: before anything else runs
        (void)co_await with_timeout(child('b'), 5ms);
        log += 'p';
    };
    auto peer = [&]() -> task<> {
        log += 'Q';
        co_return;
    };
    auto low = [&]() -> task<> {
        log += 'L';
        co_return;
    };
    auto r = ex.spawn(root(), 5);
    auto q = ex.spawn(peer(), 5);
    auto l = ex.spawn(low(), 4);
    ASSERT_TRUE(r && q && l);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(log, "PiQbpL");
}

// A child that never suspends wins at once (the bound is disarmed); a task
// already cancelled when it awaits a bounded task still starts the child,
// which sees the cancel at its first await, and gets `cancelled`.
TEST(task_timeout, a_child_that_never_suspends_wins_and_an_already_cancelled_parent_gets_cancelled) {
    executor ex{test::virtual_clock()};
    result<int> quick = 0, after_cancel = 0;
    errc child_saw = errc::ok;
    auto quick_child = []() -> task<int> { co_return 5; };
    join_handle<void>* self = nullptr;
    auto root = [&]() -> task<> {
        quick = co_await with_timeout(quick_child(), 5ms);
        self->cancel();
        after_cancel = co_await with_timeout(reading_after(1ms, 6, &child_saw), 5ms);
    };
    auto h = ex.spawn(root());
    ASSERT_TRUE(h);
    self = &*h;
    EXPECT_EQ(ex.run(), run_outcome::completed);
    ASSERT_TRUE(quick);
    EXPECT_EQ(*quick, 5);
    EXPECT_TRUE(test::failed_with(after_cancel, errc::cancelled, "task: cancelled"));
    EXPECT_EQ(child_saw, errc::cancelled);
    EXPECT_EQ(test::ms(ex), 0);
}

// A bounded await inside an awaited task (not the root): the child's
// parent is the root's control block, the wake resumes the nested
// coroutine, and the outcomes are the same.
TEST(task_timeout, a_bounded_await_inside_an_awaited_task_behaves_the_same) {
    executor ex{test::virtual_clock()};
    result<int> in_time = 0, late = 0;
    auto nested = [&](duration child_takes) -> task<int> {
        result<int> r = co_await with_timeout(reading_after(child_takes, 4), 3ms);
        co_return r ? *r : -int(r.code());
    };
    auto root = [&]() -> task<> {
        in_time = co_await nested(1ms);
        late = co_await nested(1h);
    };
    auto h = ex.spawn(root());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    ASSERT_TRUE(in_time && late);
    EXPECT_EQ(*in_time, 4);
    EXPECT_EQ(*late, -int(errc::timeout));
    EXPECT_EQ(test::ms(ex), 4);
}

// The other way round: the awaiting task is cancelled first, and the
// bound comes due while the child unwinds (it takes "5 ms" to, then
// yields so that run() fires the bound): the outcome stays `cancelled`.
TEST(task_timeout, a_bound_that_expires_while_the_child_unwinds_from_a_cancel_keeps_the_cancel) {
    executor ex{test::virtual_clock()};
    result<int> got = 0;
    bool unwound = false;
    auto child = [&]() -> task<int> {
        status s = co_await sleep_for(1h);
        EXPECT_EQ(s.code(), errc::cancelled);
        ex.advance(5ms);         // past the 3 ms bound
        (void)co_await yield();  // run() fires the bound now
        unwound = true;
        co_return 1;
    };
    auto root = [&]() -> task<> { got = co_await with_timeout(child(), 3ms); };
    auto h = ex.spawn(root());
    ASSERT_TRUE(h);
    auto canceller = [&]() -> task<> {
        (void)co_await sleep_for(1ms);
        h->cancel();
    };
    auto c = ex.spawn(canceller());
    ASSERT_TRUE(c);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_TRUE(unwound);
    EXPECT_TRUE(test::failed_with(got, errc::cancelled, "task: cancelled"));
    EXPECT_EQ(test::ms(ex), 6);
}
