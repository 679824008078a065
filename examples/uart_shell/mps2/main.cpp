// SPDX-License-Identifier: Apache-2.0
// uart_shell on the MPS2 board, for deployment: UART0 (115200 baud) and
// user LED 0; runs until reset. Under QEMU, type into it with
//
//     qemu-system-arm -M mps2-an386 -display none -monitor none -serial stdio
//         -semihosting-config enable=on,target=native -kernel uart_shell_device.elf
//
// The pools come from the frame report of the test board's run
// (mps2/frame_sizes.hpp); built with the report compiled out.
#include "shell.hpp"

#include <weft/core.hpp>

#include "frame_sizes.hpp"

namespace board {
weft::frame_pool<frame_sizes::uart_shell_slot_bytes, frame_sizes::uart_shell_slots> frames{"uart_shell"};
weft::frame_pool<frame_sizes::uart_shell_big_slot_bytes, frame_sizes::uart_shell_big_slots> big_frames{
    "uart_shell_big"};
uart uart0{"uart0"};
led led0{"led0", 0};
}  // namespace board

WEFT_BOARD_UART_HANDLERS(board::uart0, 0, 1)

int main() {
    static weft::executor ex{{"uart_shell", weft::clock_mode::real}};
    start_shell(ex, board::uart0, board::led0);
    ex.run();  // sleeps in WFI between interrupts
}
