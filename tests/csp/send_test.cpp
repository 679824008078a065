// SPDX-License-Identifier: Apache-2.0
// The direct awaiter of `co_await send(ch, v)` (send_operation).
#include <weft/csp/choose.hpp>
#include <weft/csp/recv.hpp>
#include <weft/csp/send.hpp>
#include <weft/csp/wrap.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>

#include <vector>

using namespace weft;
using namespace weft::csp;

TEST(send_operation, cancelled_before_the_sync_sends_nothing) {
    executor ex{test::virtual_clock()};
    channel<int, 1> ch{"ch"};
    errc code = errc::ok;
    auto worker = [&]() -> task<> {
        co_await weft::sleep_for(1ms);
        code = (co_await send(ch, 5)).code();
    };
    auto w = ex.spawn(worker());
    w->cancel();
    ex.run();
    EXPECT_EQ(code, errc::cancelled);
    EXPECT_EQ(ch.size(), 0u);  // there was room, but the sync did not happen
}

TEST(send_operation, cancelled_while_blocked_withdraws_its_value) {
    executor ex{test::virtual_clock()};
    channel<int> ch{"ch"};
    errc code = errc::ok;
    auto worker = [&]() -> task<> { code = (co_await send(ch, 5)).code(); };
    auto w = ex.spawn(worker());
    auto killer = [&]() -> task<> {
        co_await weft::sleep_for(1ms);
        w->cancel();
    };
    auto k = ex.spawn(killer());
    ex.run();
    EXPECT_EQ(code, errc::cancelled);
    EXPECT_EQ(ch.try_recv().code(), errc::empty);
}

TEST(send_operation, close_ends_a_blocked_send_with_closed) {
    executor ex{test::virtual_clock()};
    channel<int, 1> ch{"ch"};
    (void)ch.try_send(1);
    errc code = errc::ok;
    auto worker = [&]() -> task<> { code = (co_await send(ch, 2)).code(); };
    auto w = ex.spawn(worker());
    auto closer = [&]() -> task<> {
        co_await weft::sleep_for(1ms);
        ch.close();
    };
    auto c = ex.spawn(closer());
    ex.run();
    EXPECT_EQ(code, errc::closed);
    EXPECT_EQ(*ch.try_recv(), 1);  // the buffered value is still there
}

TEST(send_operation, a_named_event_keeps_its_value_while_suspended) {
    executor ex{test::virtual_clock()};
    channel<int> ch{"ch"};
    int got = 0;
    auto sender = [&]() -> task<> {
        auto ev = send(ch, 42);
        EXPECT_TRUE(co_await std::move(ev));
    };
    auto s = ex.spawn(sender());
    auto receiver = [&]() -> task<> {
        co_await weft::sleep_for(1ms);
        got = *co_await recv(ch);
    };
    auto r = ex.spawn(receiver());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got, 42);
}

// The first sender (channel.hpp): on a rendezvous, a direct send that must
// wait while no other sender does is recorded by the channel, and the next
// receive of any kind moves its value out and wakes it.

TEST(send_operation, the_first_sender_is_served_before_the_senders_queued_behind_it) {
    executor ex{test::virtual_clock()};
    channel<int> ch{"ch"};
    std::vector<int> got;
    int ok_sends = 0;
    auto sender = [&](int v) -> task<> { ok_sends += bool(co_await send(ch, v)); };
    auto s1 = ex.spawn(sender(1));  // waits as the first sender
    auto s2 = ex.spawn(sender(2));  // queues an offer behind it
    auto s3 = ex.spawn(sender(3));
    auto receiver = [&]() -> task<> {
        co_await weft::sleep_for(1ms);
        got.push_back(*co_await recv(ch));                                    // direct
        got.push_back(*co_await choose(wrap(recv(ch), [](int v) { return v * 10; })));  // general
        got.push_back(*ch.try_recv());                                        // without waiting
        EXPECT_EQ(ch.try_recv().code(), errc::empty);
    };
    auto r = ex.spawn(receiver());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got, (std::vector<int>{1, 20, 3}));
    EXPECT_EQ(ok_sends, 3);
}

TEST(send_operation, the_first_sender_hands_its_value_to_a_choose_that_comes_later) {
    executor ex{test::virtual_clock()};
    channel<int> a{"a"}, b{"b"};
    int got = 0;
    auto sender = [&]() -> task<> { EXPECT_TRUE(co_await send(b, 9)); };
    auto s = ex.spawn(sender());
    auto receiver = [&]() -> task<> {
        co_await weft::sleep_for(1ms);
        got = *co_await choose(recv(a), recv(b));
    };
    auto r = ex.spawn(receiver());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got, 9);
}

TEST(send_operation, a_cancelled_first_sender_leaves_the_channel_to_the_next_one) {
    executor ex{test::virtual_clock()};
    channel<int> ch{"ch"};
    errc first = errc::ok, second = errc::invalid;
    auto send1 = [&]() -> task<> { first = (co_await send(ch, 1)).code(); };
    auto send2 = [&]() -> task<> { second = (co_await send(ch, 2)).code(); };
    auto send3 = [&]() -> task<> { EXPECT_TRUE(co_await send(ch, 3)); };
    auto s1 = ex.spawn(send1());
    auto s2 = ex.spawn(send2());
    std::vector<int> got;
    auto receiver = [&]() -> task<> {
        co_await weft::sleep_for(1ms);
        s1->cancel();
        got.push_back(*co_await recv(ch));
        EXPECT_EQ(ch.try_recv().code(), errc::empty);
        // The channel records a new first sender after the old one left.
        auto s3 = ex.spawn(send3());
        co_await weft::sleep_for(1ms);
        got.push_back(*co_await recv(ch));
    };
    auto r = ex.spawn(receiver());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(first, errc::cancelled);
    EXPECT_EQ(second, errc::ok);
    EXPECT_EQ(got, (std::vector<int>{2, 3}));
}

TEST(send_operation, close_ends_the_first_sender_with_closed_and_delivers_nothing) {
    executor ex{test::virtual_clock()};
    channel<int> ch{"ch"};
    errc code = errc::ok;
    auto sender = [&]() -> task<> { code = (co_await send(ch, 1)).code(); };
    auto s = ex.spawn(sender());
    auto closer = [&]() -> task<> {
        co_await weft::sleep_for(1ms);
        ch.close();
        EXPECT_EQ(ch.try_recv().code(), errc::closed);
    };
    auto c = ex.spawn(closer());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(code, errc::closed);
}

TEST(send_operation, a_rendezvous_receiver_waiting_first_gets_the_next_send) {
    executor ex{test::virtual_clock()};
    channel<int> ch{"ch"};
    std::vector<int> got;
    auto receiver = [&](int id) -> task<> { got.push_back(id * 100 + *co_await recv(ch)); };
    auto r1 = ex.spawn(receiver(1));  // waits as the first receiver
    auto r2 = ex.spawn(receiver(2));  // queues an offer behind it
    auto sender = [&]() -> task<> {
        co_await weft::sleep_for(1ms);
        EXPECT_TRUE(co_await send(ch, 7));  // moved into r1's slot
        EXPECT_TRUE(co_await send(ch, 8));  // to r2's offer
    };
    auto s = ex.spawn(sender());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got, (std::vector<int>{107, 208}));
}
