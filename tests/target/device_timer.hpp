// SPDX-License-Identifier: Apache-2.0
#pragma once
// An "external device" for board tests: the second half of the MPS2 dual
// timer, which interrupts once after a given number of 40 ns ticks (IRQ 10,
// shared with the port's alarm; the test defines weft_dualtimer2_handler).
#include <weft_port/mps2.hpp>

#include <cstdint>

namespace weft::target_test {

inline void device_fire_after(std::uint32_t ticks) noexcept {
    auto& t = port::mps2::dualtimer2();
    t.control = 0;
    t.intclr = 1;
    t.load = ticks;
    t.control = port::mps2::dualtimer_enable | port::mps2::dualtimer_oneshot | port::mps2::dualtimer_32bit |
                port::mps2::dualtimer_irq_enable;
}

}  // namespace weft::target_test
