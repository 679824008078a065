// SPDX-License-Identifier: Apache-2.0
// Footprint row "csp": two tasks over a rendezvous channel, the receiver
// selecting between it and a timeout (channel, send, recv, choose, wrap,
// timeout; the core underneath).
#include <weft/core/executor.hpp>
#include <weft/core/sleep.hpp>
#include <weft/core/task.hpp>
#include <weft/csp/choose.hpp>
#include <weft/csp/recv.hpp>
#include <weft/csp/send.hpp>
#include <weft/csp/timeout.hpp>
#include <weft/csp/wrap.hpp>

using namespace std::chrono_literals;
using namespace weft::csp;

namespace {
weft::frame_pool<192, 2> frames{"app"};
channel<int> ticks{"ticks"};
volatile int last = 0;

weft::task<> producer() {
    for (int i = 0;; ++i) {
        co_await weft::sleep_for(10ms);
        (void)co_await send(ticks, i);
    }
}
weft::task<> consumer() {
    for (;;) {
        auto r = co_await choose(recv(ticks), wrap(timeout(50ms), [] { return -1; }));
        last = r ? *r : -2;
    }
}
}  // namespace

int main() {
    weft::executor ex;
    auto p = ex.spawn(producer());
    auto c = ex.spawn(consumer());
    if (!p || !c) return 1;
    (void)ex.run();
    return 0;
}
