// SPDX-License-Identifier: Apache-2.0
#pragma once
// uart_shell's MPS2 board (Cortex-M, QEMU mps2-an386/an385): UART0, the
// CMSDK APB UART, interrupt driven (weft_port/board/uart.hpp), and user
// LED 0 (FPGAIO). mps2/main.cpp defines the objects and main().
#include <weft_port/board/led.hpp>
#include <weft_port/board/uart.hpp>

namespace board {
// RX FIFO: 256 bytes, so a whole script typed at once (tests/...: every
// byte is on the wire from the start) waits there; TX FIFO: 16 bytes.
using uart = weft::board::uart<256, 16>;
using led = weft::board::led;
}  // namespace board
