// SPDX-License-Identifier: Apache-2.0
#pragma once
// A port for a board that does not exist, as someone porting weft would
// start it: tests/consumer/new_port.cmake builds the core against it, once
// whole and once with each piece left out (WEFT_TEST_DROP_<piece>), and
// checks that the first error is port.hpp's static_assert naming the piece.
#include <cstddef>
#include <cstdint>

namespace weft::port {

#ifndef WEFT_TEST_DROP_small_code
inline constexpr bool small_code = true;
#endif
#ifndef WEFT_TEST_DROP_single_core
inline constexpr bool single_core = true;
#endif
#ifndef WEFT_TEST_DROP_now_ns
inline std::uint64_t now_ns() noexcept { return 0; }
#endif
#ifndef WEFT_TEST_DROP_waker
class waker {
public:
    void wait_until(std::uint64_t) noexcept {}
#ifndef WEFT_TEST_DROP_waker_wait
    template <class Ready>
    void wait(Ready) noexcept {}
#endif
    void notify() noexcept {}
};
#endif
#ifndef WEFT_TEST_DROP_critical_section
class critical_section {
public:
    critical_section() noexcept {}
    ~critical_section() {}
};
#endif
#ifndef WEFT_TEST_DROP_fatal
[[noreturn]] inline void fatal(const char*) noexcept { __builtin_trap(); }
#endif
#ifndef WEFT_TEST_DROP_console_write
inline void console_write(const char*, std::size_t) noexcept {}
#endif
#ifndef WEFT_TEST_DROP_in_handler
inline bool in_handler() noexcept { return false; }
#endif
#ifndef WEFT_TEST_DROP_target_name
inline const char* target_name() noexcept { return "new-board"; }
#endif

}  // namespace weft::port
