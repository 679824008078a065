// SPDX-License-Identifier: Apache-2.0
// Footprint row "core": one executor, one task that sleeps periodically
// (executor, ready queues, timer heap, interrupt queue, frame pool, sleep).
#include <weft/core/executor.hpp>
#include <weft/core/sleep.hpp>
#include <weft/core/task.hpp>

using namespace std::chrono_literals;

namespace {
weft::frame_pool<96, 1> frames{"app"};
volatile unsigned ticks = 0;

weft::task<> periodic() {
    for (;;) {
        co_await weft::sleep_for(10ms);
        ticks = ticks + 1;
    }
}
}  // namespace

int main() {
    weft::executor ex;
    auto h = ex.spawn(periodic());
    if (!h) return 1;
    (void)ex.run();
    return 0;
}
