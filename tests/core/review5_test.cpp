// SPDX-License-Identifier: Apache-2.0
// Review 5: awaiters awaited more than once. A bound retried in a loop
// (`auto w = with_timeout(sem.acquire(), 5ms); while (!co_await w) ...`)
// awaits one awaiter again after it timed out, and `co_await
// std::move(t)` says that `t` is spent. Each await must start afresh and
// report what happened to it, not what happened to the one before.
#include <weft/core/cancel.hpp>
#include <weft/core/event.hpp>
#include <weft/core/mutex.hpp>
#include <weft/core/semaphore.hpp>
#include <weft/core/sleep.hpp>
#include <weft/core/task.hpp>
#include <weft/core/timeout.hpp>
#include <weft/core/when_all.hpp>
#include <weft/core/when_any.hpp>
#include <weft/core/yield.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>

#include <string>
#include <tuple>

using namespace weft;
using namespace std::chrono_literals;

namespace {

task<int> value_after(duration d, int v) {
    co_await sleep_for(d);
    co_return v;
}

}  // namespace

// A unit granted to a bound retried after a timeout was reported as a
// second timeout: the awaiter kept the first await's reason. The unit
// was then held by a task that believed it had none (leaked for ever).
TEST(review5, a_semaphore_acquire_retried_after_its_timeout_reports_the_unit_it_got) {
    executor ex{test::virtual_clock()};
    semaphore sem{"slots", 0, 1};
    status first, second;
    int second_at = -1;
    auto taker = [&]() -> task<> {
        auto w = with_timeout(sem.acquire(), 2ms);
        first = co_await w;   // nothing released before 2 ms
        second = co_await w;  // released at 3 ms
        second_at = int(test::ms(ex));
        if (second) (void)sem.release();
    };
    auto releaser = [&]() -> task<> {
        co_await sleep_for(3ms);
        (void)sem.release();
    };
    auto a = ex.spawn(taker());
    auto b = ex.spawn(releaser());
    ASSERT_TRUE(a && b);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_TRUE(test::failed_with(first, errc::timeout, "semaphore 'slots': timeout"));
    EXPECT_TRUE(second) << second.err().message().c_str();
    EXPECT_EQ(second_at, 3);
    EXPECT_EQ(sem.available(), 1u);  // the unit came back
}

// The same for a lock: granted on the retry but reported as a timeout, so
// the task never unlocked it and ended holding it (a fatal stop).
TEST(review5, a_mutex_lock_retried_after_its_timeout_reports_the_lock_it_got) {
    executor ex{test::virtual_clock()};
    mutex m{"bus"};
    status first, second;
    bool owned_after_second = false;
    auto holder = [&]() -> task<> {
        (void)co_await m.lock();
        co_await sleep_for(3ms);
        m.unlock();
    };
    auto taker = [&]() -> task<> {
        task_control* me = co_await test::running_control{};
        auto w = with_timeout(m.lock(), 2ms);
        first = co_await w;
        second = co_await w;
        owned_after_second = m.owner() == me;
        if (owned_after_second) m.unlock();  // whatever the await said
    };
    auto a = ex.spawn(holder(), 1);
    auto b = ex.spawn(taker());
    ASSERT_TRUE(a && b);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_TRUE(test::failed_with(first, errc::timeout, "mutex 'bus': timeout"));
    EXPECT_TRUE(owned_after_second);
    EXPECT_TRUE(second) << second.err().message().c_str();
    EXPECT_FALSE(m.locked());
}

// An event set during the retry, and a sleep that ends within it: each
// retry reports its own outcome.
TEST(review5, an_event_wait_and_a_sleep_retried_after_their_timeouts_report_success) {
    executor ex{test::virtual_clock()};
    event ev{"ready"};
    status ev_first, ev_second, sl_first, sl_second;
    auto waiter = [&]() -> task<> {
        auto w = with_timeout(ev.wait(), 2ms);
        ev_first = co_await w;
        ev_second = co_await w;  // set at 3 ms
    };
    auto sleeper = [&]() -> task<> {
        // Until 3 ms: the first 2 ms bound expires, the retry's (4 ms) does not.
        auto w = with_timeout(sleep_until(from_ns(3'000'000)), 2ms);
        sl_first = co_await w;
        sl_second = co_await w;
    };
    auto setter = [&]() -> task<> {
        co_await sleep_for(3ms);
        ev.set();
    };
    auto a = ex.spawn(waiter());
    auto b = ex.spawn(sleeper());
    auto c = ex.spawn(setter());
    ASSERT_TRUE(a && b && c);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_TRUE(test::failed_with(ev_first, errc::timeout, "event 'ready': timeout"));
    EXPECT_TRUE(ev_second) << ev_second.err().message().c_str();
    EXPECT_EQ(sl_first.code(), errc::timeout);
    EXPECT_TRUE(sl_second) << sl_second.err().message().c_str();
    EXPECT_EQ(test::ms(ex), 3);
}

// until_cancelled() retried after its bound expired, by a task cancelled
// meanwhile: the cancel, not the old timeout.
TEST(review5, until_cancelled_retried_after_its_timeout_reports_the_cancel) {
    executor ex{test::virtual_clock()};
    status first, second;
    auto waiter = [&]() -> task<> {
        auto w = with_timeout(until_cancelled(), 2ms);
        first = co_await w;
        (void)co_await sleep_for(5ms);  // cut short by the cancel at 3 ms
        second = co_await w;
    };
    auto a = ex.spawn(waiter());
    ASSERT_TRUE(a);
    test::cancel_after(ex, *a, 3ms);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(first.code(), errc::timeout);
    EXPECT_EQ(second.code(), errc::cancelled);
    EXPECT_EQ(test::ms(ex), 3);
}

// A bounded join retried in a loop until the task ends: every retry after
// the first timeout reported the timeout again, also once the task had
// ended, where the await returns at once: the loop spun for ever without
// suspending. Here the retries are counted and cut off.
TEST(review5, a_join_retried_after_its_timeout_gets_the_value) {
    static frame_pool<1024, 4> pool{"r5_join"};
    executor ex{test::virtual_clock()};
    result<int> got = 0;
    int tries = 0;
    auto root = [&]() -> task<> {
        auto h = ex.spawn(value_after(5ms, 7));
        if (!h) co_return;
        auto w = with_timeout(h->join(), 2ms);
        do got = co_await w;
        while (!got && got.code() == errc::timeout && ++tries < 10);
    };
    {
        use_frames s{pool};
        auto h = ex.spawn(root());
        ASSERT_TRUE(h);
        EXPECT_EQ(ex.run(), run_outcome::completed);
    }
    ASSERT_TRUE(got) << got.err().message().c_str();
    EXPECT_EQ(*got, 7);
    EXPECT_EQ(tries, 2);  // timed out at 2 and 4 ms, joined at 5
    EXPECT_EQ(test::ms(ex), 5);
    EXPECT_EQ(pool.in_use(), 0u);
}

// A join awaited again after it got the value: the handle is empty then,
// and the second await says so. It also cleared the join mark in the
// joined task's control block, i.e. wrote into the frame the first await
// had freed, where the next task's frame now is (the pool's free list is
// LIFO): that task's joiner was never woken and run() stalled.
TEST(review5, a_join_awaited_again_after_the_value_refuses_and_touches_no_freed_frame) {
    executor ex{test::virtual_clock()};
    result<int> first = 0, second = 0, third = 0;
    join_handle<int> h2;
    auto joiner = [&]() -> task<> { third = co_await h2.join(); };
    auto root = [&]() -> task<> {
        auto h = ex.spawn(value_after(1ms, 7));
        if (!h) co_return;
        auto j = h->join();
        first = co_await j;  // frees h's frame
        auto again = ex.spawn(value_after(1ms, 9));  // takes the slot h's frame had
        auto k = ex.spawn(joiner());
        if (!again || !k) co_return;
        h2 = std::move(*again);
        co_await yield();     // the joiner now waits for h2
        second = co_await j;  // must leave h2's joiner alone
    };
    auto h = ex.spawn(root());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    ASSERT_TRUE(first);
    EXPECT_EQ(*first, 7);
    EXPECT_TRUE(test::failed_with(second, errc::invalid, "join_handle '(empty)': nothing to join"));
    ASSERT_TRUE(third) << third.err().message().c_str();
    EXPECT_EQ(*third, 9);
}

// `co_await std::move(t)` left `t` holding its finished frame: a second
// await resumed a coroutine that had ended (undefined; a crash here),
// where every other way of giving a task away (spawn, when_all, when_any,
// with_timeout) leaves it empty and a second use says so. The frame also
// stayed taken until `t` went out of scope.
TEST(review5, a_task_awaited_once_is_spent_and_a_second_await_is_refused_by_name) {
    static frame_pool<1024, 4> pool{"r5_spent"};
    executor ex{test::virtual_clock()};
    result<int> first = 0, second = 0;
    bool empty_after = false;
    std::size_t in_use_after = 99;
    auto root = [&]() -> task<> {
        task<int> t;
        {
            use_frames s{pool};
            t = value_after(1ms, 3);
        }
        first = co_await std::move(t);
        empty_after = !t;
        in_use_after = pool.in_use();
        if (!t) second = co_await std::move(t);  // resuming an ended frame otherwise
    };
    auto h = ex.spawn(root());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    ASSERT_TRUE(first);
    EXPECT_EQ(*first, 3);
    EXPECT_TRUE(empty_after);
    EXPECT_EQ(in_use_after, 0u);
    EXPECT_TRUE(test::failed_with(second, errc::invalid, "task '(empty)': nothing to run"));
}

// when_all, when_any and a bounded task awaited again: the second await
// started the children once more, resuming coroutines that had ended.
// Now the first await's results free the frames, and a second await
// starts nothing and says, for each child, that it is spent.
TEST(review5, a_group_awaited_again_starts_nothing_and_says_its_tasks_are_spent) {
    static frame_pool<4096, 4> pool{"r5_group"};  // the root's frame holds eight results
    executor ex{test::virtual_clock()};
    int runs = 0;
    std::size_t in_use_after = 99;
    result<int> all_a = 0, all_b = 0, all_a2 = 0, all_b2 = 0, any_v = 0, any_v2 = 0, bounded = 0, bounded2 = 0;
    std::size_t any_index2 = 99;
    auto counted = [&](int v) -> task<int> {
        ++runs;
        co_await sleep_for(1ms);
        co_return v;
    };
    auto root = [&]() -> task<> {
        auto all = [&] {
            use_frames s{pool};
            return when_all(counted(1), counted(2));
        }();
        std::tie(all_a, all_b) = co_await all;
        in_use_after = pool.in_use();
        std::tie(all_a2, all_b2) = co_await all;
        auto any = when_any(counted(3), counted(4));
        auto r = co_await any;
        if (r.index == 0 && std::get<0>(r.values)) any_v = **std::get<0>(r.values);
        auto r2 = co_await any;
        any_index2 = r2.index;
        if (r2.index == 0 && std::get<0>(r2.values)) any_v2 = *std::get<0>(r2.values);
        auto w = with_timeout(counted(5), 5ms);
        bounded = co_await w;
        bounded2 = co_await w;
    };
    auto h = [&] {
        use_frames s{pool};
        return ex.spawn(root());
    }();
    ASSERT_TRUE(h) << h.err().message().c_str();
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(runs, 5);  // each child once
    EXPECT_EQ(in_use_after, 1u);  // the root's: the two children's frames are back
    ASSERT_TRUE(all_a && all_b);
    EXPECT_EQ(*all_a + *all_b, 3);
    EXPECT_TRUE(test::failed_with(all_a2, errc::invalid, "task '(empty)': nothing to run"));
    EXPECT_TRUE(test::failed_with(all_b2, errc::invalid, "task '(empty)': nothing to run"));
    ASSERT_TRUE(any_v);
    EXPECT_EQ(*any_v, 3);
    EXPECT_EQ(any_index2, 0u);
    EXPECT_TRUE(test::failed_with(any_v2, errc::invalid, "task '(empty)': nothing to run"));
    ASSERT_TRUE(bounded);
    EXPECT_EQ(*bounded, 5);
    EXPECT_TRUE(test::failed_with(bounded2, errc::invalid, "task '(empty)': nothing to run"));
}

// An object built with nullptr for its name: formatting its error read
// through the null pointer (a crash where a message was the point). A
// null name or kind now reads as an empty one.
TEST(review5, an_object_named_nullptr_gets_a_message_not_a_crash) {
    executor ex{test::virtual_clock()};
    semaphore sem{nullptr, 0, 1};
    status s;
    auto taker = [&]() -> task<> { s = co_await with_timeout(sem.acquire(), 1ms); };
    auto h = ex.spawn(taker());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_TRUE(test::failed_with(s, errc::timeout, "semaphore: timeout"));
    EXPECT_STREQ((error{errc::full, nullptr, nullptr, 4, nullptr}.message().c_str()), "full (limit 4)");
}
