// SPDX-License-Identifier: Apache-2.0
// The Cortex-M port against its contract (weft/port/port.hpp), with real
// NVIC interrupts. Runs under `qemu-run --icount`: virtual time advances by
// 1 ns per instruction and jumps over WFI sleeps, so the times are exact.
#include "device_timer.hpp"
#include "target_test.hpp"

#include <weft/port/port.hpp>
#include <weft_port/mps2.hpp>

#include <cstdarg>
#include <cstdio>

namespace {

namespace mps2 = weft::port::mps2;
using weft::port::now_ns;
using weft::target_test::device_fire_after;

weft::port::waker* isr_waker = nullptr;
volatile unsigned soft_irq_count = 0;
volatile unsigned device_irq_count = 0;
volatile std::uint64_t device_irq_at = 0;

constexpr std::uint64_t us = 1000;

}  // namespace

extern "C" void weft_irq_handler_31() {
    soft_irq_count = soft_irq_count + 1;
    if (isr_waker) isr_waker->notify();
}

extern "C" void weft_dualtimer2_handler() {
    mps2::dualtimer2().intclr = 1;
    mps2::dualtimer2().control = 0;
    device_irq_at = now_ns();
    device_irq_count = device_irq_count + 1;
    if (isr_waker) isr_waker->notify();
}

WEFT_TARGET_TEST(clock, advances_monotonically) {
    std::uint64_t prev = now_ns(), first = prev;
    for (int i = 0; i < 2000; ++i) {
        std::uint64_t t = now_ns();
        WEFT_REQUIRE(t >= prev);
        prev = t;
    }
    WEFT_CHECK(prev > first);
}

WEFT_TARGET_TEST(clock, counts_instructions_under_icount) {
    // 10'000 iterations of a 2-instruction loop, written in assembly so
    // that every compiler and -O level runs the same 20 000 instructions:
    // 20 us of virtual time, plus the clock reads (a few dozen).
    std::uint32_t n = 10000;
    std::uint64_t a = now_ns();
    __asm volatile("1: subs %0, %0, #1\n\tbne 1b" : "+r"(n) : : "cc");
    std::uint64_t d = now_ns() - a;
    WEFT_CHECK(d >= 20 * us);
    WEFT_CHECK(d <= 21 * us);
}

WEFT_TARGET_TEST(waker, wait_until_wakes_at_deadline) {
    weft::port::waker w;
    std::uint64_t t0 = now_ns();
    std::uint64_t deadline = t0 + 500 * us;
    w.wait_until(deadline);
    std::uint64_t t1 = now_ns();
    WEFT_CHECK(t1 >= deadline);
    WEFT_CHECK(t1 - deadline < 5 * us);  // one tick + the wake-up path
}

WEFT_TARGET_TEST(waker, wait_until_past_deadline_returns_at_once) {
    weft::port::waker w;
    std::uint64_t t0 = now_ns();
    w.wait_until(t0 > 1000 ? t0 - 1000 : 0);
    WEFT_CHECK(now_ns() - t0 < 2 * us);
}

WEFT_TARGET_TEST(waker, notify_is_latched) {
    weft::port::waker w;
    w.notify();
    std::uint64_t t0 = now_ns();
    w.wait_until(weft::port::no_deadline);  // returns at once: latched wake
    WEFT_CHECK(now_ns() - t0 < 2 * us);
    // consumed: the next wait sleeps until its deadline
    w.wait_until(now_ns() + 100 * us);
    WEFT_CHECK(now_ns() - t0 >= 100 * us);
}

WEFT_TARGET_TEST(waker, notify_from_device_isr_is_latched) {
    // A device interrupt (dual timer 2, IRQ 10) fires while the program is
    // busy; its notify() makes the next wait_until() return at once.
    // (The WFI wake-up itself: sleeps_until_a_device_interrupt.)
    weft::port::waker w;
    isr_waker = &w;
    device_irq_count = 0;
    std::uint64_t t0 = now_ns();
    device_fire_after(250);  // 10 us
    while (device_irq_count == 0) {
        WEFT_REQUIRE(now_ns() - t0 < 1000 * us);
    }
    WEFT_CHECK(device_irq_at - t0 >= 10 * us);
    WEFT_CHECK(device_irq_at - t0 < 12 * us);
    std::uint64_t t1 = now_ns();
    w.wait_until(t1 + 1000 * us);
    WEFT_CHECK(now_ns() - t1 < 2 * us);
    isr_waker = nullptr;
}

WEFT_TARGET_TEST(waker, notify_in_every_window_is_not_lost) {
    // A device interrupt raised k ticks into wait_until(), for every k up
    // to 119: one of them lands between the latch test and WFI (interrupts
    // masked there), and its notify must still end the sleep at once.
    weft::port::waker w;
    isr_waker = &w;
    unsigned lost = 0;
    for (std::uint32_t k = 1; k < 120; ++k) {
        device_irq_count = 0;
        std::uint64_t t0 = now_ns();
        device_fire_after(k);
        w.wait_until(t0 + 1000 * us);
        std::uint64_t d = now_ns() - t0;
        if (device_irq_count != 1 || d > k * 40 + 5 * us) {
            weft::target_test::say("    k ", k, ": woke after ", d, " ns\n");
            ++lost;
        }
    }
    WEFT_CHECK_EQ(lost, 0u);
    isr_waker = nullptr;
}

WEFT_TARGET_TEST(waker, sleeps_until_a_device_interrupt) {
    // No deadline: only dual timer 2's interrupt (after 10 us) ends the WFI.
    weft::port::waker w;
    isr_waker = &w;
    device_irq_count = 0;
    std::uint64_t t0 = now_ns();
    device_fire_after(250);
    w.wait_until(weft::port::no_deadline);
    std::uint64_t t1 = now_ns();
    WEFT_CHECK_EQ(device_irq_count, 1u);
    WEFT_CHECK(t1 - t0 >= 10 * us);
    WEFT_CHECK(t1 - t0 < 12 * us);
    isr_waker = nullptr;
}

WEFT_TARGET_TEST(waker, alarm_expiring_as_a_wait_ends_leaves_no_stale_flag) {
    // What wait_until() does when another interrupt ends its sleep just as
    // the alarm expires: the shot goes off with interrupts masked, then the
    // wait disarms it. The pending interrupt must still clear the raw
    // flag, or the next wait's alarm would interrupt it at once.
    namespace cm = weft::port::cortex_m;
    cm::disable_interrupts();
    cm::arm_alarm(1);
    std::uint64_t t0 = now_ns();
    while (mps2::dualtimer1().ris == 0) WEFT_REQUIRE(now_ns() - t0 < 100 * us);
    cm::disarm_alarm();
    cm::enable_interrupts();  // the alarm's handler runs here
    WEFT_CHECK_EQ(mps2::dualtimer1().ris, 0u);
    weft::port::waker w;
    std::uint64_t t1 = now_ns();
    w.wait_until(t1 + 100 * us);
    WEFT_CHECK(now_ns() - t1 >= 100 * us);
}

WEFT_TARGET_TEST(waker, long_deadline_across_two_clock_wraps) {
    // 400 s of virtual time (free under -icount sleep=off): the alarm is
    // re-armed ~100 times and timer 0 wraps twice (every 171.8 s).
    weft::port::waker w;
    std::uint64_t t0 = now_ns();
    std::uint64_t deadline = t0 + 400'000'000'000ull;
    w.wait_until(deadline);
    std::uint64_t t1 = now_ns();
    WEFT_CHECK(t1 >= deadline);
    WEFT_CHECK(t1 - deadline < 5 * us);
}

WEFT_TARGET_TEST(clock, reads_right_on_the_tick_of_the_wrap) {
    // The wrap interrupt is pending while the counter still reads 0: that
    // tick is the first of the new period, not the last of the old one.
    mps2::timer0().value = 100;  // 4 us before the wrap
    std::uint64_t before, at, after;
    {
        weft::port::critical_section cs;
        before = now_ns();
        while (!(mps2::timer0().intstatus & 1u)) {}
        at = now_ns();
        for (int i = 0; i < 50; ++i) __asm volatile("" ::: "memory");
        after = now_ns();
    }
    WEFT_CHECK(at >= before);
    WEFT_CHECK(at - before < 100 * us);
    WEFT_CHECK(after >= at);
}

WEFT_TARGET_TEST(waker, wait_until_across_the_clock_wrap) {
    mps2::timer0().value = 25000;  // the clock wraps in 1 ms
    weft::port::waker w;
    std::uint64_t t0 = now_ns();
    std::uint64_t deadline = t0 + 5000 * us;
    w.wait_until(deadline);
    std::uint64_t t1 = now_ns();
    WEFT_CHECK(t1 >= deadline);
    WEFT_CHECK(t1 - deadline < 5 * us);
}

WEFT_TARGET_TEST(critical_section, masks_interrupts_and_nests) {
    soft_irq_count = 0;
    mps2::enable_irq(mps2::soft_irq0);
    {
        weft::port::critical_section outer;
        {
            weft::port::critical_section inner;
            mps2::pend_irq(mps2::soft_irq0);
            for (int i = 0; i < 100; ++i) __asm volatile("" ::: "memory");
            WEFT_CHECK_EQ(soft_irq_count, 0u);
        }
        // leaving the inner section must not unmask
        for (int i = 0; i < 100; ++i) __asm volatile("" ::: "memory");
        WEFT_CHECK_EQ(soft_irq_count, 0u);
        WEFT_CHECK(mps2::irq_pending(mps2::soft_irq0));
    }
    WEFT_CHECK_EQ(soft_irq_count, 1u);
    WEFT_CHECK(!mps2::irq_pending(mps2::soft_irq0));
}

// The port's snprintf (src/format.cpp) replaces the C library's, so it
// follows C11 7.21.6.1 where weft's format strings could meet it: an
// explicit precision of 0 prints no digit for the value 0, and with a
// precision the 0 flag is ignored (the precision gives the zeros). Both
// printed "0" and "-0007" here before. (In this file: format_test.cpp is
// another round's.)
namespace {
int format_v(char* buf, std::size_t cap, const char* f, ...) {
    va_list ap;
    va_start(ap, f);
    int n = std::vsnprintf(buf, cap, f, ap);
    va_end(ap);
    return n;
}
}  // namespace

WEFT_TARGET_TEST(format, precision_zero_and_the_zero_flag_follow_c) {
    char buf[48];
    int n = format_v(buf, sizeof buf, "[%.0u|%.0d|%05.2d|%03.0x|%.0d]", 0u, 0, -7, 0u, 5);
    const char want[] = "[||  -07|   |5]";
    bool same = true;
    for (std::size_t i = 0; i < sizeof want; ++i) same = same && buf[i] == want[i];
    if (!same) weft::target_test::say("    got ", static_cast<const char*>(buf), "\n");
    WEFT_CHECK(same);
    WEFT_CHECK_EQ(n, 15);
}

WEFT_TARGET_TEST(port, target_name_names_the_core) {
    const char* n = weft::port::target_name();
    WEFT_CHECK(n[0] == 'c' && n[6] == '-' && n[7] == 'm');
}
