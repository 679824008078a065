// SPDX-License-Identifier: Apache-2.0
#pragma once
// Shared by the host unit tests: frame pools big enough for every test
// (each test that measures pools declares its own), and a virtual-clock
// executor factory.
#include <weft/core.hpp>

#include <cstdint>

namespace weft::test {

inline frame_pool<256, 64> small_frames{"test_small"};
inline frame_pool<1024, 64> large_frames{"test_large"};

#ifndef WEFT_TEST_ASAN
#define WEFT_TEST_ASAN 0
#endif
/// True in the ASan build, where symmetric transfer is not a tail call.
inline constexpr bool asan_build = WEFT_TEST_ASAN != 0;

/// An executor on the virtual clock: time moves only when it is idle.
inline executor_config virtual_clock(const char* name = "test") {
    return executor_config{name, clock_mode::virtual_};
}

/// Milliseconds since the executor's epoch, for readable expectations.
inline std::int64_t ms(const executor& ex) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(ex.now().time_since_epoch()).count();
}

}  // namespace weft::test
