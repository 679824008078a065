// SPDX-License-Identifier: Apache-2.0
// Debug builds stop the program when an executor-only call (waking a task,
// spawning, creating a coroutine) comes from a simulated interrupt handler
// or from a thread while the executor runs on another, naming the executor
// and what to use instead (detail/executor_only.hpp). Built without NDEBUG
// in every build type (tests/core/CMakeLists.txt); the hand-overs that are
// allowed from there keep working.
#include <weft/core/event.hpp>
#include <weft/core/sleep.hpp>
#include <weft/core/split_phase.hpp>
#include <weft/core/task.hpp>
#include <weft/csp/channel.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>
#include <weft_port/interrupt_thread.hpp>

#include <atomic>
#include <optional>
#include <thread>

using namespace weft;
using namespace std::chrono_literals;

#ifdef NDEBUG
#error "executor_only_test checks what Debug builds detect: build it without NDEBUG"
#endif

namespace {

// Waits on the real clock until the test process ends (the death test's
// child dies first); says it is inside run() first.
task<> wait_for(event& ev, std::atomic<bool>& inside) {
    inside.store(true);
    (void)co_await ev.wait();
}

task<> nothing() { co_return; }

task<int> take(split_phase<int>& op, int& got) {
    auto v = co_await op;
    got = v ? *v : -1;
    co_return got;
}

// Runs elsewhere(ex, ev, waiter) on another thread once a task of executor
// 'main' waits for event 'ready' inside run(), then stops the executor:
// a call the check misses fails the death test instead of hanging it.
template <class Elsewhere>
void while_a_task_waits(Elsewhere elsewhere) {
    executor ex{{"main"}};
    event ev{"ready"};
    std::atomic<bool> inside{false};
    auto waiter = ex.spawn(wait_for(ev, inside));
    if (!waiter) return;
    std::thread other([&] {
        while (!inside.load()) std::this_thread::yield();
        elsewhere(ex, ev, *waiter);
        ex.request_stop();
    });
    (void)ex.run();
    other.join();
}

// Calls f() from a simulated interrupt handler and returns once it ran.
template <class F>
void from_a_handler(F f) {
    std::atomic<bool> ran{false};
    port::interrupt_thread irq([&] {
        f();
        ran.store(true);
    });
    irq.raise();
    while (!ran.load()) std::this_thread::yield();
}

using sample_ring = csp::channel<int, 4>;

}  // namespace

TEST(executor_only, a_wake_from_another_thread_stops_the_program_naming_the_event) {
    EXPECT_DEATH(while_a_task_waits([](executor&, event& ev, auto&) { ev.set(); }),
                 "weft: event 'ready': set\\(\\) from a thread other than the executor's: only the "
                 "executor's own thread may do that; hand the work over with executor::post, "
                 "split_phase::complete");
}

TEST(executor_only, a_wake_from_an_interrupt_handler_stops_the_program) {
    EXPECT_DEATH(while_a_task_waits([](executor&, event& ev, auto&) { from_a_handler([&] { ev.set(); }); }),
                 "weft: event 'ready': set\\(\\) from an interrupt handler: only the executor's own thread");
}

// Checked at the call, not only when it wakes a task: a buffered
// channel with nobody waiting on it is edited just the same.
TEST(executor_only, a_channel_call_from_a_handler_stops_the_program_naming_the_channel) {
    sample_ring samples{"samples"};
    EXPECT_DEATH(while_a_task_waits([&](executor&, event&, auto&) {
                     from_a_handler([&] { (void)samples.try_send(1); });
                 }),
                 "weft: channel 'samples': try_send\\(\\) from an interrupt handler");
}

// A cancel from another thread wakes the task there: the executor's own
// check catches what no object's entry point does.
TEST(executor_only, a_cancel_from_another_thread_stops_the_program_naming_the_executor) {
    EXPECT_DEATH(while_a_task_waits([](executor&, event&, auto& waiter) { waiter.cancel(); }),
                 "weft: executor 'main': woke a task from a thread other than the executor's");
}

TEST(executor_only, a_coroutine_created_on_another_thread_stops_the_program) {
    std::optional<task<>> made;  // kept outside: Clang may not elide its frame
    EXPECT_DEATH(while_a_task_waits([&](executor&, event&, auto&) { made.emplace(nothing()); }),
                 "weft: executor 'main': created a coroutine from a thread other than the executor's");
}

TEST(executor_only, a_spawn_from_another_thread_stops_the_program) {
    EXPECT_DEATH(
        {
            auto late = nothing();  // created here, spawned from the other thread
            while_a_task_waits([&](executor& ex, event&, auto&) {
                auto h = ex.spawn(std::move(late));
                (void)h;
            });
        },
        "weft: executor 'main': spawned a task from a thread other than the executor's");
}

// What handlers and other threads may do: complete a split_phase, and
// create coroutines and spawn while no executor runs.
TEST(executor_only, hand_overs_and_work_before_run_stay_allowed) {
    executor ex{test::virtual_clock("main")};
    split_phase<int> op{"sample"};
    int got = 0;
    std::optional<result<join_handle<int>>> h;
    std::thread setup([&] { h.emplace(ex.spawn(take(op, got))); });  // nobody runs yet
    setup.join();
    ASSERT_TRUE(*h);
    port::interrupt_thread irq([&] { (void)op.complete(42); });
    irq.raise();  // before or during the wait: not lost either way
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got, 42);
}
