// SPDX-License-Identifier: Apache-2.0
// Reset, vector table and the port's own interrupt handlers for ARMv7-M on
// the QEMU MPS2 boards. No vendor SDK: the linker script (mps2.ld) provides
// the section symbols used here.
#include <weft_port/platform.hpp>

#include <cstdint>

extern "C" {
// From mps2.ld.
extern std::uint32_t weft_data_load[], weft_data_start[], weft_data_end[];
extern std::uint32_t weft_bss_start[], weft_bss_end[], weft_stack_top[];
extern std::uint32_t weft_stack_limit[];
extern void (*weft_preinit_array_start[])(), (*weft_preinit_array_end[])();
extern void (*weft_init_array_start[])(), (*weft_init_array_end[])();

int main();
void weft_reset_handler();
void weft_default_handler();
}

namespace weft::port::cortex_m {
void start_clock() noexcept;
void guard_stack() noexcept;
}

extern "C" {

// Exception and interrupt handlers a program may define (strong symbols win
// over these weak aliases). Interrupt line n is `weft_irq_handler_<n>`.
#define WEFT_WEAK_HANDLER(name) void name() noexcept __attribute__((weak, alias("weft_default_handler")))
WEFT_WEAK_HANDLER(weft_nmi_handler);
WEFT_WEAK_HANDLER(weft_hardfault_handler);
WEFT_WEAK_HANDLER(weft_memmanage_handler);
WEFT_WEAK_HANDLER(weft_busfault_handler);
WEFT_WEAK_HANDLER(weft_usagefault_handler);
WEFT_WEAK_HANDLER(weft_svc_handler);
WEFT_WEAK_HANDLER(weft_debugmon_handler);
WEFT_WEAK_HANDLER(weft_pendsv_handler);
WEFT_WEAK_HANDLER(weft_systick_handler);
// The second half of the dual timer shares IRQ 10 with the port's alarm.
WEFT_WEAK_HANDLER(weft_dualtimer2_handler);
#define WEFT_IRQ(n) WEFT_WEAK_HANDLER(weft_irq_handler_##n)
WEFT_IRQ(0); WEFT_IRQ(1); WEFT_IRQ(2); WEFT_IRQ(3); WEFT_IRQ(4); WEFT_IRQ(5); WEFT_IRQ(6); WEFT_IRQ(7);
WEFT_IRQ(9); WEFT_IRQ(11); WEFT_IRQ(12); WEFT_IRQ(13); WEFT_IRQ(14); WEFT_IRQ(15);
WEFT_IRQ(16); WEFT_IRQ(17); WEFT_IRQ(18); WEFT_IRQ(19); WEFT_IRQ(20); WEFT_IRQ(21); WEFT_IRQ(22); WEFT_IRQ(23);
WEFT_IRQ(24); WEFT_IRQ(25); WEFT_IRQ(26); WEFT_IRQ(27); WEFT_IRQ(28); WEFT_IRQ(29); WEFT_IRQ(30); WEFT_IRQ(31);
#undef WEFT_IRQ
#undef WEFT_WEAK_HANDLER

// Timer 0 wrapped: one more 2^32 ticks. Only if its flag says so: an
// entry without a wrap (the line pended by software, or on silicon a
// re-entry because the clearing write reached the timer after the
// exception return) put the clock 171.8 s ahead. now_ticks() counts a
// pending wrap by the same flag.
void weft_irq_handler_8() {
    auto& t = weft::port::mps2::timer0();
    if (!(t.intstatus & 1u)) return;
    t.intstatus = 1;
    weft::port::cortex_m::clock_high = weft::port::cortex_m::clock_high + 1;
}

// Alarm: the shot has ended; the running executor looks at its timers
// (platform.hpp, watch_deadline), and a wait for the deadline ends. The
// raw flag, not the masked one: a shot re-armed while its previous end
// was pending clears the enable, hence the masked flag, but not the raw
// one.
void weft_irq_handler_10() {
    namespace mps2 = weft::port::mps2;
    if (mps2::dualtimer1().ris) {
        mps2::dualtimer1().intclr = 1;
        mps2::dualtimer1().control = 0;
        weft::port::cortex_m::signal_alarm();
    }
    if (mps2::dualtimer2().mis) weft_dualtimer2_handler();
}

using vector = void (*)();

// The vector table, placed at address 0 by mps2.ld (VTOR resets to 0).
__attribute__((section(".isr_vector"), used)) extern const vector weft_vector_table[16 + 32] = {
    reinterpret_cast<vector>(weft_stack_top),
    weft_reset_handler,
    weft_nmi_handler,
    weft_hardfault_handler,
    weft_memmanage_handler,
    weft_busfault_handler,
    weft_usagefault_handler,
    nullptr, nullptr, nullptr, nullptr,
    weft_svc_handler,
    weft_debugmon_handler,
    nullptr,
    weft_pendsv_handler,
    weft_systick_handler,
    weft_irq_handler_0, weft_irq_handler_1, weft_irq_handler_2, weft_irq_handler_3,
    weft_irq_handler_4, weft_irq_handler_5, weft_irq_handler_6, weft_irq_handler_7,
    weft_irq_handler_8, weft_irq_handler_9, weft_irq_handler_10, weft_irq_handler_11,
    weft_irq_handler_12, weft_irq_handler_13, weft_irq_handler_14, weft_irq_handler_15,
    weft_irq_handler_16, weft_irq_handler_17, weft_irq_handler_18, weft_irq_handler_19,
    weft_irq_handler_20, weft_irq_handler_21, weft_irq_handler_22, weft_irq_handler_23,
    weft_irq_handler_24, weft_irq_handler_25, weft_irq_handler_26, weft_irq_handler_27,
    weft_irq_handler_28, weft_irq_handler_29, weft_irq_handler_30, weft_irq_handler_31,
};

// Every fault, and every exception or interrupt without a handler of its
// own, ends here: in the fault report (fault.cpp, weft_fault_entry) or, in
// a firmware built without it (NO_FAULT_REPORT), with one line. A branch,
// not a call: the report reads EXC_RETURN from lr.
[[gnu::naked]] void weft_default_handler() { __asm volatile("b weft_fault_entry"); }
[[noreturn, gnu::weak, gnu::used]] void weft_fault_entry() { weft::port::fatal("weft: fault (no fault report)"); }

// Reset: RAM set-up, FPU, stack guard, clock, C++ constructors, main(), exit.
__attribute__((noreturn, used)) void weft_reset_handler() {
    for (std::uint32_t *src = weft_data_load, *dst = weft_data_start; dst < weft_data_end;) *dst++ = *src++;
    for (std::uint32_t* dst = weft_bss_start; dst < weft_bss_end;) *dst++ = 0;
#if defined(__ARM_FP)
    // Full access to CP10/CP11 before any floating-point instruction.
    weft::port::mps2::scb_cpacr() = weft::port::mps2::scb_cpacr() | (0xFu << 20);
    __asm volatile("dsb\n\tisb" ::: "memory");
#endif
    weft::port::cortex_m::guard_stack();
    weft::port::cortex_m::start_clock();
    for (auto* f = weft_preinit_array_start; f < weft_preinit_array_end; ++f) (*f)();
    for (auto* f = weft_init_array_start; f < weft_init_array_end; ++f) (*f)();
    weft::port::cortex_m::exit(main());
}

// Globals with destructors register them here; firmware never runs them
// (there is no return to a host), so nothing is stored and nothing is
// allocated (newlib's version can grow its table with malloc).
int __aeabi_atexit(void*, void (*)(void*), void*) { return 0; }
int __cxa_atexit(void (*)(void*), void*, void*) { return 0; }
void* __dso_handle = nullptr;

// There is no heap: a malloc that is linked anyway gets nothing. Defined
// so that such a firmware still links and the post-link check
// (cmake/check_no_heap.cmake) names what it pulled in and where to look,
// instead of an undefined `_sbrk` from inside newlib. Unreferenced, the
// linker's section GC drops it.
void* _sbrk(int) { return reinterpret_cast<void*>(-1); }

}  // extern "C"

namespace weft::port::cortex_m {

// The stack guard is the fault report's (fault.cpp): a firmware built
// without it (NO_FAULT_REPORT) keeps the smallest start-up and no guard.
[[gnu::weak]] void guard_stack() noexcept {}

void start_clock() noexcept {
    auto& t = mps2::timer0();
    t.ctrl = 0;
    t.reload = 0xFFFFFFFFu;
    t.intstatus = 1;
    t.ctrl = mps2::timer_enable | mps2::timer_irq_enable;
    mps2::dualtimer1().control = 0;
    mps2::dualtimer1().intclr = 1;
    // The clock's wrap handler must never be delayed past another wrap:
    // most urgent. The alarm only wakes WFI: least urgent.
    mps2::set_irq_priority(mps2::clock_irq, 0x00);
    mps2::set_irq_priority(mps2::alarm_irq, 0xE0);
    mps2::enable_irq(mps2::clock_irq);
    mps2::enable_irq(mps2::alarm_irq);
}

}  // namespace weft::port::cortex_m
