// SPDX-License-Identifier: Apache-2.0
// executor::hold_time(): the virtual clock stands still while a foreign
// thread works on what a task awaits under a bound.
#include <weft/core/event.hpp>
#include <weft/core/sleep.hpp>
#include <weft/core/split_phase.hpp>
#include <weft/core/task.hpp>
#include <weft/core/timeout.hpp>
#include <weft/core/when_all.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>

#include <pthread.h>
#include <time.h>

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

using namespace weft;
using namespace std::chrono_literals;

namespace {

// A task awaits `reading` under a 5 ms bound while a device thread, which
// holds time, runs `work` (which may complete the reading); what the await
// gave. (The first test spells the same out: docs/core.md quotes it.)
template <class Work>
result<int> await_while_held(executor& ex, split_phase<int>& reading, Work work) {
    std::thread device;
    result<int> got = errc::invalid;
    auto root = [&]() -> task<> {
        auto w = reading.wait();
        device = std::thread([&work, hold = ex.hold_time()]() mutable {
            work();
            hold.release();
        });
        got = co_await with_timeout(std::move(w), 5ms);
    };
    auto h = ex.spawn(root());
    EXPECT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    device.join();
    return got;
}

}  // namespace

// The device thread answers after its own start-up, which takes real time;
// without the hold the executor is idle meanwhile and jumps to the bound.
// Repeated so that the race the hold closes would show.
TEST(time_hold, a_foreign_thread_completes_under_a_virtual_bound_while_time_is_held) {
    for (int round = 0; round < 50; ++round) {
        executor ex{test::virtual_clock()};
        split_phase<int> reading{"reading"};
        std::thread device;
        result<int> got = errc::invalid;
        auto root = [&]() -> task<> {
            auto w = reading.wait();
            device = std::thread([&reading, hold = ex.hold_time()]() mutable {
                (void)reading.complete(42);
                hold.release();
            });
            got = co_await with_timeout(std::move(w), 5ms);
        };
        auto h = ex.spawn(root());
        ASSERT_TRUE(h);
        EXPECT_EQ(ex.run(), run_outcome::completed);
        device.join();
        ASSERT_TRUE(got) << "round " << round << ": " << got.err().message().c_str();
        EXPECT_EQ(*got, 42);
        EXPECT_EQ(test::ms(ex), 0);  // no virtual time passed
    }
}

// A hold released without a completion lets time move on: the bound then
// expires at its virtual instant.
TEST(time_hold, releasing_the_hold_without_a_result_lets_the_bound_expire) {
    executor ex{test::virtual_clock()};
    split_phase<int> reading{"reading"};
    result<int> got = await_while_held(ex, reading, [] {});
    EXPECT_EQ(got.code(), errc::timeout);
    EXPECT_EQ(test::ms(ex), 5);
}

TEST(time_hold, a_moved_hold_is_released_once_and_release_is_idempotent) {
    executor ex{test::virtual_clock()};
    {
        time_hold a = ex.hold_time();
        time_hold b = std::move(a);
        a.release();  // moved from: nothing to release
        time_hold c = ex.hold_time();
        c = std::move(b);  // c's own hold goes, b's is now c's
        c.release();
        c.release();
    }
    // Every hold is gone: a sleep on the virtual clock passes at once.
    auto root = [&]() -> task<> { (void)co_await sleep_for(1h); };
    auto h = ex.spawn(root());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(test::ms(ex), 3'600'000);
}

// --- several holds, stops, stalls, and what an idle executor does while
// held ---

namespace {

// Lets one foreign thread wait for another (never the executor's thread).
struct thread_signal {
    std::mutex m;
    std::condition_variable cv;
    bool set = false;
    void raise() {
        {
            std::lock_guard<std::mutex> g{m};
            set = true;
        }
        cv.notify_all();
    }
    void await() {
        std::unique_lock<std::mutex> g{m};
        cv.wait(g, [&] { return set; });
    }
};

task<> bounded_read(split_phase<int>& sp, int& out) {
    result<int> r = co_await with_timeout(sp.wait(), 5ms);
    out = r ? *r : -1;
}

}  // namespace

// Four threads, each with its own hold, each completing one of four
// bounded reads: time stands still until the last of them lets go,
// whatever order they finish in.
TEST(time_hold, holds_from_several_threads_keep_time_still_until_the_last_is_released) {
    for (int round = 0; round < 20; ++round) {
        executor ex{test::virtual_clock()};
        split_phase<int> sp[4] = {split_phase<int>{"a"}, split_phase<int>{"b"}, split_phase<int>{"c"},
                                  split_phase<int>{"d"}};
        std::thread devices[4];
        int got[4] = {0, 0, 0, 0};
        auto root = [&]() -> task<> {
            for (int i = 0; i < 4; ++i)
                devices[i] = std::thread([&sp, i, hold = ex.hold_time()]() mutable {
                    (void)sp[i].complete(10 + i);
                    hold.release();
                });
            (void)co_await when_all(bounded_read(sp[0], got[0]), bounded_read(sp[1], got[1]),
                                    bounded_read(sp[2], got[2]), bounded_read(sp[3], got[3]));
        };
        auto h = ex.spawn(root());
        ASSERT_TRUE(h);
        EXPECT_EQ(ex.run(), run_outcome::completed);
        for (auto& d : devices) d.join();
        for (int i = 0; i < 4; ++i) EXPECT_EQ(got[i], 10 + i) << "round " << round << ", read " << i;
        EXPECT_EQ(test::ms(ex), 0);
    }
}

// The first of two holds is released while the work is still going on in
// the second thread, which starts only then: the bound does not expire in
// between.
TEST(time_hold, releasing_one_of_two_holds_does_not_let_time_move) {
    for (int round = 0; round < 50; ++round) {
        executor ex{test::virtual_clock()};
        split_phase<int> reading{"reading"};
        thread_signal first_gone;
        std::thread a, b;
        result<int> got = errc::invalid;
        auto root = [&]() -> task<> {
            auto w = reading.wait();
            b = std::thread([&, hold = ex.hold_time()]() mutable {
                first_gone.await();
                (void)reading.complete(7);
                hold.release();
            });
            a = std::thread([&, hold = ex.hold_time()]() mutable {
                hold.release();
                first_gone.raise();
            });
            got = co_await with_timeout(std::move(w), 5ms);
        };
        auto h = ex.spawn(root());
        ASSERT_TRUE(h);
        EXPECT_EQ(ex.run(), run_outcome::completed);
        a.join();
        b.join();
        ASSERT_TRUE(got) << "round " << round;
        EXPECT_EQ(*got, 7);
        EXPECT_EQ(test::ms(ex), 0);
    }
}

// A stop ends run() while time is held (at the instant it was held at),
// and a hold released while run() is not running (here from another
// thread) lets the next run() move time on as usual.
TEST(time_hold, a_stop_ends_a_held_run_and_a_release_between_runs_lets_time_move) {
    executor ex{test::virtual_clock()};
    time_hold hold = ex.hold_time();
    auto sleeper = [&]() -> task<> { (void)co_await sleep_for(1h); };
    auto h = ex.spawn(sleeper());
    ASSERT_TRUE(h);
    std::thread stopper([&] { ex.request_stop(); });
    EXPECT_EQ(ex.run(), run_outcome::stopped);
    stopper.join();
    EXPECT_EQ(test::ms(ex), 0);
    std::thread releaser([held = std::move(hold)]() mutable { held.release(); });
    releaser.join();
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(test::ms(ex), 3'600'000);
}

// With nothing armed (no timer, no split_phase) the virtual clock would
// report `stalled` at once; while held, run() waits for the thread's post
// instead. A hold released without any post then leaves a real stall,
// which run() reports (it does not sleep on).
TEST(time_hold, a_held_run_waits_for_a_post_instead_of_stalling_and_stalls_once_released) {
    executor ex{test::virtual_clock()};
    event ready{"ready"};
    struct setter : irq_node {
        event* ev;
        explicit setter(event& e) : irq_node(&on_irq), ev(&e) {}
        static void on_irq(irq_node* n) noexcept { static_cast<setter*>(n)->ev->set(); }
    } node{ready};
    std::thread device;
    status first = errc::invalid;
    auto waiter = [&]() -> task<> {
        device = std::thread([&ex, &node, hold = ex.hold_time()]() mutable {
            (void)ex.post(node);
            hold.release();
        });
        first = co_await ready.wait();
    };
    auto h = ex.spawn(waiter());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    device.join();
    EXPECT_TRUE(first);

    ready.reset();
    auto forever = [&]() -> task<> {
        device = std::thread([hold = ex.hold_time()]() mutable { hold.release(); });
        (void)co_await ready.wait();
    };
    auto f = ex.spawn(forever());
    ASSERT_TRUE(f);
    EXPECT_EQ(ex.run(), run_outcome::stalled);
    device.join();
    EXPECT_EQ(test::ms(ex), 0);
    f->cancel();
    EXPECT_EQ(ex.run(), run_outcome::completed);
}

// A held, idle executor sleeps in the port: over 50 ms of real time during
// which a task waits under a bound and a thread holds time, the executor's
// thread uses (nearly) no CPU. Measured by the foreign thread on the
// executor thread's CPU clock; a busy loop would use about all of it.
TEST(time_hold, a_held_idle_executor_sleeps_instead_of_spinning) {
    executor ex{test::virtual_clock()};
    split_phase<int> reading{"reading"};
    clockid_t executor_cpu;
    ASSERT_EQ(pthread_getcpuclockid(pthread_self(), &executor_cpu), 0);
    auto cpu_ns = [&] {
        timespec ts{};
        clock_gettime(executor_cpu, &ts);
        return std::int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
    };
    std::int64_t used_ns = -1;
    thread_signal never;  // a timed wait on a condition nobody raises: 50 ms of real time
    result<int> got = await_while_held(ex, reading, [&] {
        const std::int64_t before = cpu_ns();
        {
            std::unique_lock<std::mutex> g{never.m};
            never.cv.wait_for(g, std::chrono::milliseconds(50), [&] { return never.set; });
        }
        used_ns = cpu_ns() - before;
        (void)reading.complete(5);
    });
    ASSERT_TRUE(got);
    EXPECT_EQ(*got, 5);
    EXPECT_EQ(test::ms(ex), 0);
    EXPECT_GE(used_ns, 0);
    EXPECT_LT(used_ns, 10'000'000) << "the executor thread used " << used_ns << " ns of CPU in 50 ms";
}

// On the real clock a hold changes nothing: a sleep ends at its deadline
// while the hold is still taken.
TEST(time_hold, a_hold_has_no_effect_on_the_real_clock) {
    executor ex{{"real", clock_mode::real}};
    time_hold hold = ex.hold_time();
    bool woke = false;
    auto sleeper = [&]() -> task<> {
        EXPECT_TRUE(co_await sleep_for(1ms));
        woke = true;
    };
    auto h = ex.spawn(sleeper());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_TRUE(woke);
    hold.release();
}
