// SPDX-License-Identifier: Apache-2.0
// Instruction counts of channels on the board (bench/run target-csp).
// Method as in core_bench.cpp: under `qemu-system-arm -icount
// shift=0,sleep=off` a now_ns() difference is an instruction count; each
// workload runs for N and for 0 operations on the same code path and the
// difference is divided by N. One JSON line per workload (shared/BENCH.md).
#include <weft/core.hpp>
#include <weft/csp.hpp>
#include <weft_port/board/button.hpp>
#include <weft_port/mps2.hpp>

#include <cstdio>

#include "instr_report.hpp"

using namespace weft;
using namespace weft::csp;
namespace mps2 = weft::port::mps2;

namespace {

// choose_8's consumer frame holds eight receive offers (~600 B at -Os).
frame_pool<768, 10> frames{"bench"};

// A failed spawn would leave its partners blocked forever: stop loudly.
template <class T>
void check(const result<T>& h) {
    if (!h) port::fatal(h.err().message().c_str());
}

// pingpong_rendezvous: two rendezvous channels; ping sends i, pong echoes
// it back. An op is one round trip (two rendezvous, two task switches).
// The same work as FreeRTOS's queue ping-pong (two length-1 queues).
channel<int> ping_ch{"ping"}, pong_ch{"pong"};
task<> pinger(int n) {
    for (int i = 0; i < n; ++i) {
        (void)co_await send(ping_ch, i);
        (void)co_await recv(pong_ch);
    }
}
task<> ponger(int n) {
    for (int i = 0; i < n; ++i) {
        auto v = co_await recv(ping_ch);
        (void)co_await send(pong_ch, *v);
    }
}
std::uint64_t pingpong_run(int n) {
    executor ex;
    std::uint64_t t0 = port::now_ns();
    auto a = ex.spawn(pinger(n));
    auto b = ex.spawn(ponger(n));
    check(a);
    check(b);
    (void)ex.run();
    return port::now_ns() - t0;
}

// throughput_buffered: one producer, one consumer, a 64-slot channel; an
// op is one value through it (the tasks switch once per full/empty ring).
channel<int, 64> buf_ch{"buf"};
task<> producer(int n) {
    for (int i = 0; i < n; ++i) (void)co_await send(buf_ch, i);
}
task<> consumer(int n) {
    for (int i = 0; i < n; ++i) (void)co_await recv(buf_ch);
}
std::uint64_t buffered_run(int n) {
    executor ex;
    std::uint64_t t0 = port::now_ns();
    auto c = ex.spawn(consumer(n));
    auto p = ex.spawn(producer(n));
    check(c);
    check(p);
    (void)ex.run();
    return port::now_ns() - t0;
}

// choose_8: one consumer selects over 8 rendezvous channels, each fed by
// its own producer; an op is one choose that commits (offers on 8
// channels, one match, 7 withdrawals, switches).
constexpr int fanin = 8;
channel<int> fan[fanin];
task<> fan_producer(channel<int>& ch, int n) {
    for (int i = 0; i < n; ++i) (void)co_await send(ch, i);
}
task<> fan_consumer(int n) {
    for (int i = 0; i < n; ++i)
        (void)co_await choose(recv(fan[0]), recv(fan[1]), recv(fan[2]), recv(fan[3]), recv(fan[4]),
                              recv(fan[5]), recv(fan[6]), recv(fan[7]));
}
std::uint64_t choose_run(int n) {
    executor ex;
    std::uint64_t t0 = port::now_ns();
    auto c = ex.spawn(fan_consumer(n * fanin));
    check(c);
    for (auto& ch : fan) check(ex.spawn(fan_producer(ch, n)));
    (void)ex.run();
    return port::now_ns() - t0;
}

// isr_to_channel: a button edge from a real interrupt handler to a task
// blocked in recv: handler samples the button -> driver FIFO -> post ->
// executor wakes -> connection reads the driver -> rendezvous -> task
// resumed -> task receives again. An op is one edge.
board::button bench_button{"but0", 0};
bool level = false;
task<> edge_receiver(channel<bool>& ch, int n) {
    for (int i = 0; i < n; ++i) {
        // Raised masked: taken when the idle executor unmasks around WFI.
        port::cortex_m::disable_interrupts();
        mps2::pend_irq(mps2::soft_irq0);
        (void)co_await recv(ch);
    }
}
std::uint64_t isr_channel_run(int n) {
    executor ex;
    channel<bool> ch{"bchan"};
    auto conn = connect(ex, ch, bench_button);
    std::uint64_t t0 = port::now_ns();
    auto h = ex.spawn(edge_receiver(ch, n));
    check(h);
    (void)ex.run();
    port::cortex_m::enable_interrupts();
    return port::now_ns() - t0;
}

void report(const char* workload, std::uint64_t (*run)(int), int n, int ops_per_n) {
    bench_target::measure("target-csp", workload, run, n, ops_per_n, ",\"allocations\":0");
}

}  // namespace

extern "C" void weft_irq_handler_31() {
    level = !level;
    bench_button.inject(level);
    (void)bench_button.sample();
}

int main() {
    mps2::enable_irq(mps2::soft_irq0);
    int n = 20000;
    report("pingpong_rendezvous", pingpong_run, n, 1);
    report("throughput_buffered", buffered_run, n, 1);
    report("choose_8", choose_run, n / 8, 8);
    report("isr_to_channel", isr_channel_run, n, 1);
    return 0;
}
