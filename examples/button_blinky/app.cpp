// SPDX-License-Identifier: Apache-2.0
// Seed 003's button-blinky: the LED is on while the button is held.
// The application is the block between the [docs:button_blinky] markers;
// it is compiled unchanged for every board. The board part (host/main.cpp:
// a simulated button and LED; mps2/main.cpp: the MPS2's FPGAIO button and
// LED) provides board::but0 and board::led0 and main().
#include <weft/core.hpp>
#include <weft/csp.hpp>

#include "app.hpp"

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
