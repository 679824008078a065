// SPDX-License-Identifier: Apache-2.0
#pragma once
// Generators shared by the host generator tests.
#include <weft/core/generator.hpp>

namespace weft::test {

// noinline: Clang may elide the frame of a coroutine whose ramp is inlined
// into a caller that destroys it (CoroElide); the tests count pool slots.

/// 0, 1, ..., n - 1.
[[gnu::noinline]] inline generator<int> iota(int n) {
    for (int i = 0; i < n; ++i) co_yield i;
}

/// depth*100, the elements of chain(depth - 1) (of iota(n) at depth 0),
/// depth*100 + 1.
[[gnu::noinline]] inline generator<int> chain(int depth, int n) {
    co_yield depth * 100;
    if (depth > 0) co_yield elements_of(chain(depth - 1, n));
    else co_yield elements_of(iota(n));
    co_yield depth * 100 + 1;
}

}  // namespace weft::test
