// EXPECT: nodiscard.*co_await it
// SPDX-License-Identifier: Apache-2.0
// A forgotten co_await: the awaiter is built and dropped, nothing sleeps.
// A warning (the class is [[nodiscard]]), an error under the project's
// -Werror; this runner passes no -Werror, so the pragma makes it one here.
#include <weft/core/sleep.hpp>
#include <weft/core/task.hpp>

#include <chrono>

#pragma GCC diagnostic error "-Wunused-result"

weft::task<> forgetful() {
    weft::sleep_for(std::chrono::milliseconds(1));  // co_await forgotten
    co_return;
}
int main() { (void)forgetful(); }
