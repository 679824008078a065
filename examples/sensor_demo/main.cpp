// SPDX-License-Identifier: Apache-2.0
// weft's flagship host demo: tasks at three priorities, timers, and a
// "sensor" whose readings arrive from an interrupt (simulated on the host by
// a thread), all on one executor with static frames and no heap.
#include <weft/core.hpp>
#include <weft_port/interrupt_thread.hpp>

#include <cstdio>

using namespace std::chrono_literals;

// [docs:demo-pools]
// All coroutine frames of the program, sized at compile time.
weft::frame_pool<512, 6> frames{"demo"};
// [docs:demo-pools]

namespace {

weft::executor ex{{"demo", weft::clock_mode::real}};
weft::split_phase<int> sensor{"temperature"};  // completed by the "ISR"
weft::event overheat{"overheat"};
int readings_left = 12;

weft::time_point start;
double t() { return double(weft::to_ns(ex.now()) - weft::to_ns(start)) / 1e6; }

// [docs:demo-reader]
// Priority 5: waits for each reading from the interrupt, with a timeout.
weft::task<> reader() {
    while (readings_left > 0) {
        auto v = co_await weft::with_timeout(sensor.wait(), 200ms);
        if (!v) {
            std::printf("%7.1f ms  reader    : %s\n", t(), v.err().message().c_str());
            continue;
        }
        --readings_left;
        std::printf("%7.1f ms  reader    : %d.%d C\n", t(), *v / 10, *v % 10);
        if (*v >= 300) overheat.set();
    }
    overheat.set();  // lets the alarm task finish too
}
// [docs:demo-reader]

// Priority 9: runs the moment an overheat is flagged, ahead of everything.
weft::task<> alarm() {
    int alarms = 0;
    while (readings_left > 0) {
        co_await overheat.wait();
        overheat.reset();
        if (readings_left > 0) std::printf("%7.1f ms  ALARM     : overheat #%d\n", t(), ++alarms);
    }
}

// Priority 1: background heartbeat on a timer.
weft::task<> heartbeat() {
    int beat = 0;
    while (readings_left > 0) {
        co_await weft::sleep_for(150ms);
        std::printf("%7.1f ms  heartbeat : %d\n", t(), ++beat);
    }
}

}  // namespace

int main() {
    start = ex.now();
    // The simulated ADC interrupt: a new sample every 40 ms, a ramp that
    // reaches 300 three times (301, then 305 and 312).
    // After the sixth sample the sensor goes quiet for 240 ms, so the
    // reader's 200 ms timeout fires once.
    int sample = 0, quiet = 0;
    weft::port::interrupt_thread adc_irq{40ms, [&] {
        static const int ramp[] = {215, 240, 262, 288, 301, 296, 270, 305, 312, 280, 250, 230};
        if (sample == 6 && quiet++ < 6) return;
        if (sample < 12) (void)sensor.complete(ramp[sample++]);
    }};

    auto r = ex.spawn(reader(), 5);
    auto a = ex.spawn(alarm(), 9);
    auto h = ex.spawn(heartbeat(), 1);
    if (!r || !a || !h) {
        std::printf("spawn failed: %s\n", (!r ? r.err() : !a ? a.err() : h.err()).message().c_str());
        return 1;
    }
    ex.external_begin();  // the ADC interrupt may wake us at any time
    weft::run_outcome outcome = ex.run();
    ex.external_end();
    adc_irq.stop();

    std::printf("done: %s after %.0f ms\n",
                outcome == weft::run_outcome::completed ? "all tasks finished" : "stopped", t());
    std::printf("frames:\n");
    std::fflush(stdout);
    weft::print_frame_report();
    return 0;
}
