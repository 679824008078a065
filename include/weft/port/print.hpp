// SPDX-License-Identifier: Apache-2.0
#pragma once
// weft::port::print: printf-style output to the port's console, the same
// call on the host (stdout, unbuffered) and on a board (semihosting),
// where stdio does not link:
//
//   weft::port::print("%u ms: led %s\n", unsigned(ms), on ? "on" : "off");
//
// Formats into a buffer on the caller's stack (WEFT_PRINT_BUFFER bytes,
// default 128) with the toolchain's vsnprintf (on the board the port's,
// which allocates nothing), then writes it with console_write(). A longer
// line is cut, and its last three characters become "..."; nothing is
// allocated. Not from an interrupt handler on the host (console_write
// is a system call there).
#include <weft/port/port.hpp>

#include <cstdarg>
#include <cstddef>
#include <cstdio>

#ifndef WEFT_PRINT_BUFFER
#define WEFT_PRINT_BUFFER 128
#endif

namespace weft::port {

[[gnu::format(printf, 1, 2)]] inline void print(const char* format, ...) noexcept {
    static_assert(WEFT_PRINT_BUFFER >= 8, "WEFT_PRINT_BUFFER: at least 8 bytes");
    char text[WEFT_PRINT_BUFFER];
    std::va_list args;
    va_start(args, format);
    const int n = std::vsnprintf(text, sizeof text, format, args);
    va_end(args);
    if (n <= 0) return;
    std::size_t len = std::size_t(n);
    if (len >= sizeof text) {  // cut: say so
        len = sizeof text - 1;
        text[len - 1] = text[len - 2] = text[len - 3] = '.';
    }
    console_write(text, len);
}

}  // namespace weft::port
