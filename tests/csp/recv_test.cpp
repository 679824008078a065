// SPDX-License-Identifier: Apache-2.0
// The direct awaiter of `co_await recv(ch)` (recv_operation).
#include <weft/csp/recv.hpp>
#include <weft/csp/send.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>

#include <vector>

using namespace weft;
using namespace weft::csp;

TEST(recv_operation, cancelled_while_blocked_withdraws_its_offer) {
    executor ex{test::virtual_clock()};
    channel<int> ch{"ch"};
    errc code = errc::ok;
    auto worker = [&]() -> task<> { code = (co_await recv(ch)).code(); };
    auto w = ex.spawn(worker());
    auto killer = [&]() -> task<> {
        co_await weft::sleep_for(1ms);
        w->cancel();
    };
    auto k = ex.spawn(killer());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(code, errc::cancelled);
    EXPECT_EQ(ch.try_send(1).code(), errc::full);  // nobody receives any more
}

TEST(recv_operation, close_wakes_a_blocked_receiver_with_closed) {
    executor ex{test::virtual_clock()};
    channel<int, 2> ch{"ch"};
    errc code = errc::ok;
    auto worker = [&]() -> task<> { code = (co_await recv(ch)).code(); };
    auto w = ex.spawn(worker());
    auto closer = [&]() -> task<> {
        co_await weft::sleep_for(1ms);
        ch.close();
    };
    auto c = ex.spawn(closer());
    ex.run();
    EXPECT_EQ(code, errc::closed);
}

TEST(recv_operation, blocked_senders_refill_the_buffer_in_fifo_order) {
    executor ex{test::virtual_clock()};
    channel<int, 1> ch{"ch"};
    std::vector<int> got;
    auto sender = [&](int v) -> task<> { EXPECT_TRUE(co_await send(ch, v)); };
    auto a = ex.spawn(sender(1));
    auto b = ex.spawn(sender(2));  // blocks: the buffer holds 1
    auto c = ex.spawn(sender(3));  // blocks behind 2
    auto receiver = [&]() -> task<> {
        co_await weft::sleep_for(1ms);
        for (int i = 0; i < 3; ++i) got.push_back(*co_await recv(ch));
    };
    auto r = ex.spawn(receiver());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got, (std::vector<int>{1, 2, 3}));
    EXPECT_EQ(ch.size(), 0u);
}

TEST(recv_operation, takes_buffered_values_after_close) {
    executor ex{test::virtual_clock()};
    channel<int, 2> ch{"ch"};
    (void)ch.try_send(7);
    ch.close();
    std::vector<errc> codes;
    int value = 0;
    auto worker = [&]() -> task<> {
        auto first = co_await recv(ch);
        value = first ? *first : -1;
        codes.push_back((co_await recv(ch)).code());
    };
    auto w = ex.spawn(worker());
    ex.run();
    EXPECT_EQ(value, 7);
    EXPECT_EQ(codes, (std::vector<errc>{errc::closed}));
}
