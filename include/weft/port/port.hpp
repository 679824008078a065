// SPDX-License-Identifier: Apache-2.0
#pragma once
// The one interface between weft and a platform. The core reaches the
// platform only through the names declared here; each folder under ports/
// provides <weft_port/platform.hpp> with their definitions, and the build
// puts exactly one such folder on the include path.
//
// A port provides, in namespace weft::port:
//
//   std::uint64_t now_ns() noexcept;
//       Monotonic clock in nanoseconds since an arbitrary origin.
//       Callable from an ISR or a foreign thread.
//
//   class waker {
//     void wait_until(std::uint64_t deadline_ns) noexcept;
//         Sleeps (never spins) until the clock reaches deadline_ns or
//         notify() is called; deadline_ns == no_deadline waits for notify
//         only. A notify() that happened since the previous wait_until
//         returned makes the next call return at once (the wake is latched).
//     template <class Ready> void wait(Ready ready) noexcept;
//         wait_until(no_deadline) that also returns once ready() is true.
//         On a single-core port ready() is checked with interrupts masked,
//         so a handler that makes it true needs no notify(); elsewhere the
//         one that makes it true must notify(). Returning because of
//         ready() may leave the latched notify for the next wait.
//     void notify() noexcept;
//         Interrupt-safe and callable from a foreign thread.
//   };
//
//   class critical_section;   // RAII: masks interrupts (or takes the port
//                             // lock) for its lifetime; nests.
//
//   [[noreturn]] void fatal(const char* message) noexcept;
//       Programmer error only (WEFT_ASSERT); never for bad input.
//
//   void console_write(const char* text, std::size_t length) noexcept;
//       Diagnostic output (stdout on the host, semihosting on a board).
//
//   const char* target_name() noexcept;   // "host-x86_64", "cortex-m4", ...
//
//   inline constexpr bool small_code;
//       True where flash matters more than a few instructions per call
//       (microcontrollers): the core then keeps rarely hot paths, such as
//       the frame allocator's remembered-pool fast path, out of line.
//
//   inline constexpr bool single_core;
//       True where interrupt handlers are the only other code that runs,
//       on the same core (bare metal): the hand-off to the executor then
//       needs no memory barriers, only compiler fences (isr_atomic).
#include <weft_port/platform.hpp>

#include <concepts>
#include <cstddef>
#include <cstdint>

namespace weft::port {

/// Deadline meaning "no timer pending: wait for notify() only".
inline constexpr std::uint64_t no_deadline = ~std::uint64_t{0};

template <class W>
concept waker_like = requires(W w, std::uint64_t t) {
    { w.wait_until(t) } noexcept;
    { w.notify() } noexcept;
    { w.wait([] { return true; }) } noexcept;
};

static_assert(waker_like<waker>,
              "the port must provide weft::port::waker with noexcept "
              "wait_until(std::uint64_t), wait(ready) and notify()");
static_assert(requires { { now_ns() } noexcept -> std::same_as<std::uint64_t>; },
              "the port must provide std::uint64_t weft::port::now_ns() noexcept");
static_assert(requires { critical_section{}; },
              "the port must provide a default-constructible RAII "
              "weft::port::critical_section");
static_assert(requires(const char* s, std::size_t n) {
    { console_write(s, n) } noexcept;
    { target_name() } noexcept -> std::same_as<const char*>;
}, "the port must provide console_write(const char*, std::size_t) and target_name()");
static_assert(requires(const char* s) { { fatal(s) } noexcept; },
              "the port must provide [[noreturn]] void weft::port::fatal(const char*) noexcept");
static_assert(std::same_as<decltype(small_code), const bool>,
              "the port must provide `inline constexpr bool weft::port::small_code`");
static_assert(std::same_as<decltype(single_core), const bool>,
              "the port must provide `inline constexpr bool weft::port::single_core`");

}  // namespace weft::port

/// Checks a programmer's precondition; never used for what input can cause.
#define WEFT_ASSERT(cond, msg)                                   \
    do {                                                         \
        if (!(cond)) ::weft::port::fatal("weft: " msg);          \
    } while (0)
