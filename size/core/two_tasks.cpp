// SPDX-License-Identifier: Apache-2.0
// Footprint row "core + one more task": a second task of another coroutine type.
#include <weft/core/executor.hpp>
#include <weft/core/sleep.hpp>
#include <weft/core/task.hpp>
#include <weft/core/yield.hpp>

using namespace std::chrono_literals;

namespace {
weft::frame_pool<96, 2> frames{"app"};
volatile unsigned ticks = 0, spins = 0;

weft::task<> periodic() {
    for (;;) {
        co_await weft::sleep_for(10ms);
        ticks = ticks + 1;
    }
}
weft::task<> worker() {
    for (;;) {
        co_await weft::yield();
        spins = spins + 1;
        if (spins > 1000) co_await weft::sleep_for(1ms);
    }
}
}  // namespace

int main() {
    weft::executor ex;
    auto a = ex.spawn(periodic());
    auto b = ex.spawn(worker(), 1);
    if (!a || !b) return 1;
    (void)ex.run();
    return 0;
}
