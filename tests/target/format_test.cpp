// SPDX-License-Identifier: Apache-2.0
// The board's snprintf/vsnprintf (ports/cortex-m/src/format.cpp), which
// replaces newlib's: the conversions weft and its examples use, checked
// against what the C library prints on the host.
#include "target_test.hpp"

#include <cstdarg>
#include <cstdio>

namespace {
// Through vsnprintf, so that GCC cannot fold a call with constant
// arguments into a copy (it does so for snprintf) and bypass the port's.
[[gnu::format(printf, 3, 4)]] int fmt(char* buf, std::size_t cap, const char* f, ...) {
    va_list ap;
    va_start(ap, f);
    int n = std::vsnprintf(buf, cap, f, ap);
    va_end(ap);
    return n;
}
bool same(const char* a, const char* b) {
    while (*a && *a == *b) ++a, ++b;
    return *a == *b;
}
}  // namespace

WEFT_TARGET_TEST(format, string_precision_cuts_and_consumes_its_argument) {
    char buf[64];
    const char line[] = "led on, and more";
    int n = fmt(buf, sizeof buf, "'%.*s' after %lld s", 5, line, 2ll);
    WEFT_CHECK(same(buf, "'led o' after 2 s"));
    WEFT_CHECK_EQ(n, 17);
    n = fmt(buf, sizeof buf, "[%.3s|%.0s|%.9s]", "abcdef", "xyz", "ab");
    WEFT_CHECK(same(buf, "[abc||ab]"));
    WEFT_CHECK_EQ(n, 9);
    // Not NUL-terminated within the precision: nothing past it is read.
    const char unterminated[3] = {'u', 'r', 't'};
    n = fmt(buf, sizeof buf, "%.*s!", 3, unterminated);
    WEFT_CHECK(same(buf, "urt!"));
}

WEFT_TARGET_TEST(format, width_from_an_argument) {
    char buf[32];
    int n = fmt(buf, sizeof buf, "[%*d|%*s]", 4, 42, 3, "a");
    WEFT_CHECK(same(buf, "[  42|  a]"));
    WEFT_CHECK_EQ(n, 10);
}

// The width was ignored for %p: "%12p" printed 6 characters.
WEFT_TARGET_TEST(format, pointer_width_counts_the_0x) {
    char buf[64];
    void* p = reinterpret_cast<void*>(0x1234);
    int n = fmt(buf, sizeof buf, "[%12p][%3p][%*p]", p, p, 10, p);
    WEFT_CHECK(same(buf, "[      0x1234][0x1234][    0x1234]"));
    WEFT_CHECK_EQ(n, 34);
    // As the C libraries do. The 0 flag with %p is not in the standard
    // (-Wformat says so): the format is a variable here.
    const char* volatile zero_flag = "[%012p]";
    n = fmt(buf, sizeof buf, zero_flag, p);
    WEFT_CHECK(same(buf, "[0x0000001234]"));
    WEFT_CHECK_EQ(n, 14);
}

WEFT_TARGET_TEST(format, integer_precision_is_the_fewest_digits) {
    char buf[32];
    int n = fmt(buf, sizeof buf, "%.3u|%.*x|%5.2d", 7u, 4, 0xabu, -4);
    WEFT_CHECK(same(buf, "007|00ab|  -04"));
    WEFT_CHECK_EQ(n, 14);
}

WEFT_TARGET_TEST(format, integer_conversions_as_before) {
    char buf[64];
    int n = fmt(buf, sizeof buf, "%u %d %zu %05u %x %lld %%", 7u, -3, std::size_t(39), 42u, 255u, -12ll);
    WEFT_CHECK(same(buf, "7 -3 39 00042 ff -12 %"));
    WEFT_CHECK_EQ(n, 22);
    n = fmt(buf, 4, "%s", "truncated");
    WEFT_CHECK(same(buf, "tru"));
    WEFT_CHECK_EQ(n, 9);
}

// Where a field width or a precision meets a conversion handled apart
// (tenth review): a %c ignored its width ("x" for "  x"), and an integer
// precision above 24 digits was cut to 24 (the zeros shared the digits'
// 24-byte buffer). What glibc prints.
WEFT_TARGET_TEST(format, char_width_and_long_precision_follow_c) {
    char buf[80];
    int n = fmt(buf, sizeof buf, "[%3c|%.30u|%*c|%.26d]", 'x', 7u, 2, 'y', -5);
    const char want[] = "[  x|000000000000000000000000000007| y|-00000000000000000000000005]";
    if (!same(buf, want)) weft::target_test::say("    got ", static_cast<const char*>(buf), "\n");
    WEFT_CHECK(same(buf, want));
    WEFT_CHECK_EQ(n, int(sizeof want - 1));
}
