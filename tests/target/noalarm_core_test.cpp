// SPDX-License-Identifier: Apache-2.0
// core_test.cpp built without the port's alarm (-DWEFT_TIMER_ALARM=0 on
// the whole firmware: tests/target/CMakeLists.txt): the executor then
// reads the clock at every switch while a timer is armed, and each wait
// arms and disarms its own shot. Same tests, the other path.
#include "core_test.cpp"
