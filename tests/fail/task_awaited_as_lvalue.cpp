// EXPECT: co_await std::move\(t\): a task is awaited once, as an rvalue
// SPDX-License-Identifier: Apache-2.0
// A task kept in a variable is awaited by moving it: the await spends it.
#include <weft/core/task.hpp>

weft::task<int> child() { co_return 1; }
weft::task<> parent() {
    weft::task<int> t = child();
    (void)co_await t;
}
int main() { (void)parent(); }
