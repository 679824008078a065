// SPDX-License-Identifier: Apache-2.0
#include <weft/csp/choose.hpp>
#include <weft/csp/recv.hpp>
#include <weft/csp/send.hpp>
#include <weft/csp/window.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>

using namespace weft;
using namespace weft::csp;

TEST(window, ready_partner_waits_for_the_window_to_open) {
    executor ex{test::virtual_clock()};
    channel<int, 1> ch{"w"};
    (void)ch.try_send(1);
    std::int64_t when = -1;
    auto t = [&]() -> task<> {
        auto r = co_await within(recv(ch), 5ms, 10ms);
        EXPECT_TRUE(r);
        when = test::ms(ex);
    };
    auto h = ex.spawn(t());
    ex.run();
    EXPECT_EQ(when, 5);
}

TEST(window, closes_with_timeout_and_withdraws) {
    executor ex{test::virtual_clock()};
    channel<int> ch{"w"};
    errc code = errc::ok;
    std::int64_t when = -1;
    auto t = [&]() -> task<> {
        code = (co_await within(recv(ch), 2ms, 4ms)).code();
        when = test::ms(ex);
    };
    auto h = ex.spawn(t());
    ex.run();
    EXPECT_EQ(code, errc::timeout);
    EXPECT_EQ(when, 4);
    EXPECT_EQ(ch.try_send(1).code(), errc::full);
}

TEST(window, partner_before_the_window_cannot_match) {
    executor ex{test::virtual_clock()};
    channel<int> ch{"w"};
    std::int64_t got_at = -1;
    auto rx = [&]() -> task<> {
        (void)co_await window(recv(ch), from_ns(3'000'000), from_ns(6'000'000));
        got_at = test::ms(ex);
    };
    auto tx = [&]() -> task<> {
        // At t=1 the receiver has no offer yet: try_send fails.
        co_await weft::sleep_for(1ms);
        EXPECT_EQ(ch.try_send(7).code(), errc::full);
        (void)co_await send(ch, 8);
    };
    auto a = ex.spawn(rx());
    auto b = ex.spawn(tx());
    ex.run();
    EXPECT_EQ(got_at, 3);
}

TEST(window, expired_window_is_skipped_inside_choose) {
    executor ex{test::virtual_clock()};
    channel<int, 1> a{"a"}, b{"b"};
    int got = 0;
    auto t = [&]() -> task<> {
        co_await weft::sleep_for(10ms);
        (void)a.try_send(1);
        (void)b.try_send(2);
        got = *co_await choose(window(recv(a), from_ns(0), from_ns(5'000'000)), recv(b));
    };
    auto h = ex.spawn(t());
    ex.run();
    EXPECT_EQ(got, 2);
}
