// SPDX-License-Identifier: Apache-2.0
// Bad input to channels and driver connections (audit of the rule "bad
// input gets a clear error and loses nothing"): messages name the object
// and the limit, and what is not lost still arrives afterwards.
#include <weft/csp/connect.hpp>
#include <weft/csp/recv.hpp>
#include <weft_port/sim/periodic_timer.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>

#include <cstdint>
#include <vector>

using namespace weft;
using namespace weft::csp;

// The receive-side refusals name the channel; neither changes it: the
// buffered values come out in order after a refused send, and after the
// close until the channel is drained.
TEST(bad_input, try_recv_and_try_send_refusals_name_the_channel_and_change_nothing) {
    channel<int, 2> ch{"rx"};
    result<int> none = ch.try_recv();
    EXPECT_EQ(none.code(), errc::empty);
    EXPECT_STREQ(none.err().message().c_str(), "channel 'rx': empty");
    EXPECT_TRUE(ch.try_send(1));
    EXPECT_TRUE(ch.try_send(2));
    auto full = ch.try_send(3);
    ASSERT_FALSE(full);
    EXPECT_STREQ(full.err().message().c_str(), "channel 'rx': full (limit 2)");
    EXPECT_EQ(full.value(), 3);
    EXPECT_EQ(ch.size(), 2u);
    ch.close();
    auto late = ch.try_send(4);
    EXPECT_STREQ(late.err().message().c_str(), "channel 'rx': closed");
    EXPECT_EQ(late.value(), 4);
    EXPECT_EQ(*ch.try_recv(), 1);
    EXPECT_EQ(*ch.try_recv(), 2);
    result<int> drained = ch.try_recv();
    EXPECT_EQ(drained.code(), errc::closed);
    EXPECT_STREQ(drained.err().message().c_str(), "channel 'rx': closed");
}

// A flood of interrupts into a driver whose FIFO (8 ticks) nobody empties:
// the ticks that found it full are reported once, by the driver's name and
// its FIFO's limit, through the connection; the 8 it holds are delivered
// in order, and the FIFO takes ticks again afterwards.
TEST(bad_input, a_driver_fifo_overflow_is_reported_once_and_later_input_still_flows) {
    executor ex{test::virtual_clock()};
    sim::periodic_timer tim{"tim"};  // period 0: ticks by hand
    channel<std::uint32_t> ch{"ticks"};
    auto c = connect(ex, ch, tim);
    int accepted = 0;
    bool after = false;
    std::vector<std::uint32_t> got;
    auto t = [&]() -> task<> {
        for (int i = 0; i < 10; ++i) accepted += tim.tick() ? 1 : 0;  // ticks 8 and 9 are lost
        for (int i = 0; i < 8; ++i) {
            auto v = co_await recv(ch);
            got.push_back(v ? *v : 999);
        }
        after = tim.tick();
        auto v = co_await recv(ch);
        got.push_back(v ? *v : 999);
    };
    auto h = ex.spawn(t());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(accepted, 8);
    EXPECT_TRUE(after);
    EXPECT_EQ(got, (std::vector<std::uint32_t>{0, 1, 2, 3, 4, 5, 6, 7, 10}));
    EXPECT_EQ(c.errors(), 1u);
    EXPECT_EQ(c.last_error().code, errc::overflow);
    EXPECT_STREQ(c.last_error().message().c_str(), "timer 'tim': ticks missed (limit 8)");
    EXPECT_EQ(c.transferred(), 9u);
}
