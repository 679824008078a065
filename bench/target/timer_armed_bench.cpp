// SPDX-License-Identifier: Apache-2.0
// The switch workloads of core_bench and csp_bench with one timer armed
// far from due (bench/run target-core and target-csp, workloads
// `*_timer_armed`): a third task sleeps for an hour while two tasks yield
// to each other or ping-pong over rendezvous channels, which is how a real
// program runs (a periodic task, a pending timeout). The benchmarks without
// a timer hide what an armed one costs every switch, so both are counted.
// Their own firmware (built twice: TIMER_ARMED_CSP 0 for target-core, 1
// for target-csp): adding these workloads to core_bench or csp_bench
// changes how GCC -Os inlines shared code there, and so their counts.
// Run under `qemu-system-arm -icount shift=0,sleep=off` (instr_report.hpp).
#include <weft/core.hpp>
#if TIMER_ARMED_CSP
#include <weft/csp.hpp>
using namespace weft::csp;
#endif
#include <weft_port/mps2.hpp>

#include "instr_report.hpp"

using namespace weft;
namespace port = weft::port;

namespace {

frame_pool<256, 10> frames{"bench"};

task<> far_sleeper() { (void)co_await sleep_for(std::chrono::hours(1)); }

// Spawns the sleeper (on the executor's real clock), runs `body`'s tasks,
// then cancels the sleeper from the last of them so that run() completes.
template <class Spawn>
std::uint64_t with_far_timer(Spawn spawn_work) {
    executor ex;
    auto sleeper = ex.spawn(far_sleeper());
    if (!sleeper) port::fatal(sleeper.err().message().c_str());
    std::uint64_t t0 = port::now_ns();
    spawn_work(ex, *sleeper);
    (void)ex.run();
    return port::now_ns() - t0;
}

#if !TIMER_ARMED_CSP
// yield_timer_armed: core_bench's yield_roundtrip; an op is one switch.
task<> yielder(int n, join_handle<void>* then_cancel) {
    for (int i = 0; i < n; ++i) co_await yield();
    if (then_cancel) then_cancel->cancel();
}
std::uint64_t yield_run(int n) {
    return with_far_timer([n](executor& ex, join_handle<void>& sleeper) {
        auto a = ex.spawn(yielder(n, &sleeper));
        auto b = ex.spawn(yielder(n, nullptr));
        if (!a || !b) port::fatal("bench: no frame for a yielder");
    });
}
#else
// pingpong_timer_armed: csp_bench's pingpong_rendezvous; an op is one
// round trip (two rendezvous, two task switches).
channel<int> ping_ch{"ping"}, pong_ch{"pong"};
task<> pinger(int n) {
    for (int i = 0; i < n; ++i) {
        (void)co_await send(ping_ch, i);
        (void)co_await recv(pong_ch);
    }
}
task<> ponger(int n, join_handle<void>* then_cancel) {
    for (int i = 0; i < n; ++i) {
        auto v = co_await recv(ping_ch);
        (void)co_await send(pong_ch, *v);
    }
    then_cancel->cancel();
}
std::uint64_t pingpong_run(int n) {
    return with_far_timer([n](executor& ex, join_handle<void>& sleeper) {
        auto a = ex.spawn(pinger(n));
        auto b = ex.spawn(ponger(n, &sleeper));
        if (!a || !b) port::fatal("bench: no frame for a ping-pong task");
    });
}
#endif

}  // namespace

int main() {
    const int n = 20000;
#if !TIMER_ARMED_CSP
    bench_target::measure("target-core", "yield_timer_armed", yield_run, n, 2);
#else
    bench_target::measure("target-csp", "pingpong_timer_armed", pingpong_run, n, 1, ",\"allocations\":0");
#endif
    return 0;
}
