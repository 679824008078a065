// SPDX-License-Identifier: Apache-2.0
// Bring-up check: start-up, semihosting console, clock, exit status.
#include <weft/port/port.hpp>

int main() {
    const char hello[] = "weft port smoke: hello from ";
    weft::port::console_write(hello, sizeof hello - 1);
    const char* t = weft::port::target_name();
    std::size_t n = 0;
    while (t[n]) ++n;
    weft::port::console_write(t, n);
    weft::port::console_write("\n", 1);
    auto a = weft::port::now_ns();
    for (int i = 0; i < 1000; ++i) __asm volatile("" ::: "memory");
    auto b = weft::port::now_ns();
    if (b <= a) weft::port::fatal("clock does not advance");
    return 0;
}
