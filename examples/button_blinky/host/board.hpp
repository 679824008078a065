// SPDX-License-Identifier: Apache-2.0
#pragma once
// button_blinky's host board: a simulated button and LED (weft_port/sim).
#include <weft_port/sim/button.hpp>
#include <weft_port/sim/led.hpp>

namespace board {
extern weft::sim::button but0;
extern weft::sim::led led0;
}  // namespace board
