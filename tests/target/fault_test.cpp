// SPDX-License-Identifier: Apache-2.0
// What a firmware prints, and how it exits, when it goes wrong: each build
// of this file (WEFT_FAULT = 1 to 7) ends in one fault, or (5 to 7) in a
// programming error a Debug build detects, and CTest checks the exit
// status (2, as for fatal()) and the console line
// (tests/target/CMakeLists.txt). A run that reaches the end of main()
// prints "0 passed, 1 failed" and exits 1: nothing was detected.
#include "target_test.hpp"

#include <weft/core/event.hpp>
#include <weft/core/sleep.hpp>
#include <weft/core/task.hpp>
#include <weft/csp/connect.hpp>
#include <weft_port/board/button.hpp>
#include <weft_port/mps2.hpp>

namespace {

volatile std::uint32_t sink;

// 64 frames of more than 256 bytes: twice the 8 KiB stack (WEFT_STACK_BYTES).
// Each frame's buffer escapes (into an asm that may keep its address), so
// no compiler may turn the recursion into a loop (Clang does otherwise).
[[gnu::noinline]] std::uint32_t deep(std::uint32_t n) {
    volatile std::uint32_t buf[64];
    buf[0] = n;
    __asm volatile("" : : "r"(buf) : "memory");
    sink = buf[0];
    return n == 0 ? 0 : deep(n - 1) + buf[0];
}

}  // namespace

// Handlers run on the same (main) stack: an overflow here is caught alike.
extern "C" void weft_irq_handler_31() { sink = deep(64); }

#if WEFT_FAULT == 6
// An executor-only call from a handler: the wake would edit the ready
// queue under the executor's feet.
weft::frame_pool<128, 2> frames{"fault_frames"};
weft::event sample_ready{"sample"};
extern "C" void weft_irq_handler_30() { sample_ready.set(); }

weft::task<> wait_for_sample() { (void)co_await sample_ready.wait(); }
// Runs once the first task waits (FIFO within a level).
weft::task<> start_conversion() {
    weft::port::mps2::pend_irq(weft::port::mps2::soft_irq1);
    co_return;
}
#endif

#if WEFT_FAULT == 7
weft::frame_pool<256, 1> frames{"fault_frames"};
weft::task<> nap() { co_await weft::sleep_for(std::chrono::milliseconds(1)); }
#endif

int main() {
    weft::target_test::say("fault test ", WEFT_FAULT, " on ", weft::port::target_name(), "\n");
#if WEFT_FAULT == 1
    sink = deep(64);  // runs off the end of the stack
#elif WEFT_FAULT == 2
    __asm volatile("udf #7");  // an undefined instruction
#elif WEFT_FAULT == 3
    weft::port::mps2::enable_irq(12);  // a line no handler was defined for
    weft::port::mps2::pend_irq(12);
#elif WEFT_FAULT == 4
    weft::port::mps2::enable_irq(weft::port::mps2::soft_irq0);
    weft::port::mps2::pend_irq(weft::port::mps2::soft_irq0);
#elif WEFT_FAULT == 5
    // The second connection would take over the button's interrupt node.
    weft::executor ex;
    weft::board::button but0{"but0"};
    weft::csp::channel<bool> first{"first"}, second{"second"};
    auto a = weft::csp::connect(ex, first, but0);
    auto b = weft::csp::connect(ex, second, but0);
#elif WEFT_FAULT == 6
    weft::executor ex{{"main"}};
    weft::port::mps2::enable_irq(weft::port::mps2::soft_irq1);
    auto waiter = ex.spawn(wait_for_sample());
    auto starter = ex.spawn(start_conversion());
    if (!waiter || !starter) weft::target_test::say("no frames\n");
    else (void)ex.run();
#elif WEFT_FAULT == 7
    // run() inside a critical_section: its wait for the timer would unmask
    // the interrupts the section masks.
    weft::executor ex{{"main"}};
    auto sleeper = ex.spawn(nap());
    weft::port::critical_section masked;
    if (!sleeper) weft::target_test::say("no frames\n");
    else (void)ex.run();
#endif
    weft::target_test::say("0 passed, 1 failed\n");
    return 1;
}
