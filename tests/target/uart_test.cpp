// SPDX-License-Identifier: Apache-2.0
// UART0 with real bytes on its wire (CTest runs this firmware with
// `qemu-run --serial-in uart_rx.txt --serial-expect uart_tx.txt`): the RX
// interrupt feeds a channel through connect(), the connection is closed and
// made again for every line while bytes keep arriving, and each line goes
// back out upper-cased through the TX interrupt. The run fails here if a
// received byte is missing, repeated or out of order, and in qemu-run if
// the wire did not get exactly uart_tx.txt.
#include "target_test.hpp"

#include <weft/core.hpp>
#include <weft/csp.hpp>
#include <weft_port/board/uart.hpp>

#include <optional>

using namespace weft;
using namespace weft::csp;
using namespace std::chrono_literals;

namespace {

frame_pool<1024, 2> frames{"uart_frames"};

// The RX FIFO holds the whole input (288 bytes): between two connections
// QEMU keeps delivering, as fast as the RX interrupt empties the register,
// and a smaller FIFO would overflow (and say so) depending on host timing.
board::uart<512, 8> uart0{"uart0"};

constexpr int lines = 16;
constexpr int line_len = 18;  // "weft uart line NN\n"

void expected_line(int k, char (&out)[line_len]) {
    const char text[] = "weft uart line ";
    for (int i = 0; i < 15; ++i) out[i] = text[i];
    out[15] = char('0' + k / 10);
    out[16] = char('0' + k % 10);
    out[17] = '\n';
}

// Bytes that outlive a connection: what the channel still buffers, then the
// one the connection held (newer). At most 4 + 1.
struct stash {
    std::uint8_t bytes[8];
    int head = 0, tail = 0;
    void push(std::uint8_t b) { bytes[tail++ % 8] = b; }
    bool empty() const { return head == tail; }
    std::uint8_t pop() { return bytes[head++ % 8]; }
};

}  // namespace

WEFT_BOARD_UART_HANDLERS(uart0, 0, 1)

WEFT_TARGET_TEST(uart, rx_bytes_arrive_in_order_across_reconnects_and_echo_on_tx) {
    executor ex;
    channel<std::uint8_t, 4> rx{"uart_rx"}, tx{"uart_tx"};
    auto w = connect(ex, tx, uart0.tx());
    int wrong_lines = 0, connections = 0, held_bytes = 0;
    std::size_t rx_errors = 0;
    auto echo = [&]() -> task<> {
        stash left;
        for (int k = 0; k < lines; ++k) {
            char got[line_len], want[line_len];
            int n = 0;
            while (n < line_len && !left.empty()) got[n++] = char(left.pop());
            std::optional<std::uint8_t> held;
            {
                auto r = connect(ex, rx, uart0.rx());
                ++connections;
                while (n < line_len) got[n++] = char(*co_await recv(rx));
                held = r.close();
                rx_errors += r.errors();
            }
            while (auto b = rx.try_recv()) left.push(*b);
            if (held) { left.push(*held); ++held_bytes; }
            expected_line(k, want);
            bool same = true;
            for (int i = 0; i < line_len; ++i) same = same && got[i] == want[i];
            if (!same) ++wrong_lines;
            for (char c : got) {
                char up = (c >= 'a' && c <= 'z') ? char(c - 'a' + 'A') : c;
                (void)co_await send(tx, std::uint8_t(up));
            }
        }
        // Every echoed byte has reached the transmit register (QEMU puts it
        // on the wire at once) before the firmware exits.
        while (uart0.sent() < std::uint32_t(lines * line_len)) co_await sleep_for(50us);
    };
    auto h = ex.spawn(echo());
    WEFT_REQUIRE(h);
    WEFT_CHECK(ex.run() == run_outcome::completed);
    WEFT_CHECK_EQ(wrong_lines, 0);
    WEFT_CHECK_EQ(connections, lines);
    WEFT_CHECK_EQ(rx_errors, std::size_t(0));
    WEFT_CHECK_EQ(w.errors(), std::size_t(0));
    WEFT_CHECK_EQ(w.transferred(), std::size_t(lines * line_len));
    WEFT_CHECK_EQ(uart0.sent(), std::uint32_t(lines * line_len));
    // Not a pass condition (it depends on how fast QEMU's wire is), but
    // printed so a run shows whether close() had to hand a byte back.
    target_test::say("uart: ", held_bytes, " bytes handed back by close()\n");
}
