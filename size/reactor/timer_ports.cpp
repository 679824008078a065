// SPDX-License-Identifier: Apache-2.0
// Footprint row "reactor": two reactors, a periodic timer whose reaction
// sets an output connected to the other reactor's input (environment,
// assembly, event queue, scheduler, timers, ports; the core underneath).
// No frame pool: the program runs in the executor's callbacks, not as a task.
#include <weft/core/executor.hpp>
#include <weft/reactor/connection.hpp>
#include <weft/reactor/environment.hpp>
#include <weft/reactor/port.hpp>
#include <weft/reactor/reaction.hpp>
#include <weft/reactor/reactor.hpp>
#include <weft/reactor/timer.hpp>

using namespace std::chrono_literals;
using namespace weft::reactors;

namespace {
volatile int last = 0;

struct source : reactor {
    using reactor::reactor;
    timer tick{*this, "tick", 0ms, 10ms};
    output<int> out{*this, "out"};
    int n_ = 0;
    reaction r{*this, "r", on(tick), writes(out), [this] { out.set(++n_); }};
};
struct sink : reactor {
    using reactor::reactor;
    input<int> in{*this, "in"};
    reaction r{*this, "r", on(in), [this] { last = in.get(); }};
};

environment<4, 4> env{{.name = "app"}};
source src{env, "src"};
sink dst{env, "dst"};
}  // namespace

int main() {
    connect(src.out, dst.in);
    weft::executor ex;
    return env.run(ex) ? 0 : 1;
}
