// SPDX-License-Identifier: Apache-2.0
// with_timeout / with_deadline around a task: the child runs under the
// bound, is cancelled and awaited when the bound passes first, and the
// await yields what co_await of the task would, or the reason it ended.
#include <weft/core/mutex.hpp>
#include <weft/core/sleep.hpp>
#include <weft/core/task.hpp>
#include <weft/core/timeout.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>

#include <string>

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
