// SPDX-License-Identifier: Apache-2.0
#pragma once
// Time in weft: durations are std::chrono::nanoseconds (so `10ms` works);
// instants are nanoseconds on the executor's clock, which is either the
// port's monotonic clock or a virtual clock that advances only when the
// executor is idle (tests).
#include <chrono>
#include <cstdint>

namespace weft {

/// Tag clock for weft instants; the executor decides what "now" is.
struct steady_clock_tag {
    using rep = std::int64_t;
    using period = std::nano;
    using duration = std::chrono::nanoseconds;
    using time_point = std::chrono::time_point<steady_clock_tag, duration>;
    static constexpr bool is_steady = true;
};

using duration = std::chrono::nanoseconds;
using time_point = steady_clock_tag::time_point;

/// Instant from raw nanoseconds and back (for ports and trace output).
constexpr time_point from_ns(std::uint64_t ns) noexcept {
    return time_point{duration{std::int64_t(ns)}};
}
constexpr std::uint64_t to_ns(time_point t) noexcept {
    return std::uint64_t(t.time_since_epoch().count());
}

using namespace std::chrono_literals;

}  // namespace weft
