// SPDX-License-Identifier: Apache-2.0
#pragma once
// A test framework small enough for a microcontroller: no heap, no
// exceptions, no printf. Tests register themselves at start-up; main()
// (target_test_main.cpp) runs them in declaration order and prints
//
//     ok   suite.name
//         file.cpp:42: a == b (3 vs 4)      <- one line per failed check
//     FAIL suite.name
//     N passed, N failed
//
// through the port console; the exit status is non-zero if any failed.
//
//     WEFT_TARGET_TEST(clock, advances) {
//         auto a = weft::port::now_ns();
//         WEFT_CHECK(weft::port::now_ns() > a);
//     }
#include <weft/port/port.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace weft::target_test {

/// One registered test (a static object; linked in declaration order).
struct test_case {
    const char* suite;
    const char* name;
    void (*body)();
    test_case* next = nullptr;

    test_case(const char* s, const char* n, void (*b)()) noexcept : suite(s), name(n), body(b) {
        test_case** p = &head();
        while (*p) p = &(*p)->next;
        *p = this;
    }
    static test_case*& head() noexcept {
        static test_case* h = nullptr;
        return h;
    }
};

/// Set when a check of the running test fails.
inline bool current_failed = false;

// --- output, without printf ------------------------------------------------
inline void print(const char* s) noexcept {
    std::size_t n = 0;
    while (s[n]) ++n;
    port::console_write(s, n);
}
inline void print_unsigned(std::uint64_t v) noexcept {
    char buf[21];
    char* p = buf + sizeof buf;
    do { *--p = char('0' + v % 10); v /= 10; } while (v);
    port::console_write(p, std::size_t(buf + sizeof buf - p));
}
/// Prints a bool, an integer, an enum (as its value) or a pointer.
template <class T>
inline void print(const T& v) noexcept {
    using U = std::remove_cv_t<T>;
    if constexpr (std::is_same_v<U, bool>) {
        print(v ? "true" : "false");
    } else if constexpr (std::is_enum_v<U>) {
        print(static_cast<std::underlying_type_t<U>>(v));
    } else if constexpr (std::is_pointer_v<U>) {
        print_unsigned(reinterpret_cast<std::uintptr_t>(v));
    } else if constexpr (std::is_signed_v<U>) {
        if (v < 0) { print("-"); print_unsigned(std::uint64_t(-(std::int64_t(v) + 1)) + 1); }
        else print_unsigned(std::uint64_t(v));
    } else {
        print_unsigned(std::uint64_t(v));
    }
}
template <std::size_t N>
inline void print(const char (&s)[N]) noexcept { print(static_cast<const char*>(s)); }

/// Prints each argument in turn, then nothing else.
template <class... A>
void say(const A&... a) noexcept { (print(a), ...); }

inline void fail_at(const char* file, int line, const char* expr) noexcept {
    current_failed = true;
    const char* base = file;
    for (const char* p = file; *p; ++p) if (*p == '/') base = p + 1;
    say("    ", base, ":", line, ": ", expr);
}

/// Runs every test; returns the exit status (0 if all passed).
inline int run_all() noexcept {
    unsigned passed = 0, failed = 0;
    for (test_case* t = test_case::head(); t; t = t->next) {
        current_failed = false;
        t->body();
        if (current_failed) { say("FAIL ", t->suite, ".", t->name, "\n"); ++failed; }
        else { say("ok   ", t->suite, ".", t->name, "\n"); ++passed; }
    }
    say(passed, " passed, ", failed, " failed\n");
    return failed ? 1 : 0;
}

}  // namespace weft::target_test

/// Defines and registers test `suite.name`.
#define WEFT_TARGET_TEST(suite, name)                                                   \
    static void weft_test_##suite##_##name();                                           \
    static ::weft::target_test::test_case weft_test_case_##suite##_##name{#suite, #name, \
                                                                          &weft_test_##suite##_##name}; \
    static void weft_test_##suite##_##name()

/// Records a failure (and goes on) if `cond` is false.
#define WEFT_CHECK(cond)                                                        \
    do {                                                                        \
        if (!(cond)) ::weft::target_test::fail_at(__FILE__, __LINE__, #cond "\n");   \
    } while (0)

/// Records a failure showing both values if a != b.
#define WEFT_CHECK_EQ(a, b)                                                     \
    do {                                                                        \
        auto&& weft_a_ = (a);                                                   \
        auto&& weft_b_ = (b);                                                   \
        if (!(weft_a_ == weft_b_)) {                                            \
            ::weft::target_test::fail_at(__FILE__, __LINE__, #a " == " #b);     \
            ::weft::target_test::say(" (", weft_a_, " vs ", weft_b_, ")\n");   \
        }                                                                       \
    } while (0)

/// Like WEFT_CHECK, but ends the test at once.
#define WEFT_REQUIRE(cond)                                                      \
    do {                                                                        \
        if (!(cond)) { ::weft::target_test::fail_at(__FILE__, __LINE__, #cond "\n"); return; } \
    } while (0)
