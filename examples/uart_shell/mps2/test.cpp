// SPDX-License-Identifier: Apache-2.0
// uart_shell's test board on the MPS2 (CTest target.uart_shell): the
// terminal is QEMU's end of UART0's wire, which holds the whole script
// (mps2/typed.txt) from the start; qemu-run compares what the shell
// transmits with mps2/replies.txt byte for byte.
//
// The wire delivers a byte whenever the UART's receive register is empty,
// at a pace set by the host, not by the board's clock; under -icount an
// idle board's clock jumps to its next deadline at once. A shell that read
// the script while it trickled in would see its 2 s line timeout expire in
// the middle of a line, or its uptime jump, depending on the host. So the
// terminal types the whole script ahead: the RX FIFO takes it before the
// shell starts, and from then on the run is a function of the instruction
// count only. Typed at once, every reply comes at once, except the timed
// ones: the sleeps' "ok" (100 and 500 ms) and the unfinished last line's
// error (2 s). The board stops at 3 s.
#include "shell.hpp"

#include <weft/core.hpp>
#include <weft/core/frame_report.hpp>
#include <weft/csp.hpp>

#include "frame_sizes.hpp"

namespace board {
weft::frame_pool<frame_sizes::uart_shell_slot_bytes, frame_sizes::uart_shell_slots> frames{"uart_shell"};
weft::frame_pool<frame_sizes::uart_shell_big_slot_bytes, frame_sizes::uart_shell_big_slots> big_frames{
    "uart_shell_big"};
// The test's own task (stop()): the smallest slots, so it takes none of the shell's.
weft::frame_pool<frame_sizes::test_slot_bytes, frame_sizes::test_slots> test_frames{"test"};
uart uart0{"uart0"};
led led0{"led0", 0, /*verbose=*/true};
}  // namespace board

WEFT_BOARD_UART_HANDLERS(board::uart0, 0, 1)

namespace {
// mps2/typed.txt's size (CMake passes it).
constexpr std::size_t typed_bytes = UART_SHELL_TYPED_BYTES;
static_assert(typed_bytes < 256, "mps2/typed.txt must fit board::uart's RX FIFO (256 bytes, board.hpp)");

// Enables reception and sleeps (WFI) until the RX FIFO holds the whole
// script. The driver is attached with a node of its own, not through a
// connection: a connection pumps at once, and a byte that landed between
// the enable and that pump would be moved into its channel, out of the
// shell's reach (1 run in a few hundred, depending on when the host's
// QEMU thread hands over the first byte). The executor does not run, so
// the node's posts are withdrawn, unhandled, before it goes. Before the
// shell starts: its uptime does not count this wait.
void type_ahead(weft::executor& ex) {
    weft::irq_node typed{[](weft::irq_node*) noexcept {}};
    board::uart0.rx().attach(ex, typed);
    weft::port::waker w;  // nobody notifies it: each RX interrupt ends a WFI, then the test
    w.wait([] { return board::uart0.rx().readable() >= typed_bytes; });
    board::uart0.rx().detach();
    (void)ex.withdraw_post(typed);
}

void say(const char* s) {
    std::size_t n = 0;
    while (s[n]) ++n;
    weft::port::console_write(s, n);
}
}  // namespace

int main() {
    static weft::executor ex{{"uart_shell", weft::clock_mode::real}};
    type_ahead(ex);
    start_shell(ex, board::uart0, board::led0);
    auto stop = []() -> weft::task<> {
        co_await weft::sleep_for(std::chrono::seconds(3));
        // Every reply has reached the transmit register (QEMU puts it on the wire at once).
        ex.request_stop();
    };
    if (auto h = ex.spawn(stop()); !h) weft::port::fatal(h.err().message().c_str());
    ex.run();
    weft::print_frame_report();
    bool ok = board::led0.writes() == 2 && !board::led0.on() && board::uart0.rx().readable() == 0;
    say(ok ? "uart_shell done\n" : "uart_shell: FAILED (led0 or unread input)\n");
    return ok ? 0 : 1;
}
