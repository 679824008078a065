// EXPECT: when_all/when_any take 1 to 32 tasks
// SPDX-License-Identifier: Apache-2.0
#include <weft/core/when_all.hpp>

weft::task<> t() { co_return; }
weft::task<> parent() {
    co_await weft::when_all(t(), t(), t(), t(), t(), t(), t(), t(), t(), t(), t(),
                            t(), t(), t(), t(), t(), t(), t(), t(), t(), t(), t(),
                            t(), t(), t(), t(), t(), t(), t(), t(), t(), t(), t());
}
int main() {}
