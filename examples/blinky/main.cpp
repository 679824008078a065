// SPDX-License-Identifier: Apache-2.0
// blinky: one periodic task toggles user LED 0 every 500 ms and prints its
// state. The same source builds for the host (simulated LED) and for the
// MPS2 boards under QEMU (FPGAIO LED register).
#include <weft/core/executor.hpp>
#include <weft/core/sleep.hpp>
#include <weft/core/task.hpp>
#include <weft/port/port.hpp>
#include <weft_port/led.hpp>

using namespace std::chrono_literals;

namespace {

// [docs:blinky]
// blink()'s frame is ~150 B on the board (-Os) but over 256 B in an
// unoptimised 64-bit host build; one slot of 512 B serves both.
weft::frame_pool<512, 1> frames{"blinky"};

void say(const char* s) noexcept {
    std::size_t n = 0;
    while (s[n]) ++n;
    weft::port::console_write(s, n);
}

weft::task<> blink(int toggles) {
    for (int i = 0; i < toggles; ++i) {
        bool on = !weft::port::led_get(0);
        weft::port::led_set(0, on);
        say(on ? "led0 on\n" : "led0 off\n");
        co_await weft::sleep_for(500ms);
    }
}

}  // namespace

int main() {
    weft::executor ex;
    auto h = ex.spawn(blink(6));
    if (!h) {
        say(h.err().message().c_str());
        say("\n");
        return 1;
    }
    ex.run();
    say("blinky done\n");
    return 0;
}
// [docs:blinky]
