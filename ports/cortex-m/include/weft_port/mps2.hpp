// SPDX-License-Identifier: Apache-2.0
#pragma once
// Memory map of the QEMU MPS2 boards used by the port (AN385 Cortex-M3 and
// AN386 Cortex-M4 share it): the two CMSDK APB timers, the FPGAIO LEDs and
// the NVIC/SCB registers the port touches. Nothing here allocates; every
// function is callable from an ISR.
//
// Interrupt lines (QEMU hw/arm/mps2.c, 32 lines):
//   8  CMSDK APB timer 0   -> the port's free-running clock (wrap count)
//   10 CMSDK dual timer 1  -> the port's alarm (wait_until deadline)
//   9  CMSDK APB timer 1   -> free for programs (but see below)
//   30, 31                 -> driven by no device: software interrupts that
//                             programs and tests raise with pend_irq()
// Why the dual timer for the alarm: under `-icount shift=0,sleep=off`,
// QEMU 7.2's model of APB timer 1 raised its interrupt a full period late
// when the CPU slept in WFI (and never while it polled), whereas the dual
// timer fired on the exact tick in both cases (checked on this machine).
#include <cstdint>

namespace weft::port::mps2 {

/// Timer input clock (SYSCLK_FRQ in QEMU): 25 MHz, one tick = 40 ns.
inline constexpr std::uint32_t timer_hz = 25'000'000;
inline constexpr std::uint32_t ns_per_tick = 1'000'000'000 / timer_hz;

inline constexpr unsigned clock_irq = 8;
inline constexpr unsigned alarm_irq = 10;
/// Interrupt lines no device drives; raise them with pend_irq().
inline constexpr unsigned soft_irq0 = 31;
inline constexpr unsigned soft_irq1 = 30;
inline constexpr unsigned irq_count = 32;

/// CMSDK APB timer registers (ARM DDI 0479, section 4.3).
struct cmsdk_timer {
    volatile std::uint32_t ctrl;       // bit 0 enable, bit 3 interrupt enable
    volatile std::uint32_t value;      // counts down at timer_hz
    volatile std::uint32_t reload;     // writing it also loads value
    volatile std::uint32_t intstatus;  // read: pending; write 1: clear
};
inline constexpr std::uint32_t timer_enable = 1u << 0;
inline constexpr std::uint32_t timer_irq_enable = 1u << 3;

/// One half of the CMSDK APB dual timer (ARM DDI 0479, 4.4); both halves
/// share IRQ 10. The port's alarm uses the first half; the second is free:
/// define `extern "C" void weft_dualtimer2_handler()` to receive its
/// interrupt (it must clear intclr; it is called when the second half's
/// masked interrupt status `mis` is set, so enable `dualtimer_irq_enable`).
/// It counts at `timer_hz` (`load` = timer_hz / 1000 for 1 ms); a
/// periodic tick under QEMU -icount: docs/port-cortex-m.md, "QEMU notes".
struct cmsdk_dualtimer {
    volatile std::uint32_t load;     // writing it also loads value
    volatile std::uint32_t value;
    volatile std::uint32_t control;  // bit 0 one-shot, 1 32-bit, 5 irq, 6 periodic, 7 enable
    volatile std::uint32_t intclr;
    volatile std::uint32_t ris;
    volatile std::uint32_t mis;
    volatile std::uint32_t bgload;
};
inline constexpr unsigned dualtimer_irq = 10;
inline constexpr std::uint32_t dualtimer_oneshot = 1u << 0, dualtimer_32bit = 1u << 1,
                               dualtimer_irq_enable = 1u << 5, dualtimer_periodic = 1u << 6,
                               dualtimer_enable = 1u << 7;
inline cmsdk_dualtimer& dualtimer1() noexcept { return *reinterpret_cast<cmsdk_dualtimer*>(0x40002000u); }
inline cmsdk_dualtimer& dualtimer2() noexcept { return *reinterpret_cast<cmsdk_dualtimer*>(0x40002020u); }

inline cmsdk_timer& timer0() noexcept { return *reinterpret_cast<cmsdk_timer*>(0x40000000u); }
inline cmsdk_timer& timer1() noexcept { return *reinterpret_cast<cmsdk_timer*>(0x40001000u); }

/// FPGAIO LED register: bit i drives user LED i (two LEDs on AN385/AN386).
inline volatile std::uint32_t& fpgaio_leds() noexcept {
    return *reinterpret_cast<volatile std::uint32_t*>(0x40028000u);
}

// System control space (ARMv7-M ARM, B3.4).
inline volatile std::uint32_t* nvic_iser() noexcept { return reinterpret_cast<volatile std::uint32_t*>(0xE000E100u); }
inline volatile std::uint32_t* nvic_icer() noexcept { return reinterpret_cast<volatile std::uint32_t*>(0xE000E180u); }
inline volatile std::uint32_t* nvic_ispr() noexcept { return reinterpret_cast<volatile std::uint32_t*>(0xE000E200u); }
inline volatile std::uint32_t* nvic_icpr() noexcept { return reinterpret_cast<volatile std::uint32_t*>(0xE000E280u); }
inline volatile std::uint8_t* nvic_ipr() noexcept { return reinterpret_cast<volatile std::uint8_t*>(0xE000E400u); }
inline volatile std::uint32_t& nvic_stir() noexcept { return *reinterpret_cast<volatile std::uint32_t*>(0xE000EF00u); }
/// SysTick (ARMv7-M ARM, B3.3): free for programs; tests use it as a device.
struct systick_regs {
    volatile std::uint32_t csr;  // bit 0 enable, 1 interrupt, 2 processor clock
    volatile std::uint32_t rvr;
    volatile std::uint32_t cvr;
    volatile std::uint32_t calib;
};
inline systick_regs& systick() noexcept { return *reinterpret_cast<systick_regs*>(0xE000E010u); }
inline volatile std::uint32_t& scb_cpacr() noexcept { return *reinterpret_cast<volatile std::uint32_t*>(0xE000ED88u); }
/// Fault status and address registers (ARMv7-M ARM, B3.2.15-B3.2.18).
struct scb_fault_regs {
    volatile std::uint32_t cfsr;  // MemManage (bits 0-7), BusFault (8-15), UsageFault (16-31) status
    volatile std::uint32_t hfsr;  // bit 30 FORCED: a configurable fault escalated to HardFault
    volatile std::uint32_t dfsr;
    volatile std::uint32_t mmfar;  // valid if cfsr bit 7 (MMARVALID)
    volatile std::uint32_t bfar;   // valid if cfsr bit 15 (BFARVALID)
};
inline scb_fault_regs& scb_faults() noexcept { return *reinterpret_cast<scb_fault_regs*>(0xE000ED28u); }
/// PMSAv7 MPU (ARMv7-M ARM, B3.5); QEMU gives both boards 8 regions.
struct mpu_regs {
    volatile std::uint32_t type;  // bits 8-15 DREGION: number of regions (0: no MPU)
    volatile std::uint32_t ctrl;  // bit 0 enable, bit 2 PRIVDEFENA (default map for privileged code)
    volatile std::uint32_t rnr;
    volatile std::uint32_t rbar;
    volatile std::uint32_t rasr;  // bit 0 enable, bits 1-5 log2(size) - 1, bits 24-26 AP (0: no access), 28 XN
};
inline mpu_regs& mpu() noexcept { return *reinterpret_cast<mpu_regs*>(0xE000ED90u); }

/// Enables interrupt line n in the NVIC.
inline void enable_irq(unsigned n) noexcept { nvic_iser()[n / 32] = 1u << (n % 32); }
/// Disables interrupt line n in the NVIC.
inline void disable_irq(unsigned n) noexcept { nvic_icer()[n / 32] = 1u << (n % 32); }
/// Sets the priority of line n (0 = most urgent; the top bits are used).
inline void set_irq_priority(unsigned n, std::uint8_t prio) noexcept { nvic_ipr()[n] = prio; }
/// Makes line n pending, as the device would. ISR-safe.
inline void pend_irq(unsigned n) noexcept { nvic_stir() = n; }
/// True while line n is pending (raised but its handler not yet entered).
inline bool irq_pending(unsigned n) noexcept { return (nvic_ispr()[n / 32] >> (n % 32)) & 1u; }

}  // namespace weft::port::mps2
