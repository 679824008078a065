// SPDX-License-Identifier: Apache-2.0
// abort() for the board. The C and C++ libraries end their own failed
// checks here (libstdc++'s range checks that a Debug build keeps, e.g.
// string_view::substr); newlib's abort() raises a signal through _kill and
// _getpid, which a board does not have, so a Debug firmware did not link.
// Reported and ended like any fatal error instead. In its own file: a
// second caller of port::fatal in start-up would make GCC stop inlining it
// into the default fault entry (8 bytes more in every firmware); unused,
// the linker drops it.
#include <weft/port/port.hpp>

extern "C" [[noreturn]] void abort() {
    weft::port::fatal("weft: abort() called (a C or C++ library check failed)");
}
