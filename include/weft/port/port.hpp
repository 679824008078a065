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
//   bool in_handler() noexcept;
//       True while an interrupt handler runs (on a board: the exception
//       number in IPSR; on the host: inside a simulated source's handler).
//       Debug builds use it to stop executor-only calls made from there.
//
//   inline constexpr bool small_code;
//       True where flash matters more than a few instructions per call
//       (microcontrollers): the core then keeps rarely hot paths, such as
//       the frame allocator's remembered-pool fast path, out of line.
//
//   Optional: an alarm (inline constexpr bool has_alarm = true), an
//   interrupt that tells the executor its next timer is due, so that with
//   timers armed it does not read the clock before every switch (without
//   one, has_alarm is false and run() looks at the clock whenever a timer
//   is armed):
//     volatile bool* set_alarm_flag(volatile bool* flag) noexcept;
//         The alarm's handler sets *flag (if not null); returns the flag
//         it set before. Thread mode.
//     bool watch_deadline(std::uint64_t deadline_ns) noexcept;
//         Arms the alarm for deadline_ns, replacing the previous shot; if
//         it has passed, sets the flag at once and returns true. The flag
//         may be set early (a shot shorter than the wait): the executor
//         then looks at its timers, finds none due and watches again.
//
//   inline constexpr bool single_core;
//       True where interrupt handlers are the only other code that runs,
//       on the same core (bare metal): the hand-off to the executor then
//       needs no memory barriers, only compiler fences (isr_atomic). The
//       critical_section must then mask every handler that calls weft.
//
// The static_asserts below name a piece that is missing or has the wrong
// signature. What they cannot check, a new port must still provide:
//   - fatal() does not return, and critical_section nests;
//   - std::snprintf and std::strcmp that do not allocate (the frame report
//     and error messages use snprintf; newlib's pulls in malloc, so the
//     Cortex-M port brings its own, ports/cortex-m/src/format.cpp);
//   - start-up that runs static constructors before main() (a frame_pool
//     registers itself in its constructor); destructors need not run where
//     small_code is true (pools are then trivially destructible);
//   - function-local statics without __cxa_guard_* on one core
//     (-fno-threadsafe-statics), or the guards;
//   - optional: <weft_port/led.hpp> (led_count, led_set, led_get: examples).
// Checklist for a new board: docs/port-cortex-m.md, "Porting to another board".
#include <weft_port/platform.hpp>

#include <concepts>
#include <cstddef>
#include <cstdint>

// Stand-ins for what a port leaves out, so that a missing piece is reported
// by the static_assert that names it (below) rather than as "'now_ns' was
// not declared" inside the core. The using-directive makes them visible in
// weft::port only where the port declares no such name: a name the port
// declares hides its stand-in, for qualified (port::x) and unqualified
// lookup alike. Every stand-in has a type no check accepts.
namespace weft::port_missing {
struct missing_piece {};
struct waker : missing_piece {};
struct critical_section : missing_piece {
    critical_section() = delete;
};
template <class... A> missing_piece now_ns(A&&...) noexcept;
template <class... A> missing_piece fatal(A&&...) noexcept;
template <class... A> missing_piece console_write(A&&...) noexcept;
template <class... A> missing_piece target_name(A&&...) noexcept;
template <class... A> missing_piece in_handler(A&&...) noexcept;
inline constexpr missing_piece small_code{};
inline constexpr missing_piece single_core{};
// The alarm is optional: without one, has_alarm is false and the rest is
// declared only, for code under `if constexpr (port::has_alarm)`.
inline constexpr bool has_alarm = false;
volatile bool* set_alarm_flag(volatile bool*) noexcept;
bool watch_deadline(std::uint64_t) noexcept;
}  // namespace weft::port_missing

namespace weft::port {

using namespace weft::port_missing;

/// Deadline meaning "no timer pending: wait for notify() only".
inline constexpr std::uint64_t no_deadline = ~std::uint64_t{0};

template <class W>
concept waker_like = std::default_initializable<W> && requires(W w, std::uint64_t t) {
    { w.wait_until(t) } noexcept;
    { w.notify() } noexcept;
    { w.wait([] { return true; }) } noexcept;
};

static_assert(waker_like<waker>,
              "the port must provide a default-constructible class weft::port::waker with "
              "noexcept wait_until(std::uint64_t), wait(ready) and notify()");
static_assert(requires { { now_ns() } noexcept -> std::same_as<std::uint64_t>; },
              "the port must provide std::uint64_t weft::port::now_ns() noexcept");
static_assert(std::default_initializable<critical_section> && std::destructible<critical_section>,
              "the port must provide a default-constructible RAII "
              "weft::port::critical_section");
static_assert(requires(const char* s, std::size_t n) { { console_write(s, n) } noexcept -> std::same_as<void>; },
              "the port must provide void weft::port::console_write(const char*, std::size_t) noexcept");
static_assert(requires { { target_name() } noexcept -> std::same_as<const char*>; },
              "the port must provide const char* weft::port::target_name() noexcept");
static_assert(requires { { in_handler() } noexcept -> std::same_as<bool>; },
              "the port must provide bool weft::port::in_handler() noexcept");
static_assert(requires(const char* s) { { fatal(s) } noexcept -> std::same_as<void>; },
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
