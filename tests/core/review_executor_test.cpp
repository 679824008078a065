// SPDX-License-Identifier: Apache-2.0
// Executor review: the run loop's virtual time, stop requests, re-running
// an executor, the interrupt hand-off from several threads, and what an
// executor leaves behind. Virtual clock unless the thing under test is
// cross-thread; those tests wait with joins and latches, never sleeps.
#include <weft/core/event.hpp>
#include <weft/core/executor.hpp>
#include <weft/core/sleep.hpp>
#include <weft/core/task.hpp>
#include <weft/core/timeout.hpp>
#include <weft/core/yield.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>

#include <atomic>
#include <cstdint>
#include <latch>
#include <string>
#include <thread>
#include <vector>

using namespace weft;
using namespace std::chrono_literals;

namespace {
// An irq_node whose handler calls a function with the executor.
struct call_node : irq_node {
    template <class F>
    call_node(executor& e, F* f) : irq_node(&on_run), ex(&e), fn(f), call(&invoke<F>) {}
    template <class F>
    static void invoke(void* f, executor& e) { (*static_cast<F*>(f))(e); }
    static void on_run(irq_node* n) noexcept {
        auto* self = static_cast<call_node*>(n);
        self->call(self->fn, *self->ex);
    }
    executor* ex;
    void* fn;
    void (*call)(void*, executor&);
};
}  // namespace

// A handler that posts another node (a driver's interrupt chaining a
// second one) leaves work for run() after the drain. The virtual clock
// must not jump to the next timer while that work is queued: the second
// handler runs at the instant it was posted, as on the real clock, where
// the post's notify() ends the idle wait at once.
TEST(executor, virtual_time_does_not_pass_while_an_interrupt_node_is_queued) {
    executor ex{test::virtual_clock()};
    std::int64_t second_ran_at = -1;
    auto second = [&](executor& e) { second_ran_at = test::ms(e); };
    call_node n2{ex, &second};
    auto first = [&](executor& e) { e.post(n2); };
    call_node n1{ex, &first};
    auto sleeper = [&]() -> task<> {
        ex.post(n1);
        co_await sleep_for(10ms);
    };
    auto h = ex.spawn(sleeper());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(second_ran_at, 0);
    EXPECT_EQ(test::ms(ex), 10);
}

// The same from a timer: a timer's callback that posts a node (a timeout
// completing a driver, a reactor's wake-up) does not let time jump past
// the node to the next timer.
TEST(executor, virtual_time_does_not_pass_a_node_posted_by_a_timer) {
    executor ex{test::virtual_clock()};
    std::int64_t ran_at = -1;
    auto record = [&](executor& e) { ran_at = test::ms(e); };
    call_node n{ex, &record};
    struct posting_timer : detail::timer_node {
        executor* ex;
        irq_node* node;
    } t;
    t.ex = &ex;
    t.node = &n;
    t.deadline_ns = 1'000'000;  // 1 ms
    t.fire = [](detail::timer_node* self) noexcept {
        auto* pt = static_cast<posting_timer*>(self);
        pt->ex->post(*pt->node);
    };
    auto sleeper = [&]() -> task<> {
        ex.arm(t);
        co_await sleep_for(10ms);
    };
    auto h = ex.spawn(sleeper());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(ran_at, 1);
}

// advance() is the one way a task moves virtual time itself; the clock
// is monotonic and never reads before its epoch, also past the end of
// time (a sleep until time_point::max() jumps there), and a bound armed
// afterwards is the end of time, not already due.
TEST(executor, advance_past_the_end_of_time_saturates) {
    executor ex{test::virtual_clock()};
    time_point before{}, after{};
    errc bounded = errc::ok;
    event never{"never"};
    auto body = [&]() -> task<> {
        co_await sleep_until(time_point::max());
        before = ex.now();
        ex.advance(1ms);
        after = ex.now();
        ex.advance(duration::max());
        bounded = (co_await with_timeout(never.wait(), 1h)).code();
    };
    auto h = ex.spawn(body());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(before, time_point::max());
    EXPECT_EQ(after, time_point::max());
    EXPECT_EQ(ex.now(), time_point::max());
    EXPECT_EQ(bounded, errc::timeout);  // due at the end of time, which the clock reads
}

// Several threads post at once, each its own node and all one shared
// node: every post that returned true runs its handler exactly once, a
// post of a node still queued returns false, and a stop requested after
// the last post is seen only after every earlier node has run.
TEST(interrupt_queue, several_threads_post_at_once) {
    constexpr int threads = 4, posts = 1000;
    executor ex{test::virtual_clock()};
    struct counting_node : irq_node {
        counting_node() : irq_node(&on_run) {}
        static void on_run(irq_node* n) noexcept { ++static_cast<counting_node*>(n)->runs; }
        long runs = 0;  // executor thread only
    };
    counting_node own[threads];
    counting_node shared;
    std::atomic<long> shared_posts{0};
    event never{"never"};
    auto parked = [&]() -> task<> { co_await never.wait(); };
    auto h = ex.spawn(parked());
    ASSERT_TRUE(h);
    ex.external_begin();  // foreign threads will post: not a stall
    std::latch start{threads};
    std::vector<std::thread> producers;
    for (int i = 0; i < threads; ++i) {
        producers.emplace_back([&, i] {
            start.arrive_and_wait();
            for (int k = 0; k < posts; ++k) {
                while (!ex.post(own[i])) std::this_thread::yield();  // still queued: retry
                if (ex.post(shared)) shared_posts.fetch_add(1, std::memory_order_relaxed);
            }
        });
    }
    std::thread closer([&] {
        for (auto& p : producers) p.join();
        ex.request_stop();  // after every post: the drain that sees it has run them all
    });
    EXPECT_EQ(ex.run(), run_outcome::stopped);
    closer.join();
    for (auto& n : own) EXPECT_EQ(n.runs, posts);
    EXPECT_EQ(shared.runs, shared_posts.load());
    EXPECT_GE(shared.runs, 1);
    ex.external_end();
    h->cancel();
    EXPECT_EQ(ex.run(), run_outcome::completed);
}

// An executor does not end the tasks it leaves suspended (docs/core.md,
// Known limits): before it goes, cancel them through their handles and
// run() until `completed`; every frame then goes back to its pool.
TEST(executor, cancel_and_run_to_completion_gives_every_frame_back) {
    static frame_pool<1024, 2> pool{"review_shutdown"};
    {
        executor ex{test::virtual_clock()};
        event never{"never"};
        auto body = [&]() -> task<> { co_await never.wait(); };
        task<> ta, tb;
        {
            use_frames only{pool};
            ta = body();
            tb = body();
        }
        auto a = ex.spawn(std::move(ta));
        auto b = ex.spawn(std::move(tb));
        ASSERT_TRUE(a && b);
        EXPECT_EQ(ex.run(), run_outcome::stalled);
        EXPECT_EQ(pool.in_use(), 2u);
        a->cancel();
        b->cancel();
        EXPECT_EQ(ex.run(), run_outcome::completed);
        EXPECT_EQ(ex.live_tasks(), 0u);
    }  // the handles free the finished frames, then the executor goes
    EXPECT_EQ(pool.in_use(), 0u);
}

// A task that calls run() on its own executor would resume the other tasks
// inside its own frame and leave them mid-way when the inner run() returns:
// stopped at once, naming the executor. (Boards check it in Debug builds.)
static void run_from_a_task() {
    executor ex{executor_config{"main_loop", clock_mode::virtual_}};
    auto other = []() -> task<> { co_await yield(); };
    auto nested = [&]() -> task<> {
        (void)ex.run();
        co_return;
    };
    auto a = ex.spawn(other());
    auto b = ex.spawn(nested());
    (void)ex.run();
}

TEST(executor, run_called_from_one_of_its_tasks_stops_the_program_naming_it) {
    EXPECT_DEATH(run_from_a_task(), "executor 'main_loop': run\\(\\) called while it is running");
}

// The check is a flag, not a count: run() can be called again once it
// has returned (tests and programs run one executor in phases).
TEST(executor, run_again_after_it_returned_is_not_a_nested_run) {
    executor ex{test::virtual_clock()};
    auto sleeper = []() -> task<> { co_await sleep_for(5ms); };
    auto a = ex.spawn(sleeper());
    ASSERT_TRUE(a);
    ex.request_stop();
    EXPECT_EQ(ex.run(), run_outcome::stopped);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(ex.run(), run_outcome::completed);
}

TEST(executor, run_outcomes_have_names) {
    EXPECT_STREQ(to_string(run_outcome::completed), "completed");
    EXPECT_STREQ(to_string(run_outcome::stopped), "stopped");
    EXPECT_STREQ(to_string(run_outcome::stalled), "stalled");
    static_assert(to_string(run_outcome::stalled)[1] == 't');
}
