// SPDX-License-Identifier: Apache-2.0
#pragma once
// uart_shell's application (shell.cpp) and what it needs from the board: a
// UART and an LED. main.cpp (interactive, real clock) and test.cpp (scripted,
// virtual clock) are two boards for the same application.
#include <weft/core/executor.hpp>
#include <weft_port/sim/led.hpp>
#include <weft_port/sim/uart.hpp>

/// Connects the UART and the LED to the shell's channels and spawns its
/// tasks. `ex` must outlive the program's static objects (the connections
/// are function-local statics). Stops in port::fatal if a task cannot start.
void start_shell(weft::executor& ex, weft::sim::uart& uart, weft::sim::led& led);
