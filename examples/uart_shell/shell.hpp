// SPDX-License-Identifier: Apache-2.0
#pragma once
// uart_shell's application (shell.cpp, the same on every board) and what it
// needs from the board: a UART and an LED. The board part's board.hpp
// names their types (board::uart, board::led): host/ (simulated UART and
// LED; main.cpp interactive, test.cpp scripted) and mps2/ (UART0 and LED 0
// of the MPS2 board) are the boards.
#include <weft/core/executor.hpp>

#include "board.hpp"

/// Connects the UART and the LED to the shell's channels and spawns its
/// tasks. `ex` must outlive the program's static objects (the connections
/// are function-local statics). Stops in port::fatal if a task cannot start.
void start_shell(weft::executor& ex, ::board::uart& uart, ::board::led& led);
