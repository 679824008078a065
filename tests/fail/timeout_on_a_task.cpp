// EXPECT: with_timeout needs a leaf awaiter
// SPDX-License-Identifier: Apache-2.0
#include <weft/core/task.hpp>
#include <weft/core/timeout.hpp>

weft::task<int> child() { co_return 1; }
weft::task<> parent() {
    (void)co_await weft::with_timeout(child().operator co_await(), std::chrono::milliseconds(1));
}
int main() {}
