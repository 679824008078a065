// SPDX-License-Identifier: Apache-2.0
// A programmer error stops the program in port::fatal; what it printed
// before must still reach its stdout when that is a pipe or a file (fully
// buffered, and abort() flushes nothing). Run by CTest through
// cmake/check_run.cmake, which reads stdout through a pipe.
#include <weft/core.hpp>

#include <cstdio>

int main() {
    std::printf("printed before the error\n");
    weft::result<int> r{weft::errc::timeout};
    return *r;  // a value read from an error: stops in port::fatal
}
