// SPDX-License-Identifier: Apache-2.0
#include <weft/core/split_phase.hpp>
#include <weft/core/task.hpp>
#include <weft/core/event.hpp>
#include <weft/core/sleep.hpp>
#include <weft/core/timeout.hpp>
#include <weft/core/yield.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>

#include <atomic>
#include <string>
#include <thread>

using namespace weft;
using namespace std::chrono_literals;

TEST(split_phase, completion_before_await_is_not_lost) {
    executor ex{test::virtual_clock()};
    split_phase<int> op{"adc"};
    ASSERT_TRUE(bool(op.complete(42)));
    int got = 0;
    auto t = [&]() -> task<> { got = *co_await op; };
    auto h = ex.spawn(t());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got, 42);
}

TEST(split_phase, second_completion_before_consumption_is_refused_by_name) {
    split_phase<int> op{"uart_rx"};
    ASSERT_TRUE(bool(op.complete(1)));
    status s = op.complete(2);
    ASSERT_TRUE(test::failed_with(s, errc::busy,
                                  "split_phase 'uart_rx': completed twice before being awaited (limit 1)"));
}

TEST(split_phase, timeout_withdraws_the_wait) {
    executor ex{test::virtual_clock()};
    split_phase<int> op{"i2c"};
    errc got = errc::ok;
    auto t = [&]() -> task<> { got = (co_await with_timeout(op.wait(), 3ms)).code(); };
    auto h = ex.spawn(t());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got, errc::timeout);
    EXPECT_EQ(test::ms(ex), 3);
}

// A foreign thread plays the interrupt handler: the task starts an
// operation, the "ISR" completes it from another thread. Run under TSan in
// the tsan preset; the virtual clock never advances (no timers), so the
// executor really sleeps in the port until notified.
TEST(split_phase, completed_from_foreign_thread_under_stress) {
    constexpr int rounds = 20'000;
    executor ex{test::virtual_clock()};
    split_phase<int> op{"dma"};
    std::atomic<int> started{0};
    std::atomic<bool> quit{false};
    std::thread isr([&] {
        int served = 0;
        while (served < rounds && !quit.load(std::memory_order_relaxed)) {
            if (started.load(std::memory_order_acquire) > served) {
                while (!op.complete(served)) std::this_thread::yield();
                ++served;
            } else {
                std::this_thread::yield();
            }
        }
    });
    long long sum = 0;
    int wrong = 0;
    auto t = [&]() -> task<> {
        for (int i = 0; i < rounds; ++i) {
            started.store(i + 1, std::memory_order_release);  // "start the transfer"
            auto v = co_await op;
            if (!v || *v != i) ++wrong;
            else sum += *v;
        }
    };
    auto h = ex.spawn(t());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    quit = true;
    isr.join();
    EXPECT_EQ(wrong, 0);
    EXPECT_EQ(sum, (long long)rounds * (rounds - 1) / 2);
}

namespace {
// An irq_node whose handler (on the executor) runs a callable.
template <class F>
struct call_node : irq_node {
    explicit call_node(F f) : irq_node(&on_run), fn(std::move(f)) {}
    static void on_run(irq_node* n) noexcept { static_cast<call_node*>(n)->fn(); }
    F fn;
};
}  // namespace

// The waiting task sleeps in the port itself while nothing else could run
// (executor::idle_now()). An interrupt node posted meanwhile must still be
// handled, and the task it wakes must still run first if its priority is
// higher: the waiting task falls back to waiting through run(). The
// foreign thread completes the operation only once the node's handler has
// run, so the order is the same whether the post arrives before or during
// the wait.
TEST(split_phase, work_posted_during_the_wait_keeps_the_priority_order) {
    executor ex{test::virtual_clock()};
    split_phase<int> op{"spi"};
    event high_go{"high_go"};
    std::string log;
    std::atomic<bool> started{false}, handled{false};
    call_node node{[&] {
        high_go.set();
        handled.store(true, std::memory_order_release);
    }};
    auto high = [&]() -> task<> {
        co_await high_go.wait();
        log += 'H';
    };
    auto low = [&]() -> task<> {
        started.store(true, std::memory_order_release);
        auto v = co_await op;
        log += v && *v == 7 ? 'L' : '?';
    };
    auto h = ex.spawn(high(), 5);
    auto l = ex.spawn(low(), 1);
    ASSERT_TRUE(h && l);
    std::thread isr([&] {
        while (!started.load(std::memory_order_acquire)) std::this_thread::yield();
        EXPECT_TRUE(ex.post(node));
        while (!handled.load(std::memory_order_acquire)) std::this_thread::yield();
        while (!op.complete(7)) std::this_thread::yield();
    });
    EXPECT_EQ(ex.run(), run_outcome::completed);
    isr.join();
    EXPECT_EQ(log, "HL");
}

// Cancellation is executor-side, so it cannot reach a task that is waiting
// in place; a node that cancels the task wakes it instead, the task falls
// back to an ordinary wait, and the cancel ends that wait. The completion
// that comes afterwards is kept for the next await.
TEST(split_phase, cancel_from_a_node_posted_during_the_wait) {
    executor ex{test::virtual_clock()};
    split_phase<int> op{"spi"};
    std::atomic<bool> started{false}, handled{false};
    errc got = errc::ok;
    auto waiter = [&]() -> task<> {
        started.store(true, std::memory_order_release);
        got = (co_await op).code();
    };
    auto w = ex.spawn(waiter());
    ASSERT_TRUE(w);
    call_node node{[&] {
        w->cancel();
        handled.store(true, std::memory_order_release);
    }};
    std::thread isr([&] {
        while (!started.load(std::memory_order_acquire)) std::this_thread::yield();
        EXPECT_TRUE(ex.post(node));
    });
    EXPECT_EQ(ex.run(), run_outcome::completed);
    isr.join();
    EXPECT_TRUE(handled.load());
    EXPECT_EQ(got, errc::cancelled);
    EXPECT_TRUE(bool(op.complete(5)));
    EXPECT_TRUE(op.ready());
}

// A task cancelled before it awaits does not wait, in place or otherwise.
TEST(split_phase, cancelled_task_does_not_wait_in_place) {
    executor ex{test::virtual_clock()};
    split_phase<int> op{"spi"};
    errc got = errc::ok;
    auto waiter = [&]() -> task<> {
        co_await yield();
        got = (co_await op).code();
    };
    auto w = ex.spawn(waiter());
    ASSERT_TRUE(w);
    auto canceller = [&]() -> task<> { w->cancel(); co_return; };
    auto c = ex.spawn(canceller());
    ASSERT_TRUE(c);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got, errc::cancelled);
}

// With a timer armed on the virtual clock the executor is not idle (time
// jumps to the timer instead), so the task waits through run() and the
// timer's task runs at its time; here it is the one that completes.
TEST(split_phase, timer_armed_on_the_virtual_clock_completes_the_wait) {
    executor ex{test::virtual_clock()};
    split_phase<int> op{"spi"};
    std::string log;
    auto sleeper = [&]() -> task<> {
        co_await sleep_for(2ms);
        log += 'S';
        EXPECT_TRUE(bool(op.complete(3)));
    };
    auto waiter = [&]() -> task<> {
        auto v = co_await op;
        log += v && *v == 3 ? 'W' : '?';
    };
    auto s = ex.spawn(sleeper());
    auto w = ex.spawn(waiter());
    ASSERT_TRUE(s && w);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(log, "SW");
    EXPECT_EQ(test::ms(ex), 2);
}

// A completion that comes after a timed-out wait stays for the next await,
// which finds it ready (await_ready) and must get the value, not the old
// timeout; the operation is then idle again and takes new completions.
TEST(split_phase, a_late_completion_reaches_the_next_await) {
    executor ex{test::virtual_clock()};
    split_phase<int> op{"adc"};
    errc first = errc::ok;
    int second = -1, third = -1;
    auto t = [&]() -> task<> {
        first = (co_await with_timeout(op.wait(), 3ms)).code();
        EXPECT_TRUE(bool(op.complete(42)));  // late: nobody waits
        auto r = co_await op;
        if (r) second = *r;
        EXPECT_TRUE(bool(op.complete(43)));
        auto q = co_await op;
        if (q) third = *q;
    };
    auto h = ex.spawn(t());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(first, errc::timeout);
    EXPECT_EQ(second, 42);
    EXPECT_EQ(third, 43);
}

// A task resumed right in the drain by its completion's handler posts work
// for a higher-priority task and yields: run() must drain that post before
// it resumes the low task again, as it does when the task was resumed by
// run() itself.
TEST(split_phase, work_posted_by_a_task_resumed_in_the_drain_comes_first) {
    for (bool through_completion : {false, true}) {
        executor ex{test::virtual_clock()};
        split_phase<int> op{"adc"};
        event go{"go"};
        std::string log;
        call_node x{[&] {
            log += 'x';
            go.set();
        }};
        auto high = [&]() -> task<> {
            co_await go.wait();
            log += 'H';
        };
        auto low = [&]() -> task<> {
            if (through_completion) log += (co_await op) ? 'v' : '?';
            (void)ex.post(x);
            (void)co_await yield();
            log += 'L';
        };
        auto completer = [&]() -> task<> {
            (void)op.complete(7);
            co_return;
        };
        auto h = ex.spawn(high(), 3);
        auto l = ex.spawn(low(), 1);
        auto c = ex.spawn(completer(), 0);
        ASSERT_TRUE(h && l && c);
        EXPECT_EQ(ex.run(), run_outcome::completed);
        EXPECT_EQ(log, through_completion ? "vxHL" : "xHL");
    }
}

// One task waits at a time. A second task that awaits meanwhile is refused
// with `busy`, naming the operation, and the first keeps its wait: the
// next completion reaches it. (Before, the second got a stale value at
// once and reset the state, and the first waited for ever.)
TEST(split_phase, a_second_awaiter_is_refused_and_the_first_keeps_its_wait) {
    executor ex{test::virtual_clock()};
    split_phase<int> op{"adc"};
    int first = -1;
    std::string second;
    auto a = [&]() -> task<> {
        auto r = co_await op;
        if (r) first = *r;
    };
    auto b = [&]() -> task<> {
        auto r = co_await op;
        if (!r) second = r.err().message().c_str();
    };
    auto c = [&]() -> task<> {
        co_await sleep_for(1ms);
        EXPECT_TRUE(bool(op.complete(5)));
    };
    auto watchdog = [&]() -> task<> {  // fails fast instead of hanging
        co_await sleep_for(2ms);
        if (first != 5) ex.request_stop();
    };
    auto ha = ex.spawn(a());
    auto hb = ex.spawn(b());
    auto hc = ex.spawn(c());
    auto hw = ex.spawn(watchdog());
    ASSERT_TRUE(ha && hb && hc && hw);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(second, "split_phase 'adc': awaited by a second task while one waits (limit 1)");
    EXPECT_EQ(first, 5);
    EXPECT_FALSE(op.ready());
}

// The same between the completion and the first task's resumption (its
// wake-up is queued): the value is that task's, so the second await is
// refused too. It took the value before, the queued wake-up then went to
// the next task to await, and the first waiter was lost for good: its
// bound and its cancel found nothing armed, and run() never ended.
TEST(split_phase, an_await_while_the_value_is_on_its_way_to_the_waiter_is_refused) {
    executor ex{test::virtual_clock()};
    split_phase<int> op{"adc"};
    std::string log;
    auto text = [](const result<int>& r) { return r ? std::to_string(*r) : std::string(r.err().message().c_str()); };
    auto a = [&]() -> task<> {
        auto r = co_await with_timeout(op.wait(), 10ms);
        log += "A:" + text(r) + ";";
    };
    auto b = [&]() -> task<> {
        co_await sleep_for(1ms);
        EXPECT_TRUE(bool(op.complete(5)));  // A waits: the value is A's
        EXPECT_FALSE(op.ready());
        EXPECT_EQ(op.complete(6).code(), errc::busy);  // not consumed yet
        auto r = co_await op;
        log += "B:" + text(r) + ";";
    };
    auto c = [&]() -> task<> {
        co_await sleep_for(2ms);
        auto r = co_await with_timeout(op.wait(), 3ms);  // after A: nobody completes
        log += "C:" + text(r) + ";";
    };
    auto ha = ex.spawn(a());
    auto hb = ex.spawn(b());
    auto hc = ex.spawn(c());
    ASSERT_TRUE(ha && hb && hc);
    auto watchdog = [&]() -> task<> {  // fails fast instead of hanging
        co_await sleep_for(50ms);
        ha->cancel();
        hc->cancel();
    };
    auto hw = ex.spawn(watchdog());
    ASSERT_TRUE(hw);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(log, "B:split_phase 'adc': awaited by a second task while one waits (limit 1);A:5;"
                   "C:split_phase 'adc': timeout;");
}
