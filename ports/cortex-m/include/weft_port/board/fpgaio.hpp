// SPDX-License-Identifier: Apache-2.0
#pragma once
// The MPS2 FPGA I/O block at 0x40028000 (AN385/AN386; QEMU hw/misc/
// mps2-fpgaio.c): user LEDs and push buttons. The buttons have no
// interrupt line on these boards, so a driver samples them from an
// interrupt the application chooses (a timer, a pin-change line on real
// hardware). QEMU models the register but no way to press a button: it
// always reads 0; button.hpp therefore has a test hook.
#include <weft_port/mps2.hpp>

#include <cstdint>

namespace weft::board::fpgaio {

/// LED0 register (offset 0x00): bit i drives user LED i.
inline volatile std::uint32_t& leds() noexcept { return port::mps2::fpgaio_leds(); }
/// BUTTON register (offset 0x08): bit i reads 1 while button i is held.
inline volatile std::uint32_t& buttons() noexcept {
    return *reinterpret_cast<volatile std::uint32_t*>(0x40028008u);
}

/// User LEDs and buttons on AN385/AN386.
inline constexpr unsigned led_count = 2;
inline constexpr unsigned button_count = 2;

}  // namespace weft::board::fpgaio
