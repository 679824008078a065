// SPDX-License-Identifier: Apache-2.0
// Instruction counts of channels on the board (bench/run target-csp).
// Method as in core_bench.cpp: under `qemu-system-arm -icount
// shift=0,sleep=off` a now_ns() difference is an instruction count; each
// workload runs for N and for 0 operations on the same code path and the
// difference is divided by N. One JSON line per workload (shared/BENCH.md).
#include <weft/core.hpp>
#include <weft/csp.hpp>
#include <weft_port/board/button.hpp>
#include <weft_port/board/fpgaio.hpp>
#include <weft_port/board/led.hpp>
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

// button_to_led: seed 003's button-blinky end to end, as its application
// is written (examples/button_blinky): IRQ -> button driver -> bchan ->
// task -> lchan -> LED connection -> FPGAIO register. An op is one edge;
// the task raises the next one before it waits, as in isr_to_channel.
board::led bench_led{"led0", 0};
task<> blinky(channel<bool>& b, channel<bool>& l, int n) {
    for (int i = 0; i < n; ++i) {
        port::cortex_m::disable_interrupts();
        mps2::pend_irq(mps2::soft_irq0);
        auto on = co_await recv(b);
        (void)co_await send(l, *on);
    }
}

std::uint64_t button_led_run(int n) {
    executor ex;
    channel<bool> b{"bchan"}, l{"lchan"};
    auto bc = connect(ex, b, bench_button);
    auto lc = connect(ex, l, bench_led);
    const unsigned before = bench_led.writes();
    std::uint64_t t0 = port::now_ns();
    auto h = ex.spawn(blinky(b, l, n));
    check(h);
    (void)ex.run();
    port::cortex_m::enable_interrupts();
    std::uint64_t t = port::now_ns() - t0;
    if (bench_led.writes() - before != unsigned(n)) port::fatal("bench: button_to_led: an edge did not reach the LED");
    return t;
}

// The C that button-blinky replaces (seed 003, Table 1: interrupt-based),
// as bare metal writes it: the sampling ISR (soft_irq1) detects the edge
// and pushes it into a 16-entry ring; the main loop sleeps in WFI until
// the ring holds an edge, pops it and writes the LED register. Same
// button read, same edge detection, same masked LED update as the weft
// drivers; no tasks, no channels, no executor. Measured as a peer
// (system "c_superloop").
namespace plain_c {
volatile std::uint32_t head = 0, tail = 0;  // the ISR advances head, the loop tail
volatile bool ring[16];
bool last = false;
unsigned lost = 0, writes = 0;
}  // namespace plain_c

std::uint64_t c_superloop_run(int n) {
    using namespace plain_c;
    std::uint64_t t0 = port::now_ns();
    for (int i = 0; i < n; ++i) {
        port::cortex_m::disable_interrupts();
        mps2::pend_irq(mps2::soft_irq1);
        while (head == tail) {  // masked: no edge slips in between the test and WFI
            port::cortex_m::wait_for_interrupt();
            port::cortex_m::enable_interrupts();  // the ISR runs here
            port::cortex_m::disable_interrupts();
        }
        port::cortex_m::enable_interrupts();
        const std::uint32_t t = tail;
        const bool on = ring[t % 16];
        tail = t + 1;
        {
            port::critical_section cs;
            auto& r = board::fpgaio::leds();
            r = on ? (r | 1u) : (r & ~1u);
        }
        ++writes;
    }
    std::uint64_t t = port::now_ns() - t0;
    if (lost != 0) port::fatal("bench: c_superloop lost an edge");
    return t;
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

// c_superloop's sampling ISR: button.sample()'s work, written out.
extern "C" void weft_irq_handler_30() {
    using namespace plain_c;
    level = !level;
    const bool now = (board::fpgaio::buttons() & 1u) != 0 || level;
    if (now == last) return;
    last = now;
    const std::uint32_t h = head;
    if (h - tail == 16) {
        ++lost;
        return;
    }
    ring[h % 16] = now;
    head = h + 1;
}

int main() {
    mps2::enable_irq(mps2::soft_irq0);
    mps2::enable_irq(mps2::soft_irq1);
    (void)PROF_FN(PROF_WARM);
    asm volatile("nop; nop; nop; nop; nop; nop; nop" ::: "memory");
    (void)PROF_FN(PROF_N);
    asm volatile("nop; nop; nop; nop; nop; nop; nop" ::: "memory");
    return 0;
}
