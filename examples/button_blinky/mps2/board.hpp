// SPDX-License-Identifier: Apache-2.0
#pragma once
// button_blinky's MPS2 board (Cortex-M, QEMU mps2-an386/an385): FPGAIO
// push button 0 and user LED 0 (weft_port/board).
#include <weft_port/board/button.hpp>
#include <weft_port/board/led.hpp>

namespace board {
extern weft::board::button but0;
extern weft::board::led led0;
}  // namespace board
