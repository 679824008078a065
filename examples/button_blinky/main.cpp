// SPDX-License-Identifier: Apache-2.0
// Seed 003's button-blinky: the LED is on while the button is held.
// The application is the block between the [docs:button_blinky] markers;
// the rest is the host board (a simulated button pressed by a script
// thread, and a simulated LED that prints its state).
#include <weft/core.hpp>
#include <weft/csp.hpp>
#include <weft_port/sim/button.hpp>
#include <weft_port/sim/led.hpp>

#include <pthread.h>
#include <unistd.h>

namespace board {
weft::frame_pool<512, 1> frames{"blinky"};
weft::sim::button but0{"but0"};
weft::sim::led led0{"led0", /*verbose=*/true};
}  // namespace board

using board::but0;
using board::led0;

// [docs:button_blinky]
using namespace weft::csp;
channel<bool> bchan{"bchan"}, lchan{"lchan"};

weft::task<> button_blinky() {
    for (;;) {
        auto on = co_await recv(bchan);
        (void)co_await send(lchan, *on);
    }
}

void start(weft::executor& ex) {
    static auto b = connect(ex, bchan, but0);  // spawnExternal bchan but0
    static auto l = connect(ex, lchan, led0);  // spawnExternal lchan led0
    if (auto t = ex.spawn(button_blinky()); !t) weft::port::fatal(t.err().message().c_str());
}
// [docs:button_blinky]

// The "user": three presses of 20 ms, as a GPIO interrupt would report them.
static void* user(void* ex) {
    for (int i = 0; i < 3; ++i) {
        ::usleep(20'000);
        but0.press();
        ::usleep(20'000);
        but0.release();
    }
    ::usleep(20'000);
    static_cast<weft::executor*>(ex)->request_stop();
    return nullptr;
}

int main() {
    weft::executor ex{{"blinky", weft::clock_mode::real}};
    start(ex);
    pthread_t script;
    pthread_create(&script, nullptr, &user, &ex);
    ex.run();  // sleeps in the port between presses: no polling
    pthread_join(script, nullptr);
    return led0.writes() == 6 ? 0 : 1;
}
