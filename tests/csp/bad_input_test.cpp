// SPDX-License-Identifier: Apache-2.0
// Bad input to channels and driver connections (audit of the rule "bad
// input gets a clear error and loses nothing"): messages name the object
// and the limit, and what is not lost still arrives afterwards.
#include <weft/core/yield.hpp>
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

namespace {
// A driver that breaks bridge.hpp's contract: its read() fails without
// consuming the failure, `fails` times (for ever if negative), while
// readable() stays 1; then it gives 7 once.
struct stuck_sensor {
    int fails;
    bool given = false;
    bool is_synchronous() const noexcept { return false; }
    void attach(executor&, irq_node&) noexcept {}
    void detach() noexcept {}
    std::size_t readable() const noexcept { return given ? 0 : 1; }
    result<int> read() noexcept {
        if (fails < 0 || fails-- > 0) return error{errc::device, "sensor", "adc0", 0, "conversion failed"};
        given = true;
        return 7;
    }
};
static_assert(input_bridge<stuck_sensor, int>);
}  // namespace

// A driver that fails the same read for ever does not keep the executor
// in the connection: each failed read ends the connection's turn, so the
// task that notices the errors runs and closes it, and run() completes.
TEST(bad_input, a_driver_failing_for_ever_does_not_hold_the_executor) {
    executor ex{test::virtual_clock()};
    stuck_sensor adc{-1};
    channel<int> ch{"samples"};
    auto c = connect(ex, ch, adc);
    int turns = 0;
    auto watchdog = [&]() -> task<> {
        while (c.errors() < 5) {
            ++turns;
            co_await weft::yield();
        }
        (void)c.close();
    };
    auto h = ex.spawn(watchdog());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    // One failed read per turn: the task saw every error as it came.
    EXPECT_GE(turns, 3);
    EXPECT_EQ(c.errors(), 5u);
    EXPECT_STREQ(c.last_error().message().c_str(), "sensor 'adc0': conversion failed");
    EXPECT_EQ(c.transferred(), 0u);
}

// Failed reads end a turn without losing what follows: the value the
// driver gives after three failures arrives, and each failure is counted.
TEST(bad_input, values_after_driver_failures_still_arrive) {
    executor ex{test::virtual_clock()};
    stuck_sensor adc{3};
    channel<int> ch{"samples"};
    auto c = connect(ex, ch, adc);
    int got = 0;
    auto reader = [&]() -> task<> {
        auto v = co_await recv(ch);
        got = v ? *v : -1;
    };
    auto h = ex.spawn(reader());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got, 7);
    EXPECT_EQ(c.errors(), 3u);
    EXPECT_EQ(c.transferred(), 1u);
}
