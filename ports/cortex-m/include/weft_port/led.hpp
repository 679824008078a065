// SPDX-License-Identifier: Apache-2.0
#pragma once
// User LEDs of the board: the MPS2 FPGAIO LED register (0x40028000), two
// LEDs on AN385/AN386. The host port has the same interface, simulated.
#include <weft_port/mps2.hpp>

namespace weft::port {

/// Number of user LEDs.
inline constexpr unsigned led_count = 2;

/// Switches LED `i` (< led_count) on or off. Not ISR-safe against itself
/// (read-modify-write); does not allocate.
inline void led_set(unsigned i, bool on) noexcept {
    auto& r = mps2::fpgaio_leds();
    r = on ? (r | (1u << i)) : (r & ~(1u << i));
}

/// State of LED `i`, read back from the board.
inline bool led_get(unsigned i) noexcept { return (mps2::fpgaio_leds() >> i) & 1u; }

}  // namespace weft::port
