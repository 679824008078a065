// SPDX-License-Identifier: Apache-2.0
// The traffic light (traffic_light.hpp) in a scripted scenario on the
// virtual clock: a bouncing pedestrian button and an emergency-vehicle
// receiver, both interrupts (here: tasks sleeping until the scripted
// time). The output is exact; CTest example.traffic_light compares it
// with expected_output.txt.
#include "traffic_light.hpp"

#include <weft/core.hpp>

#include <cstdint>
#include <cstdio>

using namespace weft;
using namespace weft::reactors;
using traffic::controller;
using traffic::lamp_driver;

frame_pool<1024, 4> frames{"traffic_light"};

/// The emergency-vehicle receiver: a radio message (on/off) from its
/// interrupt, decoded and passed on as a port.
struct preemption_receiver : reactor {
    using reactor::reactor;
    physical_action<bool> message{*this, "message"};
    output<bool> active{*this, "active"};
    duration decode_time_{0};  // scenario: execution time of the next decode
    reaction decode{*this, "decode", on(message), writes(active), [this] {
        env().exec()->advance(decode_time_);  // virtual clock: as if decoding took this long
        decode_time_ = 0ms;
        active.set(message.get());
    }};
};

task<> at(std::int64_t t_ms) { co_await sleep_until(from_ns(std::uint64_t(t_ms) * 1'000'000u)); }

// Button edges (ms). Contact bounce follows each press by a few ms.
task<> pedestrian(controller& c) {
    const std::int64_t edges_ms[] = {
        5000,   5001,  5003, 5008,  // remembered, served when the minimum green is over (20 s)
        26000,  26002,              // during walk: ignored
        60000,  60004,              // minimum green long over: yellow at once
        73000,  73001,              // while the walk light flashes: remembered
        119000, 119150,             // after the emergency: remembered (the second edge is bounce)
        119300,                     // a second press: accepted, but one request is all we keep
    };
    for (std::int64_t t : edges_ms) {
        co_await at(t);
        (void)c.button.schedule();  // what the GPIO interrupt would do
    }
}

task<> emergency_radio(preemption_receiver& rx) {
    co_await at(80000);
    rx.decode_time_ = 2ms;  // a slow decode: the lamps miss their 1 ms deadline
    (void)rx.message.schedule(true);
    co_await at(90000);
    (void)rx.message.schedule(false);
    co_await at(115000);  // during a walk phase: not resumed afterwards
    (void)rx.message.schedule(true);
    co_await at(118000);
    (void)rx.message.schedule(false);
}

int main() {
    environment<16, 16> env{{.name = "traffic_light", .timeout = 145s}};
    controller crossing{env, "crossing"};
    lamp_driver lamps{env, "lamps"};
    preemption_receiver radio{env, "radio"};
    connect(crossing.lamps, lamps.in);
    connect(radio.active, crossing.emergency);

    executor ex{{"main", clock_mode::virtual_}};
    if (status s = env.start(ex); !s) { std::printf("%s\n", s.err().message().c_str()); return 1; }
    auto p = ex.spawn(pedestrian(crossing));
    auto r = ex.spawn(emergency_radio(radio));
    if (!p) { std::printf("%s\n", p.err().message().c_str()); return 1; }
    if (!r) { std::printf("%s\n", r.err().message().c_str()); return 1; }
    ex.run();
    if (status s = env.outcome(); !s) { std::printf("%s\n", s.err().message().c_str()); return 1; }
    std::printf("stopped at %lld ms; %u button edges dropped as bounce; %u late lamp switch(es)\n",
                traffic::ms(env.logical_time()), unsigned(crossing.button.dropped()), lamps.late_);
    return 0;
}
