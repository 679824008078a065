// SPDX-License-Identifier: Apache-2.0
#pragma once
// Deadlines (LF `deadline(d) {= handler =}`): a bound on the lag between
// logical time and physical time when a reaction is about to run. If the
// physical clock is already later than the tag's time plus d, the handler
// runs instead of the body. The check happens just before the reaction
// would start (a reaction is never interrupted).
//
// As in LF's C runtime, a deadline of 0 is always violated: there, the
// physical clock has always moved past the tag by the time a reaction
// starts; weft makes this explicit so that it also holds on the virtual
// clock, where the lag can be exactly zero.
#include <weft/core/time.hpp>
#include <weft/reactor/detail/callback.hpp>

#include <cstdint>

namespace weft::reactors {

/// A deadline and its handler, passed to a reaction's constructor after
/// its body: `reaction r{*this, "r", on(t), [this]{...}, deadline(20us, [this]{...})};`
struct deadline_spec {
    duration bound;
    detail::callback handler;
};

/// Declares a deadline `d` with handler `h` (a lambda capturing `this`).
template <class F>
deadline_spec deadline(duration d, F&& h) noexcept {
    return deadline_spec{d, detail::callback(static_cast<F&&>(h))};
}

namespace detail {
/// True if a reaction with deadline `bound_ns` (>= 0) misses it when it
/// starts `lag_ns` after its tag's logical time.
constexpr bool deadline_missed(std::int64_t lag_ns, std::int64_t bound_ns) noexcept {
    return bound_ns == 0 || lag_ns > bound_ns;
}
}  // namespace detail

}  // namespace weft::reactors
