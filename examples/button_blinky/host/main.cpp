// SPDX-License-Identifier: Apache-2.0
// button_blinky on the host: the simulated button is pressed by a script
// thread (playing the GPIO interrupt); the simulated LED prints its state.
#include <weft/core.hpp>

#include "app.hpp"

#include <pthread.h>
#include <unistd.h>

namespace board {
weft::frame_pool<512, 1> frames{"blinky"};
weft::sim::button but0{"but0"};
weft::sim::led led0{"led0", /*verbose=*/true};
}  // namespace board

// The "user": three presses of 20 ms, as a GPIO interrupt would report them.
static void* user(void* ex) {
    for (int i = 0; i < 3; ++i) {
        ::usleep(20'000);
        board::but0.press();
        ::usleep(20'000);
        board::but0.release();
    }
    ::usleep(20'000);
    static_cast<weft::executor*>(ex)->request_stop();
    return nullptr;
}

int main() {
    // Static: start()'s connections are function-local statics, destroyed
    // at exit, and they detach from the executor then (a local executor
    // was gone by that time: ASan, detect_stack_use_after_return=1).
    static weft::executor ex{{"blinky", weft::clock_mode::real}};
    start(ex);
    pthread_t script;
    pthread_create(&script, nullptr, &user, &ex);
    ex.run();  // sleeps in the port between presses: no polling
    pthread_join(script, nullptr);
    return board::led0.writes() == 6 ? 0 : 1;
}
