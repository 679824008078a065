// SPDX-License-Identifier: Apache-2.0
// One connection per asynchronous driver at a time: a second connect()
// while the first connection is open would take over the driver's
// interrupt node (the first would stop being woken), so the driver's
// attach() stops the program, naming it. Once the first connection is
// closed or destroyed, the driver connects again and nothing is lost.
// Synchronous drivers never post and are not limited.
#include <weft/csp/connect.hpp>
#include <weft/csp/recv.hpp>
#include <weft/csp/send.hpp>
#include <weft_port/sim/button.hpp>
#include <weft_port/sim/led.hpp>
#include <weft_port/sim/periodic_timer.hpp>
#include <weft_port/sim/uart.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>

#include <cstdint>
#include <string>
#include <vector>

using namespace weft;
using namespace weft::csp;

namespace {

void connect_a_button_twice() {
    executor ex{test::virtual_clock()};
    sim::button but0{"but0"};
    channel<bool> first{"first"}, second{"second"};
    auto a = connect(ex, first, but0);
    auto b = connect(ex, second, but0);
}

void connect_a_timer_twice() {
    executor ex{test::virtual_clock()};
    sim::periodic_timer tim{"tick0"};  // period 0: no thread
    channel<std::uint32_t> ticks{"ticks"};
    auto a = connect(ex, ticks, tim);
    auto b = connect(ex, ticks, tim);  // even on the same channel
}

void connect_a_uart_rx_twice() {
    executor ex{test::virtual_clock()};
    sim::uart u{"console"};
    channel<std::uint8_t, 8> rx{"uart_rx"};
    auto a = connect(ex, rx, u.rx());
    auto b = connect(ex, rx, u.rx());
}

}  // namespace

TEST(connect, a_second_connect_of_a_button_stops_the_program_naming_it) {
    EXPECT_DEATH(connect_a_button_twice(),
                 "weft: button 'but0': already connected \\(close the first connection before connecting it again\\)");
}

TEST(connect, a_second_connect_of_a_timer_stops_the_program_naming_it) {
    EXPECT_DEATH(connect_a_timer_twice(),
                 "weft: timer 'tick0': already connected \\(close the first connection before connecting it again\\)");
}

// The message names the UART's half: its TX half is another driver.
TEST(connect, a_second_connect_of_a_uart_rx_stops_the_program_naming_it) {
    EXPECT_DEATH(connect_a_uart_rx_twice(),
                 "weft: uart rx 'console': already connected "
                 "\\(close the first connection before connecting it again\\)");
}

// close() detaches the driver, so the same driver connects again; an edge
// that came in between waits in the driver for the second connection.
TEST(connect, a_button_connects_again_after_close_and_delivers) {
    executor ex{test::virtual_clock()};
    sim::button but0{"but0"};
    channel<bool, 4> first{"first"}, second{"second"};
    auto c1 = connect(ex, first, but0);
    EXPECT_TRUE(but0.press());
    std::vector<bool> got;
    auto t = [&]() -> task<> {
        got.push_back(*co_await recv(first));
        EXPECT_FALSE(c1.close());  // the press was delivered: nothing held
        but0.release();            // while nothing is connected
        auto c2 = connect(ex, second, but0);
        but0.press();
        for (int i = 0; i < 2; ++i) got.push_back(*co_await recv(second));
        EXPECT_EQ(c2.transferred(), 2u);
    };
    auto h = ex.spawn(t());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got, (std::vector<bool>{true, false, true}));
    EXPECT_EQ(c1.transferred(), 1u);
}

// Destroying the first connection detaches the driver as close() does.
TEST(connect, a_timer_connects_again_after_its_connection_is_destroyed) {
    executor ex{test::virtual_clock()};
    sim::periodic_timer tim{"tick0"};
    channel<std::uint32_t, 4> ticks{"ticks"};
    {
        auto gone = connect(ex, ticks, tim);
        EXPECT_TRUE(tim.tick());
    }
    auto c = connect(ex, ticks, tim);
    EXPECT_TRUE(tim.tick());
    std::vector<std::uint32_t> got;
    auto t = [&]() -> task<> {
        while (got.size() < 2) got.push_back(*co_await recv(ticks));
    };
    auto h = ex.spawn(t());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got, (std::vector<std::uint32_t>{0, 1}));
    EXPECT_EQ(c.errors(), 0u);
}

// The UART's reader thread keeps running across the two connections; the
// second one receives the bytes delivered after the first was closed.
TEST(connect, a_uart_rx_connects_again_after_close_and_delivers) {
    executor ex{test::virtual_clock()};
    sim::uart u{"console"};
    channel<std::uint8_t, 8> first{"first"}, second{"second"};
    std::string got;
    auto t = [&]() -> task<> {
        {
            auto c1 = connect(ex, first, u.rx());
            EXPECT_TRUE(u.deliver("ab", 2));
            while (got.size() < 2) got.push_back(char(*co_await recv(first)));
            EXPECT_FALSE(c1.close());
        }
        auto c2 = connect(ex, second, u.rx());
        EXPECT_TRUE(u.deliver("cd", 2));
        while (got.size() < 4) got.push_back(char(*co_await recv(second)));
        EXPECT_EQ(c2.transferred(), 2u);
    };
    auto h = ex.spawn(t());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got, "abcd");
}

// An LED is written on the executor's thread and never posts: connecting
// it twice at once is allowed (two channels drive one LED).
TEST(connect, a_synchronous_driver_may_be_connected_twice) {
    executor ex{test::virtual_clock()};
    sim::led led0{"led0"};
    channel<bool> a{"a"}, b{"b"};
    auto la = connect(ex, a, led0);
    auto lb = connect(ex, b, led0);
    auto t = [&]() -> task<> {
        EXPECT_TRUE(co_await send(a, true));
        EXPECT_TRUE(co_await send(b, false));
    };
    auto h = ex.spawn(t());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(led0.writes(), 2u);
    EXPECT_FALSE(led0.on());
}
