// SPDX-License-Identifier: Apache-2.0
// Tenth review: a HardFault that sets no CFSR bit is reported without an
// empty pair of parentheses. A BKPT with no debugger attached (not the
// semihosting one, 0xab) is such a fault: a debug event (HFSR DEBUGEVT) on
// a core, FORCED with CFSR 0 under QEMU. The report printed
// "weft: HardFault () at pc ...". CTest expects the line without "()"
// and exit status 2.
#include "target_test.hpp"

int main() {
    weft::target_test::say("fault by a breakpoint, ", weft::port::target_name(), "\n");
    __asm volatile("bkpt #1");
    weft::target_test::say("0 passed, 1 failed\n");
    return 1;
}
