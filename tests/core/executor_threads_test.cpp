// SPDX-License-Identifier: Apache-2.0
// Frame pools and the frame allocator are process-wide and unsynchronised:
// a host stops the program when executors run on two threads at once, and
// allows runs one after another on different threads and a run nested in
// another executor's task on one thread.
#include <weft/core/event.hpp>
#include <weft/core/sleep.hpp>
#include <weft/core/task.hpp>
#include <weft/core/yield.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>

#include <atomic>
#include <thread>

using namespace weft;
using namespace std::chrono_literals;

namespace {

task<> count_yields(int& n) {
    for (int i = 0; i < 100; ++i) {
        co_await yield();
        ++n;
    }
}

// Inside its executor's run() until the test process ends (the death
// test's child dies first): it says so, then sleeps on the real clock.
task<> say_inside_then_wait(std::atomic<bool>& inside) {
    inside.store(true);
    co_await sleep_for(std::chrono::hours(1));
}

task<> run_another(executor& inner, int& n) {
    auto h = inner.spawn(count_yields(n));
    if (!h) co_return;
    (void)inner.run();
}

}  // namespace

TEST(executor_threads, running_on_two_threads_at_once_stops_the_program_naming_both) {
    EXPECT_DEATH(
        {
            std::atomic<bool> inside{false};
            // Created before the first run starts: a Debug build stops a
            // coroutine created while another thread runs an executor
            // first, with its own message (executor_only_test.cpp).
            int n = 0;
            auto t = count_yields(n);
            std::thread first([&] {
                executor ex{{"first"}};
                auto h = ex.spawn(say_inside_then_wait(inside));
                if (h) (void)ex.run();
            });
            while (!inside.load()) std::this_thread::yield();
            executor second{test::virtual_clock("second")};
            auto h = second.spawn(std::move(t));
            if (h) (void)second.run();
            first.join();
        },
        "executor 'second': run\\(\\) while executor 'first' runs on another thread");
}

TEST(executor_threads, runs_one_after_another_on_different_threads_are_fine) {
    int a = 0, b = 0;
    std::thread first([&] {
        executor ex{test::virtual_clock("first")};
        auto h = ex.spawn(count_yields(a));
        ASSERT_TRUE(h);
        EXPECT_EQ(ex.run(), run_outcome::completed);
    });
    first.join();
    std::thread second([&] {
        executor ex{test::virtual_clock("second")};
        auto h = ex.spawn(count_yields(b));
        ASSERT_TRUE(h);
        EXPECT_EQ(ex.run(), run_outcome::completed);
    });
    second.join();
    EXPECT_EQ(a, 100);
    EXPECT_EQ(b, 100);
}

TEST(executor_threads, a_run_nested_in_another_executors_task_is_one_thread) {
    int n = 0;
    executor outer{test::virtual_clock("outer")};
    executor inner{test::virtual_clock("inner")};  // too large for a test frame
    auto h = outer.spawn(run_another(inner, n));
    ASSERT_TRUE(h);
    EXPECT_EQ(outer.run(), run_outcome::completed);
    EXPECT_EQ(n, 100);
}
