// SPDX-License-Identifier: Apache-2.0
#pragma once
// A pedestrian-crossing traffic light as reactors: the application, the
// same on every board. main.cpp wires it to a scripted button and an
// emergency receiver on the virtual clock.
//
//               press, and 20 s of green
//   cars_green ──────────────────────────> cars_yellow
//       ^                                       │ 3 s
//       │ 4 s (8 x 500 ms)                      v
//   cars_red_flash <───────── 8 s ───────── cars_red_walk
//
//   emergency on: any mode ──reset──> all_red ──reset (emergency off)──> cars_green
#include <weft/reactor.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>

namespace traffic {

using namespace weft;
using namespace weft::reactors;

enum class cars : std::uint8_t { green, yellow, red };

/// What the lamps show.
struct aspect {
    cars car = cars::red;
    bool walk = false;
};

inline long long ms(duration d) { return (long long)std::chrono::duration_cast<std::chrono::milliseconds>(d).count(); }

// [docs:traffic_light]
/// The crossing's logic. Every transition is a reset: after an emergency
/// the cycle restarts from a full minimum green; a history entry would
/// resume a walk phase half-way once the emergency vehicle has passed.
struct controller : reactor {
    using reactor::reactor;
    input<bool> emergency{*this, "emergency"};
    output<aspect> lamps{*this, "lamps"};
    // The button's interrupt schedules this; contact bounce closer than
    // 200 ms to an accepted press is dropped.
    physical_action<> button{*this, "button", 0ms, 200ms, spacing_policy::drop};

    mode cars_green{*this, "cars_green", initial};
    mode cars_yellow{*this, "cars_yellow"};
    mode cars_red_walk{*this, "cars_red_walk"};
    mode cars_red_flash{*this, "cars_red_flash"};
    mode all_red{*this, "all_red"};

    bool walk_requested_ = false;  // at most one press is remembered

    timer min_green{cars_green, "min_green", 20s};
    reset_state<bool> min_green_over{cars_green, false};
    reaction green{cars_green, "green", on(startup(), cars_green.on_reset()), writes(lamps),
                   [this] { lamps.set({cars::green, false}); }};
    reaction serve{cars_green, "serve", on(button, min_green), [this] {
        if (button.is_present()) request_walk();
        if (min_green.is_present()) min_green_over = true;
        if (walk_requested_ && min_green_over) set_mode(cars_yellow);
    }};

    timer yellow_over{cars_yellow, "yellow_over", 3s};
    reaction yellow{cars_yellow, "yellow", on(cars_yellow.on_reset()), writes(lamps), [this] {
        walk_requested_ = false;  // served now; presses until the flashing starts are ignored
        lamps.set({cars::yellow, false});
    }};
    reaction to_walk{cars_yellow, "to_walk", on(yellow_over), [this] { set_mode(cars_red_walk); }};

    timer walk_over{cars_red_walk, "walk_over", 8s};
    reaction walk{cars_red_walk, "walk", on(cars_red_walk.on_reset()), writes(lamps),
                  [this] { lamps.set({cars::red, true}); }};
    reaction to_flash{cars_red_walk, "to_flash", on(walk_over), [this] { set_mode(cars_red_flash); }};

    timer blink{cars_red_flash, "blink", 0ms, 500ms};
    reset_state<int> blinks{cars_red_flash, 0};
    reaction flash{cars_red_flash, "flash", on(blink), writes(lamps), [this] {
        if (++blinks.get() > 8) { set_mode(cars_green); return; }  // 8 x 500 ms = 4 s
        lamps.set({cars::red, blinks % 2 == 0});
    }};
    reaction late_press{cars_red_flash, "late_press", on(button), [this] { request_walk(); }};

    reaction stop_all{all_red, "stop_all", on(all_red.on_reset()), writes(lamps),
                      [this] { lamps.set({cars::red, false}); }};
    reaction held_press{all_red, "held_press", on(button), [this] { request_walk(); }};

    // Declared last: in a tag where another reaction also asks for a
    // transition, the emergency's request is the later one and wins.
    reaction preempt{*this, "preempt", on(emergency), [this] {
        if (emergency.get() && !all_red.active()) set_mode(all_red);
        else if (!emergency.get() && all_red.active()) set_mode(cars_green);
    }};

private:
    void request_walk() {
        if (walk_requested_) return;
        walk_requested_ = true;
        std::printf("%6lld ms: walk requested\n", ms(logical_time()));
    }
};

/// Drives the lamps (here: prints them). Must switch within 1 ms of the
/// decision; if it is late it still switches, and reports by how much.
struct lamp_driver : reactor {
    using reactor::reactor;
    input<aspect> in{*this, "in"};
    unsigned late_ = 0;
    reaction drive{*this, "drive", on(in), [this] { show(); }, deadline(1ms, [this] {
        ++late_;
        const auto lag = std::chrono::duration_cast<std::chrono::microseconds>(physical_time() - logical_time());
        std::printf("%6lld ms: DEADLINE lamps late by %lld us (limit 1000 us)\n", ms(logical_time()),
                    (long long)lag.count());
        show();
    })};

private:
    void show() {
        static constexpr const char* car_names[] = {"green", "yellow", "red"};
        std::printf("%6lld ms: cars %-6s  walk %s\n", ms(logical_time()), car_names[int(in.get().car)],
                    in.get().walk ? "on" : "off");
    }
};
// [docs:traffic_light]

}  // namespace traffic
