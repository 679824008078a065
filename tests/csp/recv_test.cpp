// SPDX-License-Identifier: Apache-2.0
// The direct awaiter of `co_await recv(ch)` (recv_operation).
#include <weft/csp/recv.hpp>
#include <weft/csp/send.hpp>
#include <weft/csp/choose.hpp>
#include <weft/csp/timeout.hpp>
#include <weft/csp/wrap.hpp>

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

// A lone receiver on a buffered channel waits as its first receiver: this
// is also the close path of that wait.
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
    EXPECT_EQ(ex.run(), run_outcome::completed);
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

// The first receiver (channel.hpp): a direct receive that waits on a
// buffered channel with nobody else waiting is recorded by the channel, and
// the next value sent moves straight into its slot.

TEST(recv_operation, first_receiver_gets_the_next_value_and_others_queue_behind_it) {
    executor ex{test::virtual_clock()};
    channel<int, 4> ch{"ch"};
    std::vector<int> got;
    auto receiver = [&](int id) -> task<> {
        int v = *co_await recv(ch);
        got.push_back(id * 100 + v);
    };
    auto r1 = ex.spawn(receiver(1));  // waits as the first receiver
    auto r2 = ex.spawn(receiver(2));  // queues an offer behind it
    auto sender = [&]() -> task<> {
        co_await weft::sleep_for(1ms);
        EXPECT_TRUE(co_await send(ch, 7));
        EXPECT_TRUE(co_await send(ch, 8));
    };
    auto s = ex.spawn(sender());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got, (std::vector<int>{107, 208}));
    EXPECT_EQ(ch.size(), 0u);
}

TEST(recv_operation, a_value_handed_to_the_first_receiver_is_not_buffered) {
    executor ex{test::virtual_clock()};
    channel<int, 2> ch{"ch"};
    int got = 0;
    errc other = errc::ok;
    auto receiver = [&]() -> task<> { got = *co_await recv(ch); };
    auto r = ex.spawn(receiver());
    auto sender = [&]() -> task<> {
        co_await weft::sleep_for(1ms);
        EXPECT_TRUE(co_await send(ch, 5));  // into the receiver's slot; it has not run yet
        EXPECT_EQ(ch.size(), 0u);
        other = ch.try_recv().code();
    };
    auto s = ex.spawn(sender());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(other, errc::empty);
    EXPECT_EQ(got, 5);
}

TEST(recv_operation, a_cancelled_first_receiver_leaves_the_channel_to_others) {
    executor ex{test::virtual_clock()};
    channel<int, 2> ch{"ch"};
    errc code = errc::ok;
    int later = 0;
    auto worker = [&]() -> task<> { code = (co_await recv(ch)).code(); };
    auto w = ex.spawn(worker());
    auto killer = [&]() -> task<> {
        co_await weft::sleep_for(1ms);
        w->cancel();
        EXPECT_TRUE(co_await send(ch, 3));  // nobody waits any more: buffered
        EXPECT_EQ(ch.size(), 1u);
        later = *co_await recv(ch);
    };
    auto k = ex.spawn(killer());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(code, errc::cancelled);
    EXPECT_EQ(later, 3);
}

TEST(recv_operation, after_the_first_receiver_values_queue_in_order_behind_a_full_ring) {
    executor ex{test::virtual_clock()};
    channel<int, 1> ch{"ch"};
    int got1 = 0;
    std::vector<int> rest;
    std::vector<errc> sent;
    // r1 (low priority) waits first and gets 1 but runs last; 2 fills the
    // ring, 3 waits for room, and r2 takes them in order.
    auto receiver1 = [&]() -> task<> { got1 = *co_await recv(ch); };
    auto r1 = ex.spawn(receiver1(), 0);
    auto sender = [&]() -> task<> {
        co_await weft::sleep_for(1ms);
        for (int v = 1; v <= 3; ++v) sent.push_back((co_await send(ch, v)).code());
    };
    auto s = ex.spawn(sender(), 1);
    auto receiver2 = [&]() -> task<> {
        co_await weft::sleep_for(1ms);
        for (int i = 0; i < 2; ++i) rest.push_back(*co_await recv(ch));
    };
    auto r2 = ex.spawn(receiver2(), 1);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got1, 1);
    EXPECT_EQ(rest, (std::vector<int>{2, 3}));
    EXPECT_EQ(sent, (std::vector<errc>{errc::ok, errc::ok, errc::ok}));
    EXPECT_EQ(ch.size(), 0u);
}

TEST(recv_operation, a_choose_queued_behind_the_first_receiver_gets_the_second_value) {
    executor ex{test::virtual_clock()};
    channel<int, 2> ch{"ch"};
    int first = 0, chosen = 0;
    auto direct = [&]() -> task<> { first = *co_await recv(ch); };
    auto chooser = [&]() -> task<> { chosen = *co_await choose(recv(ch), wrap(timeout(5ms), [] { return -1; })); };
    auto a = ex.spawn(direct());
    auto b = ex.spawn(chooser());
    auto sender = [&]() -> task<> {
        co_await weft::sleep_for(1ms);
        (void)co_await send(ch, 10);
        (void)co_await send(ch, 20);
    };
    auto s = ex.spawn(sender());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(first, 10);
    EXPECT_EQ(chosen, 20);
}
