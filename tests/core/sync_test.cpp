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
    ASSERT_FALSE(s);
    EXPECT_EQ(s.code(), errc::full);
    EXPECT_STREQ(s.err().message().c_str(), "semaphore 'uart_tx': released above its maximum (limit 2)");
    EXPECT_EQ(sem.available(), 2u);
}

TEST(mutex, lock_is_fifo_and_exclusive) {
    executor ex{test::virtual_clock()};
    mutex m{"bus"};
    std::string log;
    int inside = 0, max_inside = 0;
    auto user = [&](char c) -> task<> {
        co_await m.lock();
        lock_guard g{m};
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
