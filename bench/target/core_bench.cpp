// SPDX-License-Identifier: Apache-2.0
// Instruction counts of the core on the board (bench/run target-core).
// Run under `qemu-system-arm -icount shift=0,sleep=off`: one instruction
// advances the port clock by exactly 1 ns, so now_ns() differences are
// instruction counts. Every workload is timed for N and for 0 operations
// with the same code path and the difference divided by N, which removes
// set-up, the clock reads and the 40 ns tick granularity (N is large).
// Prints one JSON line per workload (shared/BENCH.md).
#include <weft/core.hpp>
#include <weft_port/mps2.hpp>

#include <cstdio>

#include "instr_report.hpp"

using namespace weft;
using namespace std::chrono_literals;
namespace mps2 = weft::port::mps2;

namespace {

frame_pool<256, 10> frames{"bench"};

task<> yielder(int n) {
    for (int i = 0; i < n; ++i) co_await yield();
}

// yield_roundtrip: two tasks at one priority yield to each other; an op is
// one switch (one co_await yield() that resumes the other task).
std::uint64_t yield_run(int n) {
    executor ex;
    std::uint64_t t0 = port::now_ns();
    auto a = ex.spawn(yielder(n));
    auto b = ex.spawn(yielder(n));
    (void)ex.run();
    (void)a; (void)b;
    return port::now_ns() - t0;
}

split_phase<int>* isr_op = nullptr;

task<> isr_waiter(int n) {
    for (int i = 0; i < n; ++i) {
        // Raise the interrupt with interrupts masked: it is taken only when
        // the executor, finding nothing to run, unmasks around its WFI.
        port::cortex_m::disable_interrupts();
        mps2::pend_irq(mps2::soft_irq0);
        (void)co_await *isr_op;
    }
}

// isr_to_task: a task waits on split_phase; the interrupt completes it; an
// op is one full cycle (raise -> handler -> complete -> executor wakes ->
// task resumed -> task waits again).
std::uint64_t isr_run(int n) {
    executor ex;
    split_phase<int> op{"bench_irq"};
    isr_op = &op;
    std::uint64_t t0 = port::now_ns();
    auto h = ex.spawn(isr_waiter(n));
    (void)ex.run();
    (void)h;
    port::cortex_m::enable_interrupts();
    return port::now_ns() - t0;
}

task<> sleeper(int n) {
    for (int i = 0; i < n; ++i) co_await sleep_for(1ms);
}

// timer_fire: sleep_for() on an executor with the virtual clock (time jumps
// to the next timer when idle, so no WFI is counted); an op is arm + fire +
// resume of one timer.
std::uint64_t timer_run(int n) {
    executor ex{executor_config{"bench", clock_mode::virtual_}};
    std::uint64_t t0 = port::now_ns();
    auto h = ex.spawn(sleeper(n));
    (void)ex.run();
    (void)h;
    return port::now_ns() - t0;
}

task<> empty_task() { co_return; }

// spawn_complete: spawn a task (frame from a pool), run it to completion,
// free its frame; batches of 8.
std::uint64_t spawn_run(int batches) {
    executor ex;
    std::uint64_t t0 = port::now_ns();
    for (int b = 0; b < batches; ++b) {
        for (int i = 0; i < 8; ++i) {
            auto h = ex.spawn(empty_task());
            (void)h;
        }
        (void)ex.run();
    }
    return port::now_ns() - t0;
}

void report(const char* workload, std::uint64_t (*run)(int), int n, int ops_per_n) {
    bench_target::measure("target-core", workload, run, n, ops_per_n);
}

}  // namespace

extern "C" void weft_irq_handler_31() {
    if (isr_op) (void)isr_op->complete(0);
}

int main() {
    mps2::enable_irq(mps2::soft_irq0);
    int n = 20000;
    report("yield_roundtrip", yield_run, n, 2);
    report("isr_to_task", isr_run, n, 1);
    report("timer_fire", timer_run, n, 1);
    report("spawn_complete", spawn_run, n / 8, 8);
    return 0;
}
