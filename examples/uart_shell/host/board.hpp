// SPDX-License-Identifier: Apache-2.0
#pragma once
// uart_shell's host board: a simulated UART (a socket pair) and a
// simulated LED (weft_port/sim). host/main.cpp and host/test.cpp define
// the objects and main().
#include <weft_port/sim/led.hpp>
#include <weft_port/sim/uart.hpp>

namespace board {
using uart = weft::sim::uart;
using led = weft::sim::led;
}  // namespace board
