// SPDX-License-Identifier: Apache-2.0
// The report of a fault or of an exception nobody handles: one console
// line, then exit status 2 (as fatal()). Entered from weft_default_handler
// (startup.cpp) through weft_fault_entry below, in handler mode, possibly
// on a fresh stack.
//
//   weft: stack overflow: the stack ran into its guard at 0x203fdef0 (limit 8192 bytes, WEFT_STACK_BYTES)
//   weft: HardFault (UsageFault UNDEFINSTR) at pc 0x000004d2, lr 0x000004c7 (cfsr 0x00010000 hfsr 0x40000000)
//   weft: interrupt line 12 has no handler (define weft_irq_handler_12)
#include <weft_port/platform.hpp>

#include <cstdint>

extern "C" {
extern std::uint32_t weft_data_start[], weft_stack_guard[], weft_stack_limit[], weft_stack_top[];
extern std::uint32_t weft_stack_guard_rasr[];
[[noreturn, gnu::used]] void weft_fault_report(const std::uint32_t* frame, std::uint32_t exc_return);
}

namespace {

namespace mps2 = weft::port::mps2;

// Built in place: the report must not depend on .bss, which an overflow
// that jumped the guard may have overwritten.
struct line {
    char text[192];
    unsigned n = 0;
    [[gnu::noinline]] void put(const char* s) noexcept {
        while (*s && n + 1 < sizeof text) text[n++] = *s++;
    }
    [[gnu::noinline]] void dec(unsigned v) noexcept {
        char d[10];
        unsigned k = 0;
        do { d[k++] = char('0' + v % 10); v /= 10; } while (v);
        while (k && n + 1 < sizeof text) text[n++] = d[--k];
    }
    // The next of a parenthesised list of words: " (" before the first.
    const char* sep = " (";
    [[gnu::noinline]] void word(const char* w) noexcept {
        put(sep);
        put(w);
        sep = " ";
    }
    [[gnu::noinline]] void hex(std::uint32_t v) noexcept {
        put("0x");
        for (int s = 28; s >= 0 && n + 1 < sizeof text; s -= 4) text[n++] = "0123456789abcdef"[(v >> s) & 0xFu];
    }
};

std::uint32_t addr(const void* p) noexcept { return reinterpret_cast<std::uint32_t>(p); }

// The eight words the core stacks can be read without a second fault: in
// RAM and not in the guard.
bool readable(const std::uint32_t* frame) noexcept {
    std::uint32_t a = addr(frame), end = a + 32;
    if (a < addr(weft_data_start) || end > addr(weft_stack_top) || end < a) return false;
    return end <= addr(weft_stack_guard) || a >= addr(weft_stack_limit);
}

struct cause {
    std::uint8_t bit;
    const char* name;
};
// CFSR bits (ARMv7-M ARM, B3.2.15) that say what went wrong.
constexpr cause causes[] = {
    {0, "IACCVIOL"},   {1, "DACCVIOL"},     {3, "MUNSTKERR"}, {4, "MSTKERR"},  {5, "MLSPERR"},
    {8, "IBUSERR"},    {9, "PRECISERR"},    {10, "IMPRECISERR"}, {11, "UNSTKERR"}, {12, "STKERR"},
    {13, "LSPERR"},    {16, "UNDEFINSTR"},  {17, "INVSTATE"},  {18, "INVPC"},    {19, "NOCP"},
    {24, "UNALIGNED"}, {25, "DIVBYZERO"},
};

void fault(line& m, unsigned exception, const std::uint32_t* frame, bool main_stack) noexcept {
    auto& f = mps2::scb_faults();
    std::uint32_t cfsr = f.cfsr, hfsr = f.hfsr, mmfar = f.mmfar, bfar = f.bfar;
    bool mmar_valid = cfsr & (1u << 7), bfar_valid = cfsr & (1u << 15);
    // The stacked frame below the main stack's bottom, or a faulting
    // access in the guard (a push larger than the frame faults before it
    // moves SP). Only a frame on the main stack: a process stack (PSP) is
    // the program's own, usually in .bss, below the limit by design.
    bool overflow = (main_stack && addr(frame) < addr(weft_stack_limit)) ||
                    (mmar_valid && mmfar >= addr(weft_stack_guard) && mmfar < addr(weft_stack_limit));
    if (overflow) {
        m.put("stack overflow: the stack ran into its guard at ");
        m.hex(mmar_valid ? mmfar : addr(frame));
        m.put(" (limit ");
        m.dec(addr(weft_stack_top) - addr(weft_stack_limit));
        m.put(" bytes, WEFT_STACK_BYTES)");
    } else {
        static const char* const names[] = {"HardFault", "MemManage", "BusFault", "UsageFault"};
        m.put(names[exception - 3]);
        // The words in parentheses only if there are any: a HardFault of
        // its own has no CFSR bit (a BKPT without a debugger: DEBUGEVT on
        // a core, FORCED alone under QEMU), and printed "HardFault ()".
        if (hfsr & (1u << 1)) m.word("vector table read");
        if (hfsr & (1u << 31)) m.word("debug event");
        std::uint32_t kinds = cfsr & ~((1u << 7) | (1u << 15));
        if (kinds & 0xFFu) m.word("MemManage");
        else if (kinds & 0xFF00u) m.word("BusFault");
        else if (kinds) m.word("UsageFault");
        for (const cause& c : causes)
            if (cfsr & (1u << c.bit)) m.word(c.name);
        if (m.sep[1] == '\0') m.put(")");
    }
    // A frame the core failed to stack (MSTKERR, STKERR) holds stale words.
    if (readable(frame) && !(cfsr & ((1u << 4) | (1u << 12)))) {
        m.put(" at pc ");
        m.hex(frame[6]);
        m.put(", lr ");
        m.hex(frame[5]);
    }
    m.put(" (cfsr ");
    m.hex(cfsr);
    m.put(" hfsr ");
    m.hex(hfsr);
    if (mmar_valid) { m.put(" mmfar "); m.hex(mmfar); }
    if (bfar_valid) { m.put(" bfar "); m.hex(bfar); }
    m.put(")");
}

void unhandled(line& m, unsigned exception) noexcept {
    if (exception >= 16) {
        unsigned irq = exception - 16;
        m.put("interrupt line ");
        m.dec(irq);
        // Line 10's handler is the port's; it calls this one for the second timer.
        m.put(irq == mps2::dualtimer_irq ? " (dual timer 2) has no handler (define weft_dualtimer2_handler"
                                         : " has no handler (define weft_irq_handler_");
        if (irq != mps2::dualtimer_irq) m.dec(irq);
        m.put(")");
        return;
    }
    m.put("exception ");
    m.dec(exception);
    m.put(" has no handler (names: ports/cortex-m/src/startup.cpp)");
}

}  // namespace

namespace weft::port::cortex_m {
// A no-access MPU region right below the stack (mps2.ld), so that an
// overflow faults into this report instead of overwriting .bss. The guard
// is the highest-numbered region, which wins where regions overlap, so a
// program's own regions cannot open it. Privileged code (all of weft)
// keeps the default memory map everywhere else. Overrides start-up's weak
// no-op.
void guard_stack() noexcept {
    auto& m = mps2::mpu();
    std::uint32_t regions = (m.type >> 8) & 0xFFu;
    if (regions == 0) return;  // no MPU: no guard
    // RBAR with VALID selects the region too (no RNR write).
    m.rbar = addr(weft_stack_guard) | (1u << 4) | (regions - 1);
    m.rasr = addr(weft_stack_guard_rasr);  // XN, no access, its size: mps2.ld
    m.ctrl = (1u << 2) /* PRIVDEFENA */ | 1u;
    __asm volatile("dsb\n\tisb" ::: "memory");
}
}  // namespace weft::port::cortex_m

// Entered by a branch from weft_default_handler (startup.cpp), in handler
// mode with EXC_RETURN in lr; overrides start-up's weak one-line version.
// The faulting code may have run its stack into the guard: the report
// would push on through it (the MPU is off in a HardFault handler) into
// whatever lies below, or fault again where a program enabled MemManage
// faults. When the main stack pointer is that low, the report runs from
// the top of the stack instead, which nothing will return to. r0: the
// exception frame the core stacked (main or process stack, per EXC_RETURN
// bit 2); r1: EXC_RETURN.
extern "C" [[gnu::naked]] void weft_fault_entry() {
    __asm volatile(
        "tst lr, #4\n\t"
        "ite eq\n\t"
        "mrseq r0, msp\n\t"
        "mrsne r0, psp\n\t"
        "movw r2, #:lower16:weft_stack_limit + 512\n\t"
        "movt r2, #:upper16:weft_stack_limit + 512\n\t"
        "mrs r1, msp\n\t"
        "cmp r1, r2\n\t"
        "bhs 1f\n\t"
        "movw r2, #:lower16:weft_stack_top\n\t"
        "movt r2, #:upper16:weft_stack_top\n\t"
        "mov sp, r2\n"
        "1:\tmov r1, lr\n\t"
        "b weft_fault_report\n\t");
}

extern "C" void weft_fault_report(const std::uint32_t* frame, std::uint32_t exc_return) {
    std::uint32_t ipsr;
    __asm volatile("mrs %0, ipsr" : "=r"(ipsr));
    unsigned exception = ipsr & 0x1FFu;
    line m;
    m.put("weft: ");
    if (exception >= 3 && exception <= 6) fault(m, exception, frame, !(exc_return & 4u));
    else unhandled(m, exception);
    m.text[m.n] = '\0';
    weft::port::fatal(m.text);
}
