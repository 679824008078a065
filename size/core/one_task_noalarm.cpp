// SPDX-License-Identifier: Apache-2.0
// Footprint row "core" without the port's alarm (-DWEFT_TIMER_ALARM=0):
// one_task.cpp's program, whose one task never switches to another while
// its timer is armed, so the alarm would cost flash and save nothing.
#define WEFT_TIMER_ALARM 0
#include "one_task.cpp"
