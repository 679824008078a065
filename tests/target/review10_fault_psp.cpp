// SPDX-License-Identifier: Apache-2.0
// Tenth review: a fault taken on the process stack (PSP, CONTROL.SPSEL =
// 1, as an RTOS's threads or a program's own stacks run) is reported as
// what it is. The fault report took every exception frame below the main
// stack's limit for a stack overflow, and a process stack lives in .bss,
// below that limit: an undefined instruction there was reported as
// "weft: stack overflow: the stack ran into its guard at 0x2000...".
// CTest expects the HardFault line and exit status 2.
#include "target_test.hpp"

#include <cstdint>

namespace {
// A thread stack of the program's own, in .bss (8-byte aligned, AAPCS).
alignas(8) std::uint32_t thread_stack[256];
}  // namespace

int main() {
    weft::target_test::say("fault on the process stack, ", weft::port::target_name(), "\n");
    // Thread mode on the process stack, then an undefined instruction.
    __asm volatile(
        "msr psp, %0\n\t"
        "movs r1, #2\n\t"
        "msr control, r1\n\t"
        "isb\n\t"
        "udf #7" ::"r"(thread_stack + 256)
        : "r1", "memory");
    weft::target_test::say("0 passed, 1 failed\n");
    return 1;
}
