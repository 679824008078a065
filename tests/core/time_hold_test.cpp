// SPDX-License-Identifier: Apache-2.0
// executor::hold_time(): the virtual clock stands still while a foreign
// thread works on what a task awaits under a bound.
#include <weft/core/split_phase.hpp>
#include <weft/core/task.hpp>
#include <weft/core/timeout.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>

#include <thread>

using namespace weft;
using namespace std::chrono_literals;

// The device thread answers after its own start-up, which takes real time;
// without the hold the executor is idle meanwhile and jumps to the bound.
// Repeated so that the race the hold closes would show.
TEST(time_hold, a_foreign_thread_completes_under_a_virtual_bound_while_time_is_held) {
    for (int round = 0; round < 50; ++round) {
        executor ex{test::virtual_clock()};
        split_phase<int> reading{"reading"};
        std::thread device;
        result<int> got = errc::invalid;
        auto root = [&]() -> task<> {
            auto w = reading.wait();
            device = std::thread([&reading, hold = ex.hold_time()]() mutable {
                (void)reading.complete(42);
                hold.release();
            });
            got = co_await with_timeout(std::move(w), 5ms);
        };
        auto h = ex.spawn(root());
        ASSERT_TRUE(h);
        EXPECT_EQ(ex.run(), run_outcome::completed);
        device.join();
        ASSERT_TRUE(got) << "round " << round << ": " << got.err().message().c_str();
        EXPECT_EQ(*got, 42);
        EXPECT_EQ(test::ms(ex), 0);  // no virtual time passed
    }
}

// A hold released without a completion lets time move on: the bound then
// expires at its virtual instant.
TEST(time_hold, releasing_the_hold_without_a_result_lets_the_bound_expire) {
    executor ex{test::virtual_clock()};
    split_phase<int> reading{"reading"};
    std::thread device;
    result<int> got = 0;
    auto root = [&]() -> task<> {
        auto w = reading.wait();
        device = std::thread([hold = ex.hold_time()]() mutable { hold.release(); });
        got = co_await with_timeout(std::move(w), 5ms);
    };
    auto h = ex.spawn(root());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    device.join();
    EXPECT_EQ(got.code(), errc::timeout);
    EXPECT_EQ(test::ms(ex), 5);
}

TEST(time_hold, a_moved_hold_is_released_once_and_release_is_idempotent) {
    executor ex{test::virtual_clock()};
    {
        time_hold a = ex.hold_time();
        time_hold b = std::move(a);
        a.release();  // moved from: nothing to release
        time_hold c = ex.hold_time();
        c = std::move(b);  // c's own hold goes, b's is now c's
        c.release();
        c.release();
    }
    // Every hold is gone: a sleep on the virtual clock passes at once.
    auto root = [&]() -> task<> { (void)co_await sleep_for(1h); };
    auto h = ex.spawn(root());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(test::ms(ex), 3'600'000);
}
