// SPDX-License-Identifier: Apache-2.0
#pragma once
// Superdense time: a tag is (time, microstep). Time is logical time in
// nanoseconds since the program started; the microstep orders events that
// share a time (a zero-delay action or `after 0` lands one microstep later).
// Tags are totally ordered, lexicographically.
#include <weft/core/time.hpp>

#include <cstdint>

namespace weft::reactors {

/// A point on the logical timeline. Plain value type; no invariants.
struct tag {
    std::int64_t time = 0;        ///< nanoseconds since start of the program
    std::uint32_t microstep = 0;  ///< order among tags with the same time

    // always_inline: a call costs more than the comparison (GCC 12 -Os
    // outlines them, three calls per tag in the scheduler loop).
    [[gnu::always_inline]] friend constexpr bool operator==(const tag& a, const tag& b) noexcept {
        return a.time == b.time && a.microstep == b.microstep;
    }
    [[gnu::always_inline]] friend constexpr bool operator<(const tag& a, const tag& b) noexcept {
        return a.time != b.time ? a.time < b.time : a.microstep < b.microstep;
    }
    [[gnu::always_inline]] friend constexpr bool operator<=(const tag& a, const tag& b) noexcept { return !(b < a); }
    [[gnu::always_inline]] friend constexpr bool operator>(const tag& a, const tag& b) noexcept { return b < a; }

    /// Elapsed logical time as a duration (readable in traces: `t.elapsed() == 10ms`).
    constexpr duration elapsed() const noexcept { return duration{time}; }
};

/// The tag that is never reached (no event pending, no stop requested).
/// Its time is the end of time: an event there never fires.
inline constexpr tag never_tag{INT64_MAX, UINT32_MAX};

// weft::later (core/time.hpp): t + d, saturating at the end of time, so
// a time never wraps into the past.

/// The tag of an event scheduled `d` after `now`: the same time one
/// microstep later if d is zero (superdense time), else (now + d, 0).
/// Saturates: at the end of time if now + d overflows (the event never
/// fires, as LF's FOREVER), at microstep UINT32_MAX if the microstep would
/// wrap (basic_environment::post refuses that one as an overflow).
constexpr tag delay_tag(tag now, duration d) noexcept {
    if (d.count() <= 0) return tag{now.time, now.microstep + (now.microstep != UINT32_MAX)};
    return tag{later(now.time, d.count()), 0};
}

}  // namespace weft::reactors
