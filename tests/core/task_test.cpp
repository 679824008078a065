// SPDX-License-Identifier: Apache-2.0
#include <weft/core/sleep.hpp>
#include <weft/core/task.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>

#include <string>

using namespace weft;

namespace {

task<int> twice(int x) { co_return 2 * x; }
task<int> chain(int depth) {
    if (depth == 0) co_return 0;
    auto r = co_await chain(depth - 1);
    co_return *r + 1;
}
task<result<int>> fallible(bool ok) {
    if (ok) co_return 7;
    co_return error{errc::invalid, "sensor", "imu", 0, nullptr};
}

}  // namespace

TEST(task, is_lazy_and_result_is_delivered_as_value) {
    executor ex{test::virtual_clock()};
    int got = 0;
    bool started = false;
    auto parent = [&]() -> task<> {
        started = true;
        auto v = co_await twice(21);
        got = *v;
    };
    auto t = parent();
    EXPECT_FALSE(started);
    auto h = ex.spawn(std::move(t));
    ASSERT_TRUE(h);
    EXPECT_FALSE(started);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got, 42);
}

TEST(task, long_await_chains_do_not_grow_the_stack) {
    // 100000 nested co_awaits would overflow the stack without symmetric
    // transfer (each level would add a resume() frame). Where transfers
    // are no tail calls (GCC at -O0 or with a sanitizer), recursion nests
    // like any recursion: a shallower chain there.
    static frame_pool<512, 100'002> deep{"deep"};
    use_frames scope{deep};
    executor ex{test::virtual_clock()};
    const int depth = detail::tail_calls ? 100'000 : 2'000;
    int got = -1;
    auto root = [&]() -> task<> { got = *co_await chain(depth); };
    auto h = ex.spawn(root());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got, depth);
}

TEST(task, result_of_fallible_task_is_flattened) {
    executor ex{test::virtual_clock()};
    errc seen = errc::ok;
    int value = 0;
    auto root = [&]() -> task<> {
        auto a = co_await fallible(true);
        value = *a;
        auto b = co_await fallible(false);
        seen = b.code();
    };
    auto h = ex.spawn(root());
    ASSERT_TRUE(h);
    ex.run();
    EXPECT_EQ(value, 7);
    EXPECT_EQ(seen, errc::invalid);
}

TEST(task, join_returns_value_and_frees_frame) {
    frame_pool<512, 4> pool{"join_pool"};
    executor ex{test::virtual_clock()};
    int got = 0;
    task<int> t = [&] { use_frames s{pool}; return twice(5); }();
    auto h = ex.spawn(std::move(t));
    ASSERT_TRUE(h);
    auto joiner = [&]() -> task<> { got = *co_await h->join(); };
    auto j = ex.spawn(joiner());
    ASSERT_TRUE(j);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got, 10);
    EXPECT_EQ(pool.in_use(), 0u);
}

TEST(task, a_second_joiner_is_refused_and_the_first_still_gets_the_value) {
    executor ex{test::virtual_clock()};
    auto h = ex.spawn([]() -> task<int> { co_await sleep_for(1ms); co_return 3; }());
    ASSERT_TRUE(h);
    int got = 0;
    std::string second;
    auto first = [&]() -> task<> { got = *co_await h->join(); };
    auto late = [&]() -> task<> {
        auto r = co_await h->join();
        second = r ? "value" : r.err().message().c_str();
    };
    auto a = ex.spawn(first());
    auto b = ex.spawn(late());
    ASSERT_TRUE(a && b);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got, 3);
    EXPECT_EQ(second, "join_handle 'join': already joined by another task (limit 1)");
}

// Joining its own handle would wait for the task's own end: refused at
// once (from a nested coroutine too, which shares the task's control).
TEST(task, a_task_joining_itself_is_refused_as_a_cycle) {
    executor ex{test::virtual_clock()};
    result<join_handle<int>> h{errc::invalid};
    std::string direct, nested;
    auto join_self = [&]() -> task<> {
        auto r = co_await h->join();
        nested = r ? "value" : r.err().message().c_str();
    };
    auto body = [&]() -> task<int> {
        auto r = co_await h->join();
        direct = r ? "value" : r.err().message().c_str();
        co_await join_self();
        co_return 7;
    };
    h = ex.spawn(body());
    ASSERT_TRUE(h);
    int got = 0;
    auto joiner = [&]() -> task<> { got = *co_await h->join(); };
    auto j = ex.spawn(joiner());
    ASSERT_TRUE(j);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(direct, "join_handle 'join': would deadlock (the joined task is the caller or waits for it)");
    EXPECT_EQ(nested, direct);
    EXPECT_EQ(got, 7);  // the refused joins took nothing from the real one
}

TEST(task, detached_task_frees_its_frame_when_done) {
    frame_pool<512, 4> pool{"detach_pool"};
    executor ex{test::virtual_clock()};
    {
        use_frames s{pool};
        auto h = ex.spawn(twice(1));
        ASSERT_TRUE(h);
        EXPECT_EQ(pool.in_use(), 1u);
    }  // handle dropped: detached
    ex.run();
    EXPECT_EQ(pool.in_use(), 0u);
}

TEST(task, priority_out_of_range_is_an_error_naming_the_executor) {
    executor ex{{"ctl_loop", clock_mode::virtual_}};
    auto h = ex.spawn(twice(1), 40);
    ASSERT_TRUE(test::failed_with(h, errc::invalid, "executor 'ctl_loop': priority above max_priority (limit 31)"));
}

TEST(task, join_of_a_cancelled_task_yields_what_it_returned) {
    executor ex{test::virtual_clock()};
    auto h = ex.spawn([]() -> task<int> {
        auto s = co_await sleep_for(1h);
        co_return s ? 1 : -1;
    }());
    ASSERT_TRUE(h);
    int got = 0;
    auto joiner = [&]() -> task<> {
        co_await sleep_for(1ms);
        h->cancel();
        h->cancel();  // twice: no effect
        got = *co_await h->join();
    };
    auto j = ex.spawn(joiner());
    ASSERT_TRUE(j);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got, -1);
    EXPECT_EQ(test::ms(ex), 1);
}

TEST(task, cancel_after_it_finished_leaves_the_value_to_join) {
    executor ex{test::virtual_clock()};
    auto h = ex.spawn(twice(4));
    ASSERT_TRUE(h);
    ex.run();
    EXPECT_TRUE(h->done());
    h->cancel();
    int got = 0;
    auto joiner = [&]() -> task<> { got = *co_await h->join(); };
    auto j = ex.spawn(joiner());
    ASSERT_TRUE(j);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got, 8);
}

// Detaching frees the frame when the task ends and wakes nobody, so a
// join waiting on the handle is ended at the detach instead of hanging.
TEST(task, detaching_a_handle_ends_a_join_waiting_on_it) {
    executor ex{test::virtual_clock()};
    auto h = ex.spawn([]() -> task<int> { co_await sleep_for(2ms); co_return 3; }());
    ASSERT_TRUE(h);
    std::string got;
    std::int64_t at = -1;
    auto joiner = [&]() -> task<> {
        auto r = co_await h->join();
        got = r ? "value" : r.err().message().c_str();
        at = test::ms(ex);
    };
    auto j = ex.spawn(joiner());
    ASSERT_TRUE(j);
    auto detacher = [&]() -> task<> {
        co_await sleep_for(1ms);
        h->detach();
    };
    auto d = ex.spawn(detacher());
    ASSERT_TRUE(d);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got, "join_handle 'join': detached while being joined");
    EXPECT_EQ(at, 1);
    EXPECT_EQ(test::ms(ex), 2);  // the detached task still ran to its end
}
