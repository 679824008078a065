// SPDX-License-Identifier: Apache-2.0
#pragma once
// The device of device_timer.hpp with the handler most board tests want:
// each interrupt is counted in `device_count` and runs `device_isr` if
// set. Include it in one test file of a firmware (it defines the
// handler); a test that needs another handler defines its own instead.
#include "device_timer.hpp"

namespace weft::target_test {

inline volatile unsigned device_count = 0;
inline void (*device_isr)() = nullptr;

}  // namespace weft::target_test

extern "C" void weft_dualtimer2_handler() {
    weft::port::mps2::dualtimer2().intclr = 1;
    weft::port::mps2::dualtimer2().control = 0;
    weft::target_test::device_count = weft::target_test::device_count + 1;
    if (weft::target_test::device_isr) weft::target_test::device_isr();
}
