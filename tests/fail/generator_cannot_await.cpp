// EXPECT: (deleted|await_transform)
// SPDX-License-Identifier: Apache-2.0
#include <weft/core/generator.hpp>
#include <weft/core/yield.hpp>

weft::generator<int> g() {
    co_await weft::yield();  // generators are synchronous: no awaiting
    co_yield 1;
}
int main() {}
