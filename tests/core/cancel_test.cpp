// SPDX-License-Identifier: Apache-2.0
// Cancellation unblocks every kind of await with `cancelled`, and every
// later await of the task ends the same way at once.
#include <weft/core/cancel.hpp>
#include <weft/core/event.hpp>
#include <weft/core/mutex.hpp>
#include <weft/core/semaphore.hpp>
#include <weft/core/sleep.hpp>
#include <weft/core/split_phase.hpp>
#include <weft/core/task.hpp>
#include <weft/core/yield.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>

using namespace weft;

namespace {

// Spawns `victim`, lets it block, cancels it from another task after 1 ms
// and returns the victim's outcome.
template <class MakeAwait>
task<> victim(MakeAwait make, errc& outcome, errc& after) {
    status s = co_await make();
    outcome = s.code();
    status later = co_await sleep_for(std::chrono::hours(1));  // ends at once
    after = later.code();
}

template <class MakeAwait>
errc cancel_while_waiting(MakeAwait make) {
    executor ex{test::virtual_clock()};
    errc outcome = errc::ok;
    errc after = errc::ok;
    auto v = ex.spawn(victim(make, outcome, after), 2);
    EXPECT_TRUE(v);
    auto canceller = [&]() -> task<> {
        co_await sleep_for(1ms);
        v->cancel();
    };
    auto c = ex.spawn(canceller(), 1);
    EXPECT_TRUE(c);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(after, errc::cancelled);
    EXPECT_EQ(test::ms(ex), 1);  // nothing waited for the 1 h sleep
    return outcome;
}

}  // namespace

TEST(cancel, unblocks_sleep) {
    EXPECT_EQ(cancel_while_waiting([] { return sleep_for(10s); }), errc::cancelled);
}

TEST(cancel, unblocks_event_wait) {
    event ev{"never"};
    EXPECT_EQ(cancel_while_waiting([&] { return ev.wait(); }), errc::cancelled);
}

TEST(cancel, unblocks_semaphore_acquire_and_leaves_count_alone) {
    semaphore sem{"s", 0, 1};
    EXPECT_EQ(cancel_while_waiting([&] { return sem.acquire(); }), errc::cancelled);
    (void)sem.release();  // the cancelled waiter must not receive it
    EXPECT_EQ(sem.available(), 1u);
}

TEST(cancel, unblocks_mutex_lock) {
    mutex m{"bus"};
    ASSERT_TRUE(m.try_lock());
    EXPECT_EQ(cancel_while_waiting([&] { return m.lock(); }), errc::cancelled);
    m.unlock();
    EXPECT_FALSE(m.locked());  // not handed to the cancelled waiter
}

// split_phase yields result<int>; adapt it to status for the helper.
struct split_as_status {
    split_phase<int>::wait_operation op;
    bool await_ready() { return op.await_ready(); }
    template <class P> bool await_suspend(std::coroutine_handle<P> h) { return op.await_suspend(h); }
    status await_resume() { return status{op.await_resume().code()}; }
};

TEST(cancel, unblocks_split_phase) {
    split_phase<int> op{"adc"};
    EXPECT_EQ(cancel_while_waiting([&] { return split_as_status{op.wait()}; }), errc::cancelled);
    // A completion after the cancel is kept for the next await.
    EXPECT_TRUE(bool(op.complete(5)));
    EXPECT_TRUE(op.ready());
}

TEST(cancel, unblocks_until_cancelled) {
    EXPECT_EQ(cancel_while_waiting([] { return until_cancelled(); }), errc::cancelled);
}

TEST(cancel, unblocks_join_of_another_task) {
    executor ex{test::virtual_clock()};
    event never{"never"};
    auto stuck = [&]() -> task<> { co_await never.wait(); };
    auto s = ex.spawn(stuck());
    ASSERT_TRUE(s);
    errc outcome = errc::ok;
    auto joiner = [&]() -> task<> { outcome = (co_await s->join()).code(); };
    auto j = ex.spawn(joiner());
    ASSERT_TRUE(j);
    auto canceller = [&]() -> task<> {
        co_await sleep_for(1ms);
        j->cancel();
        s->cancel();
    };
    auto c = ex.spawn(canceller());
    ASSERT_TRUE(c);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(outcome, errc::cancelled);
}

TEST(cancel, ends_awaits_that_could_complete_at_once_too) {
    executor ex{test::virtual_clock()};
    event set{"set"};
    set.set();
    semaphore units{"units", 1, 1};
    mutex free{"free"};
    auto quick = [&]() -> task<int> { co_return 5; };
    auto finished = ex.spawn(quick());
    ASSERT_TRUE(finished);
    errc ev = errc::ok, sem = errc::ok, mx = errc::ok, jn = errc::ok;
    auto victim = [&]() -> task<> {
        co_await sleep_for(1ms);  // cancelled here
        ev = (co_await set.wait()).code();
        sem = (co_await units.acquire()).code();
        mx = (co_await free.lock()).code();
        jn = (co_await finished->join()).code();
    };
    auto v = ex.spawn(victim());
    ASSERT_TRUE(v);
    v->cancel();
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(ev, errc::cancelled);
    EXPECT_EQ(sem, errc::cancelled);
    EXPECT_EQ(mx, errc::cancelled);
    EXPECT_EQ(jn, errc::cancelled);
    EXPECT_EQ(units.available(), 1u);  // nothing taken
    EXPECT_FALSE(free.locked());
    EXPECT_TRUE(finished->done());  // the value is still there to join
}

TEST(cancel, yield_reports_cancellation_and_task_can_poll) {
    executor ex{test::virtual_clock()};
    int iterations = 0;
    auto loop = [&]() -> task<> {
        while (!co_await cancelled()) {
            ++iterations;
            co_await yield();
        }
    };
    auto l = ex.spawn(loop(), 1);
    ASSERT_TRUE(l);
    auto stopper = [&]() -> task<> {
        for (int i = 0; i < 5; ++i) co_await yield();
        l->cancel();
    };
    auto s = ex.spawn(stopper(), 1);
    ASSERT_TRUE(s);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(iterations, 6);
}

TEST(cancel, reaches_nested_awaits_of_the_task) {
    executor ex{test::virtual_clock()};
    errc inner = errc::ok;
    auto leaf = [&]() -> task<> { inner = (co_await sleep_for(1h)).code(); };
    auto mid = [&]() -> task<> { co_await leaf(); };
    auto root = [&]() -> task<> { co_await mid(); };
    auto r = ex.spawn(root());
    ASSERT_TRUE(r);
    auto canceller = [&]() -> task<> {  // named: a coroutine lambda must outlive its frame
        co_await sleep_for(2ms);
        r->cancel();
    };
    auto c = ex.spawn(canceller());
    ASSERT_TRUE(c);
    ex.run();
    EXPECT_EQ(inner, errc::cancelled);
    EXPECT_EQ(test::ms(ex), 2);
}
