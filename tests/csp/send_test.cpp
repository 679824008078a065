// SPDX-License-Identifier: Apache-2.0
// The direct awaiter of `co_await send(ch, v)` (send_operation).
#include <weft/csp/recv.hpp>
#include <weft/csp/send.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>

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
