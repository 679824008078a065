// SPDX-License-Identifier: Apache-2.0
#pragma once
// Cortex-M port (ARMv7-M: Cortex-M3 and Cortex-M4), for the QEMU MPS2
// boards. Implements the interface described in <weft/port/port.hpp>:
//
//   now_ns()          CMSDK APB timer 0, free running at 25 MHz, extended
//                     to 64 bits by its wrap interrupt (IRQ 8).
//   waker             WFI sleep; the deadline is armed on the CMSDK dual
//                     timer (IRQ 10); notify() is one store, ISR-safe.
//   critical_section  PRIMASK, saved and restored, so it nests.
//   console_write()   semihosting SYS_WRITE to the host's stdout.
//   fatal()           message + semihosting exit with status 2.
//
// Under `qemu-system-arm -icount shift=0` one instruction advances the
// virtual clock by 1 ns, so now_ns() differences count instructions (with a
// 40 ns = 40 instruction tick). Startup, vector table and the interrupt
// handlers are in ports/cortex-m/src/.
#include <weft_port/mps2.hpp>

#include <cstddef>
#include <cstdint>

namespace weft::port {

namespace cortex_m {

[[gnu::always_inline]] inline std::uint32_t primask() noexcept {
    std::uint32_t v;
    __asm volatile("mrs %0, primask" : "=r"(v)::"memory");
    return v;
}
[[gnu::always_inline]] inline void set_primask(std::uint32_t v) noexcept {
    __asm volatile("msr primask, %0" ::"r"(v) : "memory");
}
[[gnu::always_inline]] inline void disable_interrupts() noexcept { __asm volatile("cpsid i" ::: "memory"); }
[[gnu::always_inline]] inline void enable_interrupts() noexcept { __asm volatile("cpsie i" ::: "memory"); }
/// Waits for an interrupt. With PRIMASK set, a pending interrupt still ends
/// the wait but its handler runs only after enable_interrupts().
[[gnu::always_inline]] inline void wait_for_interrupt() noexcept { __asm volatile("dsb\n\twfi" ::: "memory"); }

/// Upper 32 bits of the tick counter; incremented by the timer-0 handler.
inline volatile std::uint32_t clock_high = 0;

/// 64-bit tick count (25 MHz). Interrupt-safe.
inline std::uint64_t now_ticks() noexcept {
    std::uint32_t saved = primask();
    disable_interrupts();
    std::uint32_t hi = clock_high;
    std::uint32_t v = mps2::timer0().value;
    if (mps2::timer0().intstatus & 1u) {  // wrapped, handler not run yet
        ++hi;
        v = mps2::timer0().value;
    }
    set_primask(saved);
    return (std::uint64_t(hi) << 32) | std::uint32_t(0u - v);  // v == 0 is the first tick of period hi
}

/// Arms the alarm (dual timer 1, one shot) to interrupt after `ticks` ticks.
inline void arm_alarm(std::uint32_t ticks) noexcept {
    auto& t = mps2::dualtimer1();
    t.control = 0;
    t.intclr = 1;  // a previous shot's end, if not yet handled, is not this one's
    t.load = ticks;  // also loads value
    t.control = mps2::dualtimer_enable | mps2::dualtimer_oneshot | mps2::dualtimer_32bit |
                mps2::dualtimer_irq_enable;
}
inline void disarm_alarm() noexcept { mps2::dualtimer1().control = 0; }

/// Semihosting call (ARM DUI 0471, "Semihosting operations").
inline std::uint32_t semihost(std::uint32_t op, const void* arg) noexcept {
    register std::uint32_t r0 __asm("r0") = op;
    register const void* r1 __asm("r1") = arg;
    __asm volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

/// Ends the program (QEMU exits with `status`). SYS_EXIT_EXTENDED carries
/// a non-zero status; plain SYS_EXIT on 32-bit ARM cannot.
[[noreturn]] inline void exit(int status) noexcept {
    const std::uint32_t block[2] = {0x20026u /* ADP_Stopped_ApplicationExit */, std::uint32_t(status)};
    for (;;) semihost(0x20u /* SYS_EXIT_EXTENDED */, block);
}

}  // namespace cortex_m

/// Flash is the scarce resource: one out-of-line frame allocator call per
/// coroutine instead of an inlined fast path (docs/footprint.md).
inline constexpr bool small_code = true;

/// One core; its interrupt handlers are the only concurrency.
inline constexpr bool single_core = true;

/// Monotonic nanoseconds since reset (40 ns resolution). Interrupt-safe.
/// Out of line with the multiplication: each reader of the clock is a call.
[[gnu::noinline]] inline std::uint64_t now_ns() noexcept { return cortex_m::now_ticks() * mps2::ns_per_tick; }

/// The alarm (port.hpp, optional piece): dual timer 1 sets the running
/// executor's flag when its earliest timer is due, so that an executor
/// with timers armed does not read the clock before every switch.
/// -DWEFT_TIMER_ALARM=0 (for the whole build) leaves it out, about 60
/// bytes of flash: for a firmware whose tasks rarely switch while a timer
/// is armed, such as one periodic task (docs/port-cortex-m.md, "The port
/// interface on the board").
#ifndef WEFT_TIMER_ALARM
#define WEFT_TIMER_ALARM 1
#endif
inline constexpr bool has_alarm = WEFT_TIMER_ALARM != 0;

namespace cortex_m {
/// Set by the alarm's handler (startup.cpp); one word, so swapped without
/// masking.
inline volatile bool* alarm_flag = nullptr;

/// Tells the running executor (if any) that a timer may be due: the
/// alarm's handler at the end of a shot, watch_deadline() for a deadline
/// already passed.
[[gnu::always_inline]] inline void signal_alarm() noexcept {
    if (volatile bool* flag = alarm_flag) *flag = true;
}

/// Arms a shot toward `deadline_ns`, replacing any earlier one; false,
/// with nothing armed, if the deadline has passed. One shot is at most
/// ~4.3 s long, so that the division is 32-bit (no 700-byte
/// __aeabi_uldivmod): a longer wait takes several.
[[gnu::always_inline]] inline bool arm_alarm_for(std::uint64_t deadline_ns) noexcept {
    std::uint64_t now = now_ns();
    if (now >= deadline_ns) return false;
    std::uint64_t left = deadline_ns - now;  // at least 1
    std::uint32_t ns = (left >> 32) != 0 ? 0xFFFFFFFFu : std::uint32_t(left);
    arm_alarm((ns - 1) / mps2::ns_per_tick + 1);  // whole ticks, rounded up
    return true;
}
}  // namespace cortex_m

/// Makes the alarm's handler set `*flag` (the executor whose run() is
/// innermost); returns the flag it set before. Thread mode.
inline volatile bool* set_alarm_flag(volatile bool* flag) noexcept {
    volatile bool* before = cortex_m::alarm_flag;
    cortex_m::alarm_flag = flag;
    return before;
}

/// Arms the alarm for `deadline_ns`, or, if it has passed, sets the flag
/// at once and returns true. A shot that ends before the deadline (a long
/// one) sets the flag all the same: the executor, finding nothing due,
/// watches again.
[[gnu::noinline]] inline bool watch_deadline(std::uint64_t deadline_ns) noexcept {
    if (cortex_m::arm_alarm_for(deadline_ns)) return false;
    cortex_m::signal_alarm();
    return true;
}

/// Prints `message` and stops the program with exit status 2. Out of
/// line: every check that can stop the program is then a load and a call,
/// and the fault handler shares the body.
[[noreturn, gnu::noinline, gnu::cold]] inline void fatal(const char* message) noexcept {
    // SYS_WRITE0 takes the NUL-terminated string as is: no length loop,
    // which GCC would turn into a call to newlib's 220-byte strlen.
    cortex_m::semihost(0x04u /* SYS_WRITE0 */, message);
    cortex_m::semihost(0x04u /* SYS_WRITE0 */, "\n");
    cortex_m::exit(2);
}

namespace cortex_m {
// Debug builds: waiting inside a critical_section is a programming error
// the wait cannot honour. It ends by unmasking interrupts (its handler
// must run), so the section's code after the wait ran unprotected, with
// no sign of it. The sections are counted rather than PRIMASK read: a
// wait entered with interrupts masked by hand (cpsid, to pend an
// interrupt that must arrive during the sleep) is legitimate and tested.
// Release builds compile the count and the check away (the idle path
// and the footprint stay as they are).
#ifdef NDEBUG
inline constexpr bool check_wait_unmasked = false;
#else
inline constexpr bool check_wait_unmasked = true;
#endif
// Open critical_sections (Debug builds). Changed only with interrupts
// masked, and a handler's own sections end before it returns.
inline std::uint32_t critical_depth = 0;
[[noreturn, gnu::noinline, gnu::cold]] inline void waited_masked() noexcept {
    fatal("weft: executor: waits for work inside a critical_section: the wait unmasks interrupts, "
          "so the section would no longer mask them (end the section before run())");
}
[[gnu::always_inline]] inline void check_not_in_critical_section() noexcept {
    if constexpr (check_wait_unmasked) {
        if (critical_depth != 0) waited_masked();
    }
}
}  // namespace cortex_m

/// Sleep/wake for the one executor of the core.
///
/// wait_until() runs with interrupts masked while it decides to sleep and
/// executes WFI masked, so an interrupt that arrives between the check of
/// the latch and the WFI still ends the sleep (no lost wake-up); its
/// handler runs as soon as the mask is lifted.
class waker {
public:
    waker() noexcept = default;
    waker(const waker&) = delete;
    waker& operator=(const waker&) = delete;

    /// Returns when now_ns() >= deadline_ns or after notify(). Thread mode
    /// only (never from an ISR). Allocates nothing.
    [[gnu::always_inline]] void wait_until(std::uint64_t deadline_ns) noexcept {
        // Waiting for a notify alone (no timer pending) is the interrupt
        // hand-off's hot path: inline, no alarm to arm or disarm.
        if (deadline_ns == ~std::uint64_t{0}) wait([] { return false; });
        else wait_for(deadline_ns);
    }

    /// Waits for notify() like wait_until(no_deadline), or until ready()
    /// is true. ready() is evaluated with interrupts masked, so a handler
    /// that makes it true needs no notify(): it ran before the check or
    /// its interrupt ends the WFI. Returning because of ready() leaves a
    /// latched notify for the next wait.
    template <class Ready>
    [[gnu::always_inline]] void wait(Ready ready) noexcept {
        cortex_m::check_not_in_critical_section();
        cortex_m::disable_interrupts();
        while (!ready()) {
            if (pending_) {
                pending_ = false;
                break;
            }
            cortex_m::wait_for_interrupt();
            cortex_m::enable_interrupts();  // the waking handler runs here
            cortex_m::disable_interrupts();
        }
        cortex_m::enable_interrupts();
    }

    /// Ends the current or next wait_until(). Interrupt-safe (one store);
    /// the wake is latched until wait_until() consumes it.
    void notify() noexcept {
        pending_ = true;
    }

private:
    // Out of line: waiting for a deadline is the rarer path. With the
    // alarm, the shot it arms stays armed after a notify ends the wait: it
    // is the executor's watch of the same deadline (its earliest timer).
    [[gnu::noinline]] void wait_for(std::uint64_t deadline_ns) noexcept {
        cortex_m::check_not_in_critical_section();
        for (;;) {
            cortex_m::disable_interrupts();
            if (pending_) break;
            if constexpr (has_alarm) {
                if (watch_deadline(deadline_ns)) break;
            } else if (!cortex_m::arm_alarm_for(deadline_ns)) {
                break;
            }
            cortex_m::wait_for_interrupt();
            cortex_m::enable_interrupts();  // the waking handler runs here
        }
        pending_ = false;
        // Without the alarm nobody watches the shot: it would only end a
        // later wait for nothing.
        if constexpr (!has_alarm) cortex_m::disarm_alarm();
        cortex_m::enable_interrupts();
    }

    // volatile: written by handlers, read by the sleeping loop; a single
    // core needs no atomic read-modify-write (the reader masks interrupts).
    volatile bool pending_ = false;
};

/// Masks interrupts (PRIMASK) for its lifetime; nests (restores the mask it
/// found). Callable from thread mode and from handlers.
// Forced inline (as are the PRIMASK helpers): at -Os GCC 12 kept the
// constructor out of line, which turned every masked compare-and-swap of
// the interrupt hand-off (isr_atomic on one core) into a call.
class critical_section {
public:
    [[gnu::always_inline]] critical_section() noexcept : saved_(cortex_m::primask()) {
        cortex_m::disable_interrupts();
        if constexpr (cortex_m::check_wait_unmasked) ++cortex_m::critical_depth;
    }
    [[gnu::always_inline]] ~critical_section() {
        if constexpr (cortex_m::check_wait_unmasked) --cortex_m::critical_depth;
        cortex_m::set_primask(saved_);
    }
    critical_section(const critical_section&) = delete;
    critical_section& operator=(const critical_section&) = delete;

private:
    std::uint32_t saved_;
};

/// Writes to the host's stdout through semihosting. Slow (a trap to the
/// debugger/emulator): diagnostics only, never from a timing-critical ISR.
inline void console_write(const char* text, std::size_t length) noexcept {
    // The host console is the special file ":tt", opened for writing once.
    static std::uint32_t handle = 0;
    if (handle == 0) {
        const std::uint32_t open_block[3] = {reinterpret_cast<std::uint32_t>(":tt"), 4u /* "w" */, 3u};
        handle = cortex_m::semihost(0x01u /* SYS_OPEN */, open_block) + 1;
    }
    const std::uint32_t block[3] = {handle - 1, reinterpret_cast<std::uint32_t>(text), std::uint32_t(length)};
    cortex_m::semihost(0x05u /* SYS_WRITE */, block);
}

/// True in an exception handler (IPSR holds its number; 0 in thread mode).
[[gnu::always_inline]] inline bool in_handler() noexcept {
    std::uint32_t ipsr;
    __asm volatile("mrs %0, ipsr" : "=r"(ipsr));
    return (ipsr & 0x1FFu) != 0;
}

/// "cortex-m4" or "cortex-m3".
inline const char* target_name() noexcept {
#if defined(__ARM_ARCH_7EM__)
    return "cortex-m4";
#elif defined(__ARM_ARCH_7M__)
    return "cortex-m3";
#else
    return "cortex-m";
#endif
}

}  // namespace weft::port
