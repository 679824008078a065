// SPDX-License-Identifier: Apache-2.0
#include <weft/csp/channel.hpp>
#include <weft/csp/recv.hpp>
#include <weft/csp/send.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>

#include <memory>
#include <vector>

using namespace weft;
using namespace weft::csp;

TEST(channel, rendezvous_send_waits_for_receiver) {
    executor ex{test::virtual_clock()};
    channel<int> ch{"rv"};
    std::vector<int> log;
    auto sender = [&]() -> task<> {
        log.push_back(1);
        auto s = co_await send(ch, 7);
        EXPECT_TRUE(s);
        log.push_back(3);
    };
    auto receiver = [&]() -> task<> {
        log.push_back(2);
        auto v = co_await recv(ch);
        EXPECT_EQ(*v, 7);
        log.push_back(4);
    };
    auto a = ex.spawn(sender());
    auto b = ex.spawn(receiver());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(log, (std::vector<int>{1, 2, 4, 3}));
}

TEST(channel, try_send_when_full_returns_value) {
    channel<int, 2> ch{"uart_rx"};
    EXPECT_TRUE(ch.try_send(1));
    EXPECT_TRUE(ch.try_send(2));
    auto r = ch.try_send(3);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.code(), errc::full);
    EXPECT_EQ(r.value(), 3);
    EXPECT_STREQ(r.err().message().c_str(), "channel 'uart_rx': full (limit 2)");
    EXPECT_EQ(*ch.try_recv(), 1);
    EXPECT_EQ(*ch.try_recv(), 2);
    EXPECT_EQ(ch.try_recv().code(), errc::empty);
}

TEST(channel, try_send_on_rendezvous_without_receiver_fails) {
    channel<int> ch{"rv"};
    auto r = ch.try_send(5);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.value(), 5);
    EXPECT_STREQ(r.err().message().c_str(), "channel 'rv': no receiver waiting (rendezvous)");
}

TEST(channel, send_on_closed_channel_is_an_error_naming_it) {
    executor ex{test::virtual_clock()};
    channel<int, 4> ch{"events"};
    ch.close();
    status got;
    auto t = [&]() -> task<> { got = co_await send(ch, 1); };
    auto h = ex.spawn(t());
    ex.run();
    EXPECT_EQ(got.code(), errc::closed);
    EXPECT_STREQ(got.err().message().c_str(), "channel 'events': closed");
    auto r = ch.try_send(9);
    EXPECT_EQ(r.code(), errc::closed);
    EXPECT_EQ(r.value(), 9);
}

TEST(channel, close_keeps_buffered_values_and_wakes_waiters) {
    executor ex{test::virtual_clock()};
    channel<int, 2> ch{"c"};
    std::vector<int> got;
    errc last = errc::ok;
    auto rx = [&]() -> task<> {
        for (;;) {
            auto v = co_await recv(ch);
            if (!v) { last = v.code(); co_return; }
            got.push_back(*v);
        }
    };
    auto tx = [&]() -> task<> {
        (void)co_await send(ch, 1);
        (void)co_await send(ch, 2);
        ch.close();
    };
    auto a = ex.spawn(tx());
    auto b = ex.spawn(rx());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got, (std::vector<int>{1, 2}));
    EXPECT_EQ(last, errc::closed);
}

TEST(channel, buffered_sender_blocks_when_full_and_resumes_in_order) {
    executor ex{test::virtual_clock()};
    channel<int, 1> ch{"b"};
    std::vector<int> got;
    auto tx = [&](int base) -> task<> {
        for (int i = 0; i < 3; ++i) (void)co_await send(ch, base + i);
    };
    auto rx = [&]() -> task<> {
        for (int i = 0; i < 6; ++i) got.push_back(*co_await recv(ch));
    };
    auto a = ex.spawn(tx(0));
    auto b = ex.spawn(tx(10));
    auto c = ex.spawn(rx());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    ASSERT_EQ(got.size(), 6u);
    std::vector<int> from0, from10;
    for (int v : got) (v < 10 ? from0 : from10).push_back(v);
    EXPECT_EQ(from0, (std::vector<int>{0, 1, 2}));
    EXPECT_EQ(from10, (std::vector<int>{10, 11, 12}));
}

TEST(channel, move_only_values) {
    executor ex{test::virtual_clock()};
    channel<std::unique_ptr<int>, 1> ch{"mo"};
    int got = 0;
    auto t = [&]() -> task<> {
        (void)co_await send(ch, std::make_unique<int>(4));
        got = **co_await recv(ch);
    };
    auto h = ex.spawn(t());
    ex.run();
    EXPECT_EQ(got, 4);
}

