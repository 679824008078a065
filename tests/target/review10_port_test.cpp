// SPDX-License-Identifier: Apache-2.0
// Tenth review of the Cortex-M port: state an interrupt must not disturb,
// with a real device interrupt (dual timer 2) landing at every offset.
#include "counting_device.hpp"
#include "target_test.hpp"

#include <weft/port/port.hpp>
#include <weft_port/mps2.hpp>

#include <cstddef>
#include <cstdint>

namespace {
namespace mps2 = weft::port::mps2;
using weft::target_test::device_count;
using weft::target_test::device_fire_after;
using weft::target_test::device_isr;
}  // namespace

#if defined(__ARM_FP)
namespace {
// The handler's floating-point use: every caller-saved register and the
// FPSCR (rounding mode) overwritten. The core stacks them (lazily, on the
// handler's first FP instruction) and restores them on return.
void clobber_fp() {
    __asm volatile(
        "vmov s0, %0\n\tvmov s1, %0\n\tvmov s2, %0\n\tvmov s3, %0\n\t"
        "vmov s4, %0\n\tvmov s5, %0\n\tvmov s6, %0\n\tvmov s7, %0\n\t"
        "vmov s8, %0\n\tvmov s9, %0\n\tvmov s10, %0\n\tvmov s11, %0\n\t"
        "vmov s12, %0\n\tvmov s13, %0\n\tvmov s14, %0\n\tvmov s15, %0\n\t"
        "vmsr fpscr, %1" ::"r"(0xdeadbeefu),
        "r"(0u)
        : "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "s12", "s13", "s14", "s15");
}
}  // namespace

WEFT_TARGET_TEST(fpu, registers_survive_a_handler_that_uses_them) {
    device_isr = &clobber_fp;
    unsigned bad = 0, missed = 0;
    for (std::uint32_t k = 1; k < 16; ++k) {
        std::uint32_t in[16], out[16] = {};
        for (std::uint32_t i = 0; i < 16; ++i) in[i] = 0x3f800000u + i * 0x00010001u + k;
        const std::uint32_t fpscr_in = 0x00C00000u;  // round towards zero
        std::uint32_t fpscr_out, saved;
        device_count = 0;
        device_fire_after(k);  // k ticks: inside the 1600-instruction spin
        __asm volatile(
            "vmrs %[saved], fpscr\n\t"
            "vldmia %[in], {s0-s15}\n\t"
            "vmsr fpscr, %[fin]\n\t"
            "movw r2, #800\n"
            "1:\n\t"
            "subs r2, #1\n\t"
            "bne 1b\n\t"
            "vstmia %[out], {s0-s15}\n\t"
            "vmrs %[fout], fpscr\n\t"
            "vmsr fpscr, %[saved]"
            : [saved] "=&r"(saved), [fout] "=&r"(fpscr_out)
            : [in] "r"(in), [out] "r"(out), [fin] "r"(fpscr_in)
            : "r2", "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "s12", "s13",
              "s14", "s15", "cc", "memory");
        if (device_count != 1) ++missed;
        bool same = (fpscr_out & 0x00C00000u) == fpscr_in;
        for (int i = 0; i < 16; ++i) same = same && out[i] == in[i];
        if (!same) {
            if (++bad < 4) weft::target_test::say("    k ", k, ": s0 ", out[0], " fpscr ", fpscr_out, "\n");
        }
    }
    device_isr = nullptr;
    WEFT_CHECK_EQ(missed, 0u);
    WEFT_CHECK_EQ(bad, 0u);
}
#endif

namespace {
// Interrupt line 31 at the clock's own priority (0, every line's reset
// value): the wrap handler cannot preempt it, so a clock read in it must
// account for a wrap whose interrupt is pending.
volatile unsigned wrap_back = 0;
volatile bool wrap_seen = false;
extern "C" void weft_irq_handler_31() {
    std::uint64_t prev = weft::port::now_ns();
    for (int i = 0; i < 200; ++i) {
        std::uint64_t t = weft::port::now_ns();
        if (t < prev) wrap_back = wrap_back + 1;
        prev = t;
    }
    wrap_seen = mps2::irq_pending(mps2::clock_irq);
}
}  // namespace

WEFT_TARGET_TEST(clock, monotonic_in_a_handler_of_the_clocks_priority_across_the_wrap) {
    mps2::enable_irq(mps2::soft_irq0);
    unsigned pending_seen = 0;
    for (std::uint32_t k = 1; k < 60; k += 3) {
        wrap_back = 0;
        std::uint64_t before = weft::port::now_ns();
        {
            weft::port::critical_section cs;
            mps2::timer0().value = k;  // the wrap in k ticks, inside the handler's loop
            mps2::pend_irq(mps2::soft_irq0);
        }
        std::uint64_t after = weft::port::now_ns();
        WEFT_CHECK_EQ(wrap_back, 0u);
        WEFT_CHECK(after >= before);
        if (wrap_seen) ++pending_seen;
    }
    WEFT_CHECK(pending_seen > 0);
}

// The clock's wrap handler (IRQ 8) counted a wrap on every entry, whether
// or not timer 0 had wrapped: an entry without a wrap (the line pended in
// the NVIC by software, or on silicon the handler re-entered because its
// clearing write reached the APB timer after the exception return) put
// the clock 2^32 ticks = 171.8 s ahead, so every sleep ended at once.
WEFT_TARGET_TEST(clock, an_entry_of_the_wrap_handler_without_a_wrap_counts_nothing) {
    mps2::timer0().value = 0x80000000u;  // no wrap for the next 85 s
    std::uint64_t t0 = weft::port::now_ns();
    mps2::pend_irq(mps2::clock_irq);  // its handler runs here, at once
    for (int i = 0; i < 20; ++i) __asm volatile("" ::: "memory");
    std::uint64_t t1 = weft::port::now_ns();
    WEFT_CHECK(t1 >= t0);
    WEFT_CHECK(t1 - t0 < 100'000u);  // 100 us, not 171.8 s
}
