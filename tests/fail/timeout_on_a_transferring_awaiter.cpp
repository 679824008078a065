// EXPECT: with_timeout bounds an abortable await or a task<T>
// SPDX-License-Identifier: Apache-2.0
// yield() hands the core to another task (its await_suspend returns a
// handle): there is no wait for a bound to end.
#include <weft/core/task.hpp>
#include <weft/core/timeout.hpp>
#include <weft/core/yield.hpp>

weft::task<> parent() {
    (void)co_await weft::with_timeout(weft::yield(), std::chrono::milliseconds(1));
}
int main() {}
