// SPDX-License-Identifier: Apache-2.0
#include <weft/csp/connect.hpp>
#include <weft/csp/recv.hpp>
#include <weft/csp/send.hpp>
#include <weft/csp/wrap.hpp>
#include <weft_port/sim/button.hpp>
#include <weft_port/sim/led.hpp>
#include <weft_port/sim/periodic_timer.hpp>
#include <weft_port/sim/uart.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>

#include <string>
#include <vector>

using namespace weft;
using namespace weft::csp;

static_assert(input_bridge<sim::button, bool>);
static_assert(output_bridge<sim::led, bool>);
static_assert(input_bridge<sim::uart::rx_driver, std::uint8_t>);
static_assert(output_bridge<sim::uart::tx_driver, std::uint8_t>);
static_assert(input_bridge<sim::periodic_timer, std::uint32_t>);

TEST(connect, button_to_led_through_rendezvous_channels) {
    executor ex{test::virtual_clock()};
    sim::button but0{"but0"};
    sim::led led0{"led0"};
    channel<bool> bchan{"bchan"}, lchan{"lchan"};
    auto b = connect(ex, bchan, but0);
    auto l = connect(ex, lchan, led0);
    std::vector<bool> seen;
    auto blink = [&]() -> task<> {
        for (int i = 0; i < 4; ++i) {
            auto v = co_await recv(bchan);
            (void)co_await send(lchan, *v);
            seen.push_back(led0.on());
        }
    };
    auto script = [&]() -> task<> {
        but0.press();
        co_await sleep_for(1ms);
        but0.release();
        but0.press();  // two edges queued in the driver: none lost
        co_await sleep_for(1ms);
        but0.release();
    };
    auto h = ex.spawn(blink());
    auto s = ex.spawn(script());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(seen, (std::vector<bool>{true, false, true, false}));
    EXPECT_EQ(led0.writes(), 4u);
    EXPECT_EQ(b.transferred(), 4u);
    EXPECT_EQ(l.errors(), 0u);
}

TEST(connect, driver_overflow_is_reported_not_silent) {
    executor ex{test::virtual_clock()};
    sim::button but0{"but0"};
    channel<bool, 4> bchan{"bchan"};
    auto b = connect(ex, bchan, but0);
    int pushed = 0;
    for (int i = 0; i < 40; ++i) pushed += but0.press() ? 1 : 0;
    std::size_t got = 0;
    auto t = [&]() -> task<> {
        co_await sleep_for(1ms);  // the interrupt is handled, channel fills (4) + driver (16)
        while (bchan.try_recv()) ++got;
        co_await sleep_for(1ms);
        while (bchan.try_recv()) ++got;
    };
    auto h = ex.spawn(t());
    ex.run();
    EXPECT_EQ(pushed, 16);
    EXPECT_EQ(got, 16u);
    EXPECT_EQ(b.errors(), 1u);
    EXPECT_STREQ(b.last_error().message().c_str(),
                 "button 'but0': edges lost, interrupt queue full (limit 16)");
}

TEST(connect, closed_channel_is_recorded_by_the_connection) {
    executor ex{test::virtual_clock()};
    sim::periodic_timer tim{"tim"};
    channel<std::uint32_t> ch{"ticks"};
    auto c = connect(ex, ch, tim);
    auto t = [&]() -> task<> {
        (void)tim.tick();
        co_await sleep_for(1ms);  // the tick waits as a send offer
        ch.close();
        co_return;
    };
    auto h = ex.spawn(t());
    ex.run();
    EXPECT_EQ(c.errors(), 1u);
    EXPECT_STREQ(c.last_error().message().c_str(), "channel 'ticks': closed");
}

TEST(connect, uart_bytes_arrive_in_order_over_the_socket_pair) {
    executor ex{{"uart_test", clock_mode::real}};
    sim::uart u{"console"};
    channel<std::uint8_t, 8> rx{"uart_rx"}, tx{"uart_tx"};
    auto r = connect(ex, rx, u.rx());
    auto w = connect(ex, tx, u.tx());
    std::string got;
    auto t = [&]() -> task<> {
        while (got.size() < 5) got.push_back(char(*co_await recv(rx)));
        for (char c : std::string("ok")) (void)co_await send(tx, std::uint8_t(c));
        ex.request_stop();
    };
    auto h = ex.spawn(t());
    u.inject("hello", 5);
    EXPECT_EQ(ex.run(), run_outcome::stopped);
    EXPECT_EQ(got, "hello");
    char back[2];
    ASSERT_EQ(::read(u.peer_fd(), back, 2), 2);
    EXPECT_EQ(std::string(back, 2), "ok");
}
