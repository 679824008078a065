// SPDX-License-Identifier: Apache-2.0
// Channels and events on the board, with the real port clock and real
// interrupts: rendezvous, buffered, choose, timeout on the port clock,
// drivers as channels (an ISR posting to a channel, an ISR overflow
// reported as an error value, the UART's TX interrupt draining a channel).
#include "target_test.hpp"

#include <weft/core.hpp>
#include <weft/csp.hpp>
#include <weft_port/board/button.hpp>
#include <weft_port/board/led.hpp>
#include <weft_port/board/uart.hpp>
#include <weft_port/mps2.hpp>

using namespace weft;
using namespace weft::csp;
using namespace std::chrono_literals;
namespace mps2 = weft::port::mps2;

namespace {

frame_pool<512, 4> frames{"csp_frames"};

bool streq(const char* a, const char* b) {
    while (*a && *a == *b) ++a, ++b;
    return *a == *b;
}

// Software interrupt 31 plays a device; each test says what it does.
void (*soft_isr)() = nullptr;

board::button but0{"but0", 0};
board::led led0{"led0", 0};
board::uart<16, 8> uart0{"uart0"};

}  // namespace

extern "C" void weft_irq_handler_31() {
    if (soft_isr) soft_isr();
}
WEFT_BOARD_UART_HANDLERS(uart0, 0, 1)

static_assert(input_bridge<board::button, bool>);
static_assert(output_bridge<board::led, bool>);
static_assert(input_bridge<board::uart<>::rx_driver, std::uint8_t>);
static_assert(output_bridge<board::uart<>::tx_driver, std::uint8_t>);

WEFT_TARGET_TEST(channel, rendezvous_ping_pong) {
    executor ex;
    channel<int> ping{"ping"}, pong{"pong"};
    int sum = 0, wrong = 0;
    auto a = [&]() -> task<> {
        for (int i = 1; i <= 100; ++i) {
            (void)co_await send(ping, i);
            auto r = co_await recv(pong);
            if (!r || *r != -i) ++wrong; else sum += i;
        }
    };
    auto b = [&]() -> task<> {
        for (int i = 0; i < 100; ++i) (void)co_await send(pong, -*co_await recv(ping));
    };
    auto ha = ex.spawn(a());
    auto hb = ex.spawn(b());
    WEFT_REQUIRE(ha && hb);
    WEFT_CHECK(ex.run() == run_outcome::completed);
    WEFT_CHECK_EQ(wrong, 0);
    WEFT_CHECK_EQ(sum, 5050);
}

WEFT_TARGET_TEST(channel, buffered_keeps_order_and_reports_full) {
    channel<int, 4> ch{"buf"};
    for (int i = 0; i < 4; ++i) WEFT_CHECK(ch.try_send(i));
    auto r = ch.try_send(99);
    WEFT_REQUIRE(!r);
    WEFT_CHECK_EQ(r.value(), 99);  // handed back, not lost
    WEFT_CHECK(streq(r.err().message().c_str(), "channel 'buf': full (limit 4)"));
    executor ex;
    int order_errors = 0;
    auto t = [&]() -> task<> {
        for (int i = 0; i < 4; ++i)
            if (*co_await recv(ch) != i) ++order_errors;
        co_return;
    };
    auto h = ex.spawn(t());
    WEFT_REQUIRE(h);
    WEFT_CHECK(ex.run() == run_outcome::completed);
    WEFT_CHECK_EQ(order_errors, 0);
    WEFT_CHECK(ch.try_recv().code() == errc::empty);
}

WEFT_TARGET_TEST(choose, one_branch_commits_the_other_is_withdrawn) {
    executor ex;
    channel<int> a{"a"}, b{"b"};
    int which = -1;
    errc late = errc::ok;
    auto chooser = [&]() -> task<> {
        auto r = co_await choose(wrap(recv(a), [](int v) { return v; }),
                                 wrap(recv(b), [](int v) { return 100 + v; }));
        which = *r;
    };
    auto sender = [&]() -> task<> {
        (void)co_await send(b, 1);
        late = a.try_send(2).code();  // the offer on `a` must be gone
    };
    auto c = ex.spawn(chooser());
    auto s = ex.spawn(sender());
    WEFT_REQUIRE(c && s);
    WEFT_CHECK(ex.run() == run_outcome::completed);
    WEFT_CHECK_EQ(which, 101);
    WEFT_CHECK(late == errc::full);
}

WEFT_TARGET_TEST(timeout, commits_on_the_port_clock) {
    executor ex;  // real clock: the executor sleeps in WFI until the alarm
    channel<int> quiet{"quiet"};
    std::uint64_t start = 0, end = 0;
    int got = 0;
    auto t = [&]() -> task<> {
        start = port::now_ns();
        auto r = co_await choose(recv(quiet), wrap(timeout(2ms), [] { return -1; }));
        end = port::now_ns();
        got = *r;
    };
    auto h = ex.spawn(t());
    WEFT_REQUIRE(h);
    WEFT_CHECK(ex.run() == run_outcome::completed);
    WEFT_CHECK_EQ(got, -1);
    WEFT_CHECK(end - start >= 2'000'000);
    WEFT_CHECK(end - start < 2'010'000);
    WEFT_CHECK(quiet.try_send(1).code() == errc::full);  // recv offer withdrawn
}

namespace {
volatile bool level = false;
void toggle_button() {
    level = !level;
    but0.inject(level);
    (void)but0.sample();
}
void bounce_40_edges() {
    for (int i = 0; i < 40; ++i) toggle_button();
}
}  // namespace

WEFT_TARGET_TEST(connect, isr_posts_to_a_channel) {
    executor ex;
    channel<bool> bchan{"bchan"}, lchan{"lchan"};
    auto b = connect(ex, bchan, but0);
    auto l = connect(ex, lchan, led0);
    soft_isr = &toggle_button;
    mps2::enable_irq(mps2::soft_irq0);
    int wrong = 0;
    auto t = [&]() -> task<> {
        for (int i = 0; i < 10; ++i) {
            mps2::pend_irq(mps2::soft_irq0);  // the button's interrupt
            auto v = co_await recv(bchan);
            if (!v || *v != (i % 2 == 0)) ++wrong;
            (void)co_await send(lchan, *v);
            if (led0.on() != (i % 2 == 0)) ++wrong;
        }
    };
    auto h = ex.spawn(t());
    WEFT_REQUIRE(h);
    WEFT_CHECK(ex.run() == run_outcome::completed);
    soft_isr = nullptr;
    WEFT_CHECK_EQ(wrong, 0);
    WEFT_CHECK_EQ(b.transferred(), 10u);
    WEFT_CHECK_EQ(l.transferred(), 10u);
    WEFT_CHECK_EQ(b.errors(), 0u);
}

WEFT_TARGET_TEST(connect, isr_overflow_is_reported_as_an_error) {
    executor ex;
    channel<bool, 4> bchan{"bchan"};
    auto b = connect(ex, bchan, but0);
    soft_isr = &bounce_40_edges;  // 40 edges in one interrupt: the FIFO holds 16
    std::size_t got = 0;
    auto t = [&]() -> task<> {
        mps2::pend_irq(mps2::soft_irq0);
        co_await sleep_for(100us);  // interrupt handled, channel (4) + FIFO (16) full
        while (bchan.try_recv()) ++got;
        co_await sleep_for(100us);
        while (bchan.try_recv()) ++got;
    };
    auto h = ex.spawn(t());
    WEFT_REQUIRE(h);
    WEFT_CHECK(ex.run() == run_outcome::completed);
    soft_isr = nullptr;
    WEFT_CHECK_EQ(got, 16u);
    WEFT_CHECK_EQ(b.errors(), 1u);
    WEFT_CHECK(streq(b.last_error().message().c_str(),
                     "button 'but0': edges lost, interrupt queue full (limit 16)"));
}

WEFT_TARGET_TEST(connect, uart_tx_written_before_a_connection_is_an_error) {
    // The transmitter is off until a connection attaches: a byte written
    // then would vanish and leave the driver waiting for a TX interrupt.
    status early = uart0.tx().write(std::uint8_t('!'));
    WEFT_CHECK(!early);
    WEFT_CHECK(streq(early.err().message().c_str(), "uart 'uart0': tx written before it was connected"));
    WEFT_CHECK_EQ(uart0.sent(), 0u);
}

WEFT_TARGET_TEST(connect, uart_tx_interrupt_drains_a_channel) {
    executor ex;
    channel<std::uint8_t, 4> tx{"uart_tx"};
    auto w = connect(ex, tx, uart0.tx());
    std::uint32_t before = uart0.sent();
    auto t = [&]() -> task<> {
        for (int i = 0; i < 40; ++i) (void)co_await send(tx, std::uint8_t('a' + i % 26));
        // The last bytes are still in the channel and the driver's FIFO.
        for (int spin = 0; spin < 100 && uart0.sent() - before < 40; ++spin) co_await sleep_for(10us);
    };
    auto h = ex.spawn(t());
    WEFT_REQUIRE(h);
    WEFT_CHECK(ex.run() == run_outcome::completed);
    WEFT_CHECK_EQ(uart0.sent() - before, 40u);
    WEFT_CHECK_EQ(w.transferred(), 40u);
    WEFT_CHECK_EQ(w.errors(), 0u);
}

WEFT_TARGET_TEST(connect, uart_tx_write_into_a_full_fifo_is_an_error) {
    executor ex;
    channel<std::uint8_t> tx{"uart_tx"};
    auto w = connect(ex, tx, uart0.tx());  // the driver posts this executor
    std::uint32_t before = uart0.sent();
    status last{};
    int accepted = 0;
    {
        // With the TX interrupt masked nothing drains: the FIFO fills.
        port::critical_section cs;
        for (int i = 0; i < 20 && last; ++i) {
            last = uart0.tx().write(std::uint8_t('x'));
            if (last) ++accepted;
        }
    }
    WEFT_CHECK_EQ(accepted, 9);  // one in the transmit register + 8 queued
    WEFT_CHECK(streq(last.err().message().c_str(), "uart 'uart0': tx FIFO full (limit 8)"));
    auto t = [&]() -> task<> {
        for (int spin = 0; spin < 100 && uart0.sent() - before < 9; ++spin) co_await sleep_for(10us);
    };
    auto h = ex.spawn(t());
    WEFT_REQUIRE(h);
    WEFT_CHECK(ex.run() == run_outcome::completed);
    WEFT_CHECK_EQ(uart0.sent() - before, 9u);  // the queued bytes went out
    WEFT_CHECK(uart0.tx().writable() == 8u);
}

WEFT_TARGET_TEST(frame_report, csp_frames_fit_their_pool) {
    print_frame_report();
    WEFT_CHECK(frame_allocator::record_count() > 0);
}
