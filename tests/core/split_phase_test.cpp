// SPDX-License-Identifier: Apache-2.0
#include <weft/core/split_phase.hpp>
#include <weft/core/task.hpp>
#include <weft/core/timeout.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>

#include <atomic>
#include <thread>

using namespace weft;

TEST(split_phase, completion_before_await_is_not_lost) {
    executor ex{test::virtual_clock()};
    split_phase<int> op{"adc"};
    ASSERT_TRUE(bool(op.complete(42)));
    int got = 0;
    auto t = [&]() -> task<> { got = *co_await op; };
    auto h = ex.spawn(t());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got, 42);
}

TEST(split_phase, second_completion_before_consumption_is_refused_by_name) {
    split_phase<int> op{"uart_rx"};
    ASSERT_TRUE(bool(op.complete(1)));
    status s = op.complete(2);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.code(), errc::busy);
    EXPECT_STREQ(s.err().message().c_str(),
                 "split_phase 'uart_rx': completed twice before being awaited (limit 1)");
}

TEST(split_phase, timeout_withdraws_the_wait) {
    executor ex{test::virtual_clock()};
    split_phase<int> op{"i2c"};
    errc got = errc::ok;
    auto t = [&]() -> task<> { got = (co_await with_timeout(op.wait(), 3ms)).code(); };
    auto h = ex.spawn(t());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got, errc::timeout);
    EXPECT_EQ(test::ms(ex), 3);
}

// A foreign thread plays the interrupt handler: the task starts an
// operation, the "ISR" completes it from another thread. Run under TSan in
// the tsan preset; the virtual clock never advances (no timers), so the
// executor really sleeps in the port until notified.
TEST(split_phase, completed_from_foreign_thread_under_stress) {
    constexpr int rounds = 20'000;
    executor ex{test::virtual_clock()};
    split_phase<int> op{"dma"};
    std::atomic<int> started{0};
    std::atomic<bool> quit{false};
    std::thread isr([&] {
        int served = 0;
        while (served < rounds && !quit.load(std::memory_order_relaxed)) {
            if (started.load(std::memory_order_acquire) > served) {
                while (!op.complete(served)) std::this_thread::yield();
                ++served;
            } else {
                std::this_thread::yield();
            }
        }
    });
    long long sum = 0;
    int wrong = 0;
    auto t = [&]() -> task<> {
        for (int i = 0; i < rounds; ++i) {
            started.store(i + 1, std::memory_order_release);  // "start the transfer"
            auto v = co_await op;
            if (!v || *v != i) ++wrong;
            else sum += *v;
        }
    };
    auto h = ex.spawn(t());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    quit = true;
    isr.join();
    EXPECT_EQ(wrong, 0);
    EXPECT_EQ(sum, (long long)rounds * (rounds - 1) / 2);
}
