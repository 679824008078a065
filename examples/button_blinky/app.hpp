// SPDX-License-Identifier: Apache-2.0
#pragma once
// The interface between button_blinky's application (app.cpp, the same on
// every board) and a board part (host/ or mps2/): the board defines but0 and
// led0 in board.hpp and calls start() from its main().
#include <weft/core/executor.hpp>

#include "board.hpp"

/// Connects the button and LED channels and spawns the blinky task.
void start(weft::executor& ex);
