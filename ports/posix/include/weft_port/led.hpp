// SPDX-License-Identifier: Apache-2.0
#pragma once
// Simulated user LEDs for the host port (same interface as the boards'
// weft_port/led.hpp): the state lives in memory.
#include <atomic>

namespace weft::port {

/// Number of simulated user LEDs.
inline constexpr unsigned led_count = 2;

namespace detail {
inline std::atomic<unsigned> simulated_leds{0};
}

/// Switches LED `i` (< led_count) on or off. Does not allocate.
inline void led_set(unsigned i, bool on) noexcept {
    if (on) detail::simulated_leds.fetch_or(1u << i, std::memory_order_relaxed);
    else detail::simulated_leds.fetch_and(~(1u << i), std::memory_order_relaxed);
}

/// State of LED `i`.
inline bool led_get(unsigned i) noexcept {
    return (detail::simulated_leds.load(std::memory_order_relaxed) >> i) & 1u;
}

}  // namespace weft::port
