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

/// t + d in nanoseconds for a time t >= 0 (clocks and logical times start
/// at 0; d may be negative), or the largest value if that overflows: a
/// deadline `duration::max()` away is never, not the past.
constexpr std::int64_t later(std::int64_t t, std::int64_t d) noexcept {
    // With t >= 0 the sum wrapped iff it is negative although d > 0 (the
    // sign test first: on the usual path it is the only one, two
    // instructions on Thumb-2).
    const auto s = static_cast<std::int64_t>(static_cast<std::uint64_t>(t) + static_cast<std::uint64_t>(d));
    return s < 0 && d > 0 ? INT64_MAX : s;
}
/// later() on an instant.
constexpr time_point later(time_point t, duration d) noexcept {
    return time_point{duration{later(t.time_since_epoch().count(), d.count())}};
}
/// An instant as a timer deadline: one before the clock's epoch is due at
/// once (0), where to_ns() would read it as far in the future.
constexpr std::uint64_t due_ns(time_point t) noexcept {
    const std::int64_t n = t.time_since_epoch().count();
    return n < 0 ? 0 : std::uint64_t(n);
}
/// The longest relative delay of a sleep or timeout: 2^62 ns, 146 years.
/// A longer one (`duration::max()`: never) is cut to it, so that a clock
/// reading below 2^62 ns plus the delay cannot overflow into the past.
inline constexpr duration longest_delay{std::int64_t(1) << 62};

/// A relative delay as sleeps and timeouts use it: 0 if negative (due at
/// once), at most longest_delay. Folded at compile time for a constant
/// delay, so the await itself pays nothing.
[[gnu::always_inline]] constexpr duration bounded_delay(duration d) noexcept {
    const std::int64_t n = d.count();  // plain integers: folded even at -Os
    return duration{n < 0 ? 0 : n > longest_delay.count() ? longest_delay.count() : n};
}

using namespace std::chrono_literals;

}  // namespace weft
