// SPDX-License-Identifier: Apache-2.0
// A firmware whose RAM does not fit, through a section the port's linker
// script does not name: ld placed such an orphan after .bss, outside the
// script's RAM check, and this image linked with its array over the stack
// (built only on request, as heap.cpp).
char retained[4 * 1024 * 1024 - 4096] __attribute__((section(".noinit")));

int main() {
    retained[0] = 1;
    return retained[0] == 1 ? 0 : 1;
}
