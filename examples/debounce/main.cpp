// SPDX-License-Identifier: Apache-2.0
// Seed 001, Fig. 1: a physical action with 10 ms minimum spacing (drop
// policy) debounces a bouncing button. The button is a task that plays a
// recorded bounce pattern (virtual clock, so the output is exact).
#include <weft/core.hpp>
#include <weft/reactor.hpp>

#include <cstdio>

using namespace weft;
using namespace weft::reactors;

frame_pool<1024, 4> frames{"debounce"};

// [docs:debounce]
struct button_debounce : reactor {
    using reactor::reactor;
    physical_action<int> press{*this, "press", 0ms, 10ms, spacing_policy::drop};
    int presses_ = 0;
    reaction handle{*this, "handle", on(press), [this] {
        std::printf("%3lld ms: press %d accepted (edge %d)\n",
                    (long long)(logical_time().count() / 1'000'000), ++presses_, press.get());
    }};
};
// [docs:debounce]

// Two presses, each with contact bounce: edges at these milliseconds.
task<> bouncing_button(button_debounce& b) {
    const int edges_ms[] = {100, 101, 103, 104, 108, 300, 302, 303, 309, 315};
    int i = 0;
    for (int t : edges_ms) {
        co_await sleep_until(from_ns(std::uint64_t(t) * 1'000'000u));
        (void)b.press.schedule(i++);  // what the GPIO ISR would do
    }
}

int main() {
    environment<8, 8> env{{.name = "debounce", .timeout = 500ms}};
    button_debounce app{env, "button"};
    executor ex{{"main", clock_mode::virtual_}};
    if (status s = env.start(ex); !s) { std::printf("%s\n", s.err().message().c_str()); return 1; }
    auto h = ex.spawn(bouncing_button(app));
    if (!h) { std::printf("%s\n", h.err().message().c_str()); return 1; }
    ex.run();
    if (status s = env.outcome(); !s) { std::printf("%s\n", s.err().message().c_str()); return 1; }
    std::printf("%d presses from 10 edges; %u edges dropped by min spacing\n", app.presses_,
                unsigned(app.press.dropped()));
    return 0;
}
