// SPDX-License-Identifier: Apache-2.0
// A pipeline of processes joined by buffered channels:
//
//   sampler --raw(4)--> outlier filter --clean(4)--> smoother --smooth(2)--> logger (slow)
//
// The sampler produces every 1 ms, the logger needs 10 ms per value. The
// channels' static capacity is the back-pressure: once they are full the
// sampler's send waits (the sampler is suspended, nothing is dropped or
// allocated), and it then runs at the logger's pace. Closing the first
// channel shuts the pipeline down stage by stage. Virtual clock: the
// output is exact.
#include <weft/core.hpp>
#include <weft/csp.hpp>

#include <cstdio>

using namespace weft;
using namespace weft::csp;

frame_pool<1024, 4> frames{"pipeline"};
executor* exec = nullptr;

long long ms() { return (long long)(to_ns(exec->now()) / 1'000'000); }

// [docs:pipeline]
channel<int, 4> raw{"raw"};
channel<int, 4> clean{"clean"};
channel<int, 2> smooth{"smooth"};

// Produces one sample per millisecond; reports when back-pressure stops it.
task<> sampler(int count) {
    for (int i = 0; i < count; ++i) {
        int sample = (i % 7 == 6) ? 999 : 10 * i;  // every 7th sample is a glitch
        auto r = raw.try_send(sample);
        if (!r) {  // full: wait for room, and show how long the pipeline held us
            long long t0 = ms();
            if (!co_await send(raw, r.value())) break;
            std::printf("[%3lld ms] sampler: raw full at sample %d, waited %lld ms\n", ms(), i, ms() - t0);
        }
        co_await sleep_for(1ms);
    }
    raw.close();  // end of stream: the stages drain and close in turn
}

// Drops glitches (reported, not silently lost).
task<> outlier_filter() {
    for (;;) {
        auto v = co_await recv(raw);
        if (!v) break;  // closed and drained
        if (*v > 500) { std::printf("[%3lld ms] filter: dropped outlier %d\n", ms(), *v); continue; }
        if (!co_await send(clean, *v)) break;
    }
    clean.close();
}

// Average of the last two values.
task<> smoother() {
    int previous = 0;
    bool first = true;
    for (;;) {
        auto v = co_await recv(clean);
        if (!v) break;
        int out = first ? *v : (previous + *v) / 2;
        previous = *v;
        first = false;
        if (!co_await send(smooth, out)) break;
    }
    smooth.close();
}

// The slow consumer: 10 ms per value (a flash write, say).
task<> logger(int& logged) {
    for (;;) {
        auto v = co_await recv(smooth);
        if (!v) break;
        co_await sleep_for(10ms);
        std::printf("[%3lld ms] logger: %d\n", ms(), *v);
        ++logged;
    }
    std::printf("[%3lld ms] logger: stream closed after %d values\n", ms(), logged);
}
// [docs:pipeline]

int main() {
    executor ex{{"pipeline", clock_mode::virtual_}};
    exec = &ex;
    int logged = 0;
    auto check = [](auto&& h) {
        if (!h) std::printf("%s\n", h.err().message().c_str());
        return bool(h);
    };
    if (!check(ex.spawn(sampler(20))) || !check(ex.spawn(outlier_filter())) || !check(ex.spawn(smoother())) ||
        !check(ex.spawn(logger(logged))))
        return 1;
    run_outcome o = ex.run();
    return o == run_outcome::completed && logged == 18 ? 0 : 1;
}
