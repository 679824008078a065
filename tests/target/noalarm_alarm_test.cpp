// SPDX-License-Identifier: Apache-2.0
// alarm_test.cpp built without the port's alarm (-DWEFT_TIMER_ALARM=0 on
// the whole firmware: tests/target/CMakeLists.txt): timers must be just as
// much on time while tasks yield when the executor finds them by reading
// the clock.
#include "alarm_test.cpp"
