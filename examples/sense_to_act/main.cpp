// SPDX-License-Identifier: Apache-2.0
// Seed 001, Fig. 3 and Fig. 8: Sensor -> Processing -> Actuator at 1 ms,
// deadlines 20 us (sensor) and 1 ms (actuator). Fig. 8 adds `after 1 ms`
// between Processing and Actuator: a pipeline whose actuation happens
// exactly one period later, alongside the next sensor reading.
// Real clock; processing busy-waits to emulate load. Prints deadline
// misses and the measured lag (physical - logical time) at the actuator.
#include <weft/core.hpp>
#include <weft/reactor.hpp>

#include <cstdio>

using namespace weft;
using namespace weft::reactors;

static void busy(basic_environment& env, duration d) {
    duration until = env.physical_time() + d;
    while (env.physical_time() < until) {}
}

struct sensor : reactor {
    using reactor::reactor;
    timer t{*this, "t", 0ms, 1ms};
    output<int> value{*this, "value"};
    int n_ = 0, misses_ = 0;
    reaction read{*this, "read", on(t), writes(value), [this] { value.set(++n_); },
                  deadline(20us, [this] { ++misses_; value.set(++n_); })};
};

struct processing : reactor {
    processing(place p, const char* name, duration load) : reactor(p, name), load_(load) {}
    duration load_;
    input<int> in{*this, "in"};
    output<int> out{*this, "out"};
    reaction compute{*this, "compute", on(in), writes(out), [this] { busy(env(), load_); out.set(in.get() * 2); }};
};

struct actuator : reactor {
    using reactor::reactor;
    input<int> cmd{*this, "cmd"};
    int misses_ = 0;
    long long count_ = 0, lag_sum_ns_ = 0, lag_max_ns_ = 0;
    void record() {
        long long lag = (physical_time() - logical_time()).count();
        ++count_;
        lag_sum_ns_ += lag;
        if (lag > lag_max_ns_) lag_max_ns_ = lag;
    }
    reaction act{*this, "act", on(cmd), [this] { record(); }, deadline(1ms, [this] { ++misses_; record(); })};
};

// [docs:sense_to_act]
struct sense_to_act : reactor {
    sense_to_act(basic_environment& e, duration load, bool pipelined)
        : reactor(e, pipelined ? "fig8" : "fig3"), proc{*this, "processing", load} {
        connect(s.value, proc.in);
        if (!pipelined) connect(proc.out, a.cmd);
    }
    sensor s{*this, "sensor"};
    processing proc;
    actuator a{*this, "actuator"};
};
struct pipelined : sense_to_act {
    pipelined(basic_environment& e, duration load) : sense_to_act(e, load, true) {}
    after<int> delay{*this, "delay", proc.out, a.cmd, 1ms};  // Fig. 8
};
// [docs:sense_to_act]

template <class App>
bool run(const char* label, duration load) {
    environment<8, 16> env{{.name = label, .timeout = 500ms}};
    App app{env, load};
    executor ex{{"main"}};
    if (status s = env.run(ex); !s) {
        std::printf("%-28s load %4lld us: %s\n", label, (long long)(load.count() / 1000), s.err().message().c_str());
        return false;
    }
    std::printf("%-28s load %4lld us: %lld actuations, sensor misses %d, actuator misses %d, lag mean %lld us max %lld us\n",
                label, (long long)(load.count() / 1000), app.a.count_, app.s.misses_, app.a.misses_,
                app.a.count_ ? app.a.lag_sum_ns_ / app.a.count_ / 1000 : 0, app.a.lag_max_ns_ / 1000);
    return true;
}

struct direct : sense_to_act {
    direct(basic_environment& e, duration load) : sense_to_act(e, load, false) {}
};

int main() {
    bool ok = run<direct>("Fig. 3 (no delay)", 100us);
    ok &= run<direct>("Fig. 3 (no delay)", 950us);
    ok &= run<pipelined>("Fig. 8 (after 1 ms)", 100us);
    ok &= run<pipelined>("Fig. 8 (after 1 ms)", 950us);
    return ok ? 0 : 1;
}
