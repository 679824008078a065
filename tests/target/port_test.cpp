// SPDX-License-Identifier: Apache-2.0
// The Cortex-M port against its contract (weft/port/port.hpp), with real
// NVIC interrupts. Runs under `qemu-run --icount`: virtual time advances by
// 1 ns per instruction and jumps over WFI sleeps, so the times are exact.
#include "target_test.hpp"

#include <weft/port/port.hpp>
#include <weft_port/mps2.hpp>

namespace {

namespace mps2 = weft::port::mps2;
using weft::port::now_ns;

weft::port::waker* isr_waker = nullptr;
volatile unsigned soft_irq_count = 0;
volatile unsigned device_irq_count = 0;
volatile std::uint64_t device_irq_at = 0;

constexpr std::uint64_t us = 1000;

// Starts the second half of the dual timer as an "external device"
// interrupting once after `ticks` 40 ns ticks.
void device_fire_after(std::uint32_t ticks) {
    auto& t = mps2::dualtimer2();
    t.control = 0;
    t.intclr = 1;
    t.load = ticks;
    t.control = mps2::dualtimer_enable | mps2::dualtimer_oneshot | mps2::dualtimer_32bit |
                mps2::dualtimer_irq_enable;
}

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
    // 10'000 iterations of a 4-instruction loop: about 40 us of virtual time.
    std::uint64_t a = now_ns();
    for (int i = 0; i < 10000; ++i) __asm volatile("" ::: "memory");
    std::uint64_t d = now_ns() - a;
    WEFT_CHECK(d >= 20 * us);
    WEFT_CHECK(d <= 80 * us);
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
    // (The WFI wake-up itself is covered by the alarm tests above and by
    // notify_before_sleep_is_not_lost; see docs/port-cortex-m.md, "QEMU
    // notes", for why no test sleeps until a dual-timer-2 interrupt.)
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

WEFT_TARGET_TEST(waker, notify_before_sleep_is_not_lost) {
    // The interrupt is raised while wait_until() has interrupts masked but
    // before its WFI: the pending line must still end the sleep.
    weft::port::waker w;
    isr_waker = &w;
    soft_irq_count = 0;
    mps2::enable_irq(mps2::soft_irq0);
    std::uint64_t t0 = now_ns();
    {
        weft::port::critical_section cs;
        mps2::pend_irq(mps2::soft_irq0);
    }
    // (The handler ran when the critical section ended; the latch holds it.)
    w.wait_until(t0 + 1000 * us);
    WEFT_CHECK_EQ(soft_irq_count, 1u);
    WEFT_CHECK(now_ns() - t0 < 10 * us);
    isr_waker = nullptr;
}

WEFT_TARGET_TEST(waker, long_deadline) {
    // 150 s of virtual time in one alarm (free under -icount sleep=off).
    // Not past the 171.8 s wrap of timer 0: see docs/port-cortex-m.md,
    // "QEMU notes".
    weft::port::waker w;
    std::uint64_t t0 = now_ns();
    std::uint64_t deadline = t0 + 150'000'000'000ull;
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

WEFT_TARGET_TEST(port, target_name_names_the_core) {
    const char* n = weft::port::target_name();
    WEFT_CHECK(n[0] == 'c' && n[6] == '-' && n[7] == 'm');
}
