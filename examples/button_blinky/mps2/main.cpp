// SPDX-License-Identifier: Apache-2.0
// button_blinky on the MPS2 board. The button is sampled by a periodic
// interrupt (the second half of the CMSDK dual timer, every 20 ms), which
// is also how a real board would debounce it. QEMU cannot press the FPGAIO
// button, so the same interrupt plays the user: it holds the button
// (but0.inject) on ticks 1, 3, 5 and lets go on ticks 2, 4, 6, then stops
// the executor. Between ticks the executor sleeps in WFI.
#include <weft/core.hpp>
#include <weft_port/mps2.hpp>

#include "app.hpp"

namespace mps2 = weft::port::mps2;

namespace board {
weft::frame_pool<256, 1> frames{"blinky"};
weft::board::button but0{"but0", 0};
weft::board::led led0{"led0", 0, /*verbose=*/true};
}  // namespace board

namespace {
weft::executor* blinky_ex = nullptr;
volatile unsigned ticks = 0;

void start_user(std::uint32_t period_ticks) {
    auto& t = mps2::dualtimer2();
    t.control = 0;
    t.intclr = 1;
    t.load = period_ticks;
    t.control = mps2::dualtimer_enable | mps2::dualtimer_periodic | mps2::dualtimer_32bit |
                mps2::dualtimer_irq_enable;
}
}  // namespace

// The sampling interrupt (dual timer 2, shares IRQ 10 with the port's alarm).
extern "C" void weft_dualtimer2_handler() {
    mps2::dualtimer2().intclr = 1;
    unsigned t = ticks + 1;
    ticks = t;
    if (t <= 6) board::but0.inject(t % 2 == 1);  // the user's finger
    (void)board::but0.sample();
    if (t == 7) {
        mps2::dualtimer2().control = 0;
        blinky_ex->request_stop();
    }
}

int main() {
    weft::executor ex{{"blinky", weft::clock_mode::real}};
    start(ex);
    blinky_ex = &ex;
    start_user(20'000'000 / mps2::ns_per_tick);
    ex.run();  // sleeps in WFI between interrupts: no polling
    const char done[] = "button_blinky done\n";
    weft::port::console_write(done, sizeof done - 1);
    return board::led0.writes() == 6 && !board::led0.on() ? 0 : 1;
}
