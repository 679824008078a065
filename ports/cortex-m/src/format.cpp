// SPDX-License-Identifier: Apache-2.0
// snprintf/vsnprintf for the board, replacing newlib's: newlib's pulls in
// malloc (through _sbrk) and ~6 KB of text. This one writes into the caller's
// buffer only. Supports what weft's messages use: %s %c %d %i %u %x %X %p %%,
// the length modifiers l, ll, z, a field width (digits or *; %p's counts
// its "0x") with optional 0 flag, and a precision (.digits or .*): the most
// characters of a %s (none read past it), the fewest digits of an integer. No - + # or space
// flags; a negative * width counts as none, a negative * precision as absent.
#include <cstdarg>
#include <cstddef>
#include <cstdint>

namespace {

struct out {
    char* buf;
    std::size_t cap;
    std::size_t len = 0;
    void put(char c) noexcept {
        if (len + 1 < cap) buf[len] = c;
        ++len;
    }
};

// precision < 0: none given.
void put_number(out& o, unsigned long long v, unsigned base, bool upper, bool negative, unsigned width,
                char pad, int precision = -1) noexcept {
    char digits[24];
    unsigned n = 0;
    // C: a precision of 0 prints no digit for 0.
    if (v != 0 || precision != 0) do {
        unsigned d = unsigned(v % base);
        digits[n++] = char(d < 10 ? '0' + d : (upper ? 'A' : 'a') + d - 10);
        v /= base;
    } while (v);
    // The precision's zeros are counted, not stored: a precision may
    // exceed the buffer (it cut "%.30u" to 24 digits).
    unsigned zeros = int(n) < precision ? unsigned(precision) - n : 0u;
    if (precision >= 0) pad = ' ';  // C: with a precision the 0 flag is ignored
    unsigned total = n + zeros + (negative ? 1u : 0u);
    if (negative && pad == '0') o.put('-');
    for (; total < width; ++total) o.put(pad);
    if (negative && pad != '0') o.put('-');
    for (; zeros; --zeros) o.put('0');
    while (n) o.put(digits[--n]);
}

}  // namespace

extern "C" int vsnprintf(char* buf, std::size_t cap, const char* fmt, va_list ap) {
    out o{buf, cap};
    for (; *fmt; ++fmt) {
        if (*fmt != '%') { o.put(*fmt); continue; }
        ++fmt;
        char pad = ' ';
        if (*fmt == '0') { pad = '0'; ++fmt; }
        // A width or precision: digits, or '*' for an int argument (< 0: -1).
        auto count = [&]() -> int {
            if (*fmt == '*') { ++fmt; int v = va_arg(ap, int); return v < 0 ? -1 : v; }
            int v = 0;
            while (*fmt >= '0' && *fmt <= '9') v = v * 10 + (*fmt++ - '0');
            return v;
        };
        int w = count();
        unsigned width = w < 0 ? 0u : unsigned(w);
        int precision = -1;  // none
        if (*fmt == '.') { ++fmt; precision = count(); }
        int longs = 0;
        bool size = false;
        for (;; ++fmt) {
            if (*fmt == 'l') ++longs;
            else if (*fmt == 'z') size = true;
            else break;
        }
        auto get_unsigned = [&]() -> unsigned long long {
            if (longs >= 2) return va_arg(ap, unsigned long long);
            if (longs == 1) return va_arg(ap, unsigned long);
            if (size) return va_arg(ap, std::size_t);
            return va_arg(ap, unsigned);
        };
        switch (*fmt) {
            case 's': {
                const char* s = va_arg(ap, const char*);
                if (!s) s = "(null)";
                unsigned n = 0;  // never reads past the precision: s may end there unterminated
                while ((precision < 0 || n < unsigned(precision)) && s[n]) ++n;
                for (unsigned i = n; i < width; ++i) o.put(' ');
                for (unsigned i = 0; i < n; ++i) o.put(s[i]);
                break;
            }
            case 'c':  // the width applies to every conversion ("  x" for "%3c")
                for (unsigned i = 1; i < width; ++i) o.put(' ');
                o.put(char(va_arg(ap, int)));
                break;
            case 'd': case 'i': {
                long long v = longs >= 2 ? va_arg(ap, long long) : longs == 1 ? va_arg(ap, long) : va_arg(ap, int);
                bool neg = v < 0;
                put_number(o, neg ? 0ull - (unsigned long long)v : (unsigned long long)v, 10, false, neg, width, pad, precision);
                break;
            }
            case 'u': put_number(o, get_unsigned(), 10, false, false, width, pad, precision); break;
            case 'x': put_number(o, get_unsigned(), 16, false, false, width, pad, precision); break;
            case 'X': put_number(o, get_unsigned(), 16, true, false, width, pad, precision); break;
            case 'p': {
                // "0x" is part of the field, and a 0 flag's zeros follow
                // it, as the C libraries print ("%012p": 0x0000001234).
                const std::uintptr_t v = reinterpret_cast<std::uintptr_t>(va_arg(ap, void*));
                unsigned digits_width = width > 2 ? width - 2 : 0u;
                if (pad == ' ') {
                    unsigned n = 1;
                    for (std::uintptr_t t = v; t >>= 4;) ++n;
                    for (; n < digits_width; ++n) o.put(' ');
                    digits_width = 0;
                }
                o.put('0'); o.put('x');
                put_number(o, v, 16, false, false, digits_width, '0');
                break;
            }
            case '%': o.put('%'); break;
            case '\0': --fmt; break;
            default: o.put('%'); o.put(*fmt); break;
        }
    }
    if (cap) buf[o.len < cap ? o.len : cap - 1] = '\0';
    return int(o.len);
}

extern "C" int snprintf(char* buf, std::size_t cap, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, cap, fmt, ap);
    va_end(ap);
    return n;
}
