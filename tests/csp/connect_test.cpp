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

#include <algorithm>
#include <unistd.h>
#include <optional>
#include <string>
#include <thread>
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
    // The tick that could not be sent is handed back, not dropped.
    std::optional<std::uint32_t> held = c.close();
    EXPECT_TRUE(held);
}

// After its channel closes, an input connection reads the driver no
// further: later presses stay in the driver, reported once, none dropped.
TEST(connect, a_closed_channel_leaves_the_rest_in_the_driver) {
    executor ex{test::virtual_clock()};
    sim::button but0{"but0"};
    channel<bool> ch{"bchan"};
    auto c = connect(ex, ch, but0);
    auto t = [&]() -> task<> {
        but0.press();
        co_await sleep_for(1ms);  // `true` waits as a send offer
        ch.close();
        but0.release();
        but0.press();
        co_await sleep_for(1ms);
    };
    auto h = ex.spawn(t());
    ex.run();
    EXPECT_EQ(c.errors(), 1u);
    EXPECT_EQ(c.transferred(), 0u);
    std::optional<bool> held = c.close();
    ASSERT_TRUE(held);
    EXPECT_TRUE(*held);
    EXPECT_EQ(but0.readable(), 2u);  // release and press, still in the driver
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

// A burst 64 times the RX FIFO: the reader thread blocks while the FIFO
// is full and each read makes room, so every byte arrives, in order.
TEST(connect, a_uart_burst_larger_than_the_fifo_loses_nothing) {
    executor ex{{"uart_burst", clock_mode::real}};
    sim::uart u{"console"};
    channel<std::uint8_t, 8> rx{"uart_rx"};
    auto r = connect(ex, rx, u.rx());
    std::vector<std::uint8_t> burst(4096);
    for (std::size_t i = 0; i < burst.size(); ++i) burst[i] = std::uint8_t(i * 7 + i / 256);
    std::vector<std::uint8_t> got;
    auto t = [&]() -> task<> {
        while (got.size() < burst.size()) {
            result<std::uint8_t> b = co_await recv(rx);
            if (!b) break;
            got.push_back(*b);
        }
        ex.request_stop();
    };
    auto h = ex.spawn(t());
    u.inject(burst.data(), burst.size());
    EXPECT_EQ(ex.run(), run_outcome::stopped);
    EXPECT_EQ(got, burst);
    EXPECT_EQ(r.errors(), 0u);
}

TEST(connect, a_uart_with_a_full_rx_fifo_can_be_destroyed) {
    // More bytes arrived than the FIFO holds and nobody reads them: the
    // reader thread waits for room, and ~uart() must still end it.
    executor ex{{"uart_full", clock_mode::real}};
    irq_node node{[](irq_node*) noexcept {}};
    std::optional<sim::uart> u{std::in_place, "full"};
    u->rx().attach(ex, node);
    std::uint8_t burst[100] = {};
    u->inject(burst, sizeof burst);
    while (u->rx().readable() < 64) std::this_thread::yield();
    u->rx().detach();
    u.reset();  // hung for ever before the reader checked for closing
    SUCCEED();
}

TEST(connect, uart_tx_to_a_hung_up_wire_is_an_error_not_a_signal) {
    executor ex{test::virtual_clock()};
    sim::uart u{"console"};
    channel<std::uint8_t> tx{"uart_tx"};
    auto w = connect(ex, tx, u.tx());
    ::shutdown(u.peer_fd(), SHUT_RDWR);  // the other side hangs up: SIGPIPE killed the process
    auto t = [&]() -> task<> { (void)co_await send(tx, std::uint8_t('x')); };
    auto h = ex.spawn(t());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(w.errors(), 1u);
    EXPECT_STREQ(w.last_error().message().c_str(), "uart 'console': tx write failed");
}

TEST(connect, close_hands_back_the_held_value_and_the_driver_connects_again) {
    executor ex{test::virtual_clock()};
    sim::button but0{"but0"};
    channel<bool> first{"first"}, second{"second"};
    but0.press();
    but0.release();
    but0.press();
    auto c1 = connect(ex, first, but0);  // reads `true`, no receiver: holds it
    std::optional<bool> held = c1.close();
    ASSERT_TRUE(held);
    EXPECT_TRUE(*held);
    EXPECT_FALSE(c1.close());  // idempotent: nothing twice
    but0.release();            // arrives while nothing is connected
    auto c2 = connect(ex, second, but0);
    std::vector<bool> got;
    auto t = [&]() -> task<> {
        for (int i = 0; i < 3; ++i) got.push_back(*co_await recv(second));
    };
    auto h = ex.spawn(t());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got, (std::vector<bool>{false, true, false}));
    EXPECT_EQ(c1.transferred(), 0u);
    EXPECT_EQ(c2.transferred(), 3u);
}

// An output connection waits on its channel as the first receiver (the
// sender hands over inline, the channel calls the connection instead of
// waking a task). A task that receives meanwhile queues behind it, and the
// connection, re-offering after its write, queues behind the task: values
// go to whoever waited first.
TEST(connect, output_connection_waits_first_and_later_receivers_queue_behind_it) {
    executor ex{test::virtual_clock()};
    sim::led led0{"led0"};
    channel<bool> lchan{"lchan"};
    auto l = connect(ex, lchan, led0);
    std::vector<bool> task_got;
    auto receiver = [&]() -> task<> { task_got.push_back(*co_await recv(lchan)); };
    auto sender = [&]() -> task<> {
        co_await sleep_for(1ms);  // the receiver is queued behind the connection by now
        for (bool v : {true, false, true}) EXPECT_TRUE(co_await send(lchan, v));
    };
    auto r = ex.spawn(receiver());
    auto s = ex.spawn(sender());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(task_got, (std::vector<bool>{false}));  // the second value
    EXPECT_EQ(led0.writes(), 2u);                     // the first and the third
    EXPECT_TRUE(led0.on());
    EXPECT_EQ(l.transferred(), 2u);
}

// Closing the channel ends the connection's wait as first receiver: later
// sends fail with `closed`, and the LED is not written again.
TEST(connect, closing_the_channel_ends_an_output_connection_waiting_first) {
    executor ex{test::virtual_clock()};
    sim::led led0{"led0"};
    channel<bool> lchan{"lchan"};
    auto l = connect(ex, lchan, led0);
    auto t = [&]() -> task<> {
        EXPECT_TRUE(co_await send(lchan, true));
        lchan.close();
        status st = co_await send(lchan, false);
        EXPECT_EQ(st.code(), errc::closed);
    };
    auto h = ex.spawn(t());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(led0.writes(), 1u);
    EXPECT_TRUE(led0.on());
    // The closing is recorded, as an input connection records it.
    EXPECT_EQ(l.errors(), 1u);
    EXPECT_STREQ(l.last_error().message().c_str(), "channel 'lchan': closed");
    EXPECT_FALSE(l.close());  // nothing held
}

// A closed (or destroyed) output connection no longer waits on its
// channel: a value sent afterwards is not handed to it but waits for the
// next receiver.
TEST(connect, a_closed_output_connection_is_no_longer_the_first_receiver) {
    executor ex{test::virtual_clock()};
    sim::led led0{"led0"};
    channel<bool> lchan{"lchan"};
    {
        auto gone = connect(ex, lchan, led0);
    }
    auto l = connect(ex, lchan, led0);
    EXPECT_FALSE(l.close());
    auto refused = lchan.try_send(true);
    EXPECT_FALSE(refused);  // nobody receives
    std::vector<bool> got;
    auto receiver = [&]() -> task<> { got.push_back(*co_await recv(lchan)); };
    auto sender = [&]() -> task<> { EXPECT_TRUE(co_await send(lchan, true)); };
    auto r = ex.spawn(receiver());
    auto s = ex.spawn(sender());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got, (std::vector<bool>{true}));
    EXPECT_EQ(led0.writes(), 0u);
}

// The edge is posted (the connection's node is in the executor's interrupt
// queue) and then the connection is destroyed before run(): the queued
// post must not run on the dead connection (ASan would see it), and the
// edge must reach the next connection.
TEST(connect, destroying_a_connection_withdraws_its_queued_interrupt) {
    executor ex{test::virtual_clock()};
    sim::button but0{"but0"};
    channel<bool, 4> ch{"edges"};
    {
        auto c = connect(ex, ch, but0);
        EXPECT_TRUE(but0.press());  // posts c's node
    }
    EXPECT_TRUE(but0.release());  // detached: no post
    auto c2 = connect(ex, ch, but0);
    std::vector<bool> got;
    auto t = [&]() -> task<> {
        for (int i = 0; i < 2; ++i) got.push_back(*co_await recv(ch));
    };
    auto h = ex.spawn(t());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got, (std::vector<bool>{true, false}));
    EXPECT_EQ(c2.transferred(), 2u);
}

// A UART receives a stream (its reader thread plays the RX interrupt) while
// the executor connects, receives a few bytes and closes, over and over.
// Every byte arrives exactly once and in order: the held byte comes back
// from close(), the rest wait in the channel or the driver's FIFO.
TEST(connect, driver_reconnected_under_a_byte_flood_loses_nothing) {
    constexpr int total = 3000;
    executor ex{{"uart_flood", clock_mode::real}};
    sim::uart u{"uart0"};
    channel<std::uint8_t, 8> rx{"uart_rx"};
    std::string sent, got;
    for (int i = 0; i < total; ++i) sent.push_back(char(i * 7 % 251));
    std::thread wire([&] { u.inject(sent.data(), sent.size()); });
    int connections = 0;
    auto t = [&]() -> task<> {
        while (got.size() < sent.size()) {
            std::optional<std::uint8_t> held;
            {
                auto r = connect(ex, rx, u.rx());
                ++connections;
                for (int k = 1 + connections % 37; k > 0 && got.size() < sent.size(); --k)
                    got.push_back(char(*co_await recv(rx)));
                held = r.close();
            }
            while (auto b = rx.try_recv()) got.push_back(char(*b));  // older than `held`
            if (held) got.push_back(char(*held));
        }
    };
    auto h = ex.spawn(t());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    wire.join();
    EXPECT_EQ(got.size(), sent.size());
    EXPECT_TRUE(got == sent) << "first difference at "
                             << std::mismatch(got.begin(), got.end(), sent.begin()).first - got.begin();
    EXPECT_GE(connections, 50);  // about 3000 / (19 + up to 9 left over) on average
}
