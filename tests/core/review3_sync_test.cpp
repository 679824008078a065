// SPDX-License-Identifier: Apache-2.0
// Third core review of the synchronisation headers (mutex, semaphore,
// event, when_all / when_any, join, cancel, timeout, task). Each test was
// written failing before its fix. Virtual clock only.
#include <weft/core/event.hpp>
#include <weft/core/mutex.hpp>
#include <weft/core/semaphore.hpp>
#include <weft/core/sleep.hpp>
#include <weft/core/task.hpp>
#include <weft/core/timeout.hpp>
#include <weft/core/when_all.hpp>
#include <weft/core/when_any.hpp>
#include <weft/core/yield.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>

#include <memory>
#include <string>

using namespace weft;
using namespace std::chrono_literals;

namespace {
task<int> logs(std::string& log, char c, int v) {
    log += c;
    co_return v;
}
}  // namespace

// The owner (priority 1) inherits 5 from a waiter and starts when_any's
// children at 5; before they run, the waiter is cancelled and the owner
// and its children fall back to 1. Lowered tasks go to the front of their
// level, but the children must keep their order among themselves: they
// start in argument order, and of children that end without waiting the
// leftmost wins (docs/core.md, "Cancellation and composition").
TEST(mutex, children_lowered_before_they_start_keep_their_argument_order) {
    executor ex{test::virtual_clock()};
    mutex m{"bus"};
    event go{"go"};
    std::string log;
    std::size_t index = 9;
    join_handle<void>* waiter = nullptr;
    auto owner = [&]() -> task<> {
        EXPECT_TRUE(co_await m.lock());
        lock_guard g{m};
        co_await sleep_for(1ms);  // the waiter parks meanwhile: the owner inherits 5
        EXPECT_EQ(m.owner()->prio(), 5);
        go.set();  // wakes the canceller (7), which runs once the children are queued
        auto r = co_await when_any(logs(log, 'a', 0), logs(log, 'b', 1), logs(log, 'c', 2));
        index = r.index;
    };
    auto high = [&]() -> task<> {
        co_await sleep_for(500us);  // the owner locks first
        auto s = co_await m.lock();
        EXPECT_EQ(s.code(), errc::cancelled);
        if (s) m.unlock();
    };
    auto canceller = [&]() -> task<> {
        co_await go.wait();
        waiter->cancel();  // the owner drops to 1 with its children still queued
    };
    auto o = ex.spawn(owner(), 1);
    auto h = ex.spawn(high(), 5);
    auto c = ex.spawn(canceller(), 7);
    ASSERT_TRUE(o && h && c);
    waiter = &*h;
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(log, "abc");
    EXPECT_EQ(index, 0u);
}

// An event may go once it is set, as a condition variable may once it has
// notified: set() unlinks every waiter, and what a granted wait yields
// does not depend on the event. The waiter resumes after the event is
// destroyed here (a heap object, so that AddressSanitizer sees a read).
TEST(event, a_set_event_may_be_destroyed_before_its_waiters_resume) {
    executor ex{test::virtual_clock()};
    auto ev = std::make_unique<event>("once");
    status got{errc::invalid};
    auto waiter = [&]() -> task<> { got = co_await ev->wait(); };
    auto setter = [&]() -> task<> {
        co_await sleep_for(1ms);
        ev->set();
        ev.reset();  // before the waiter runs again
    };
    auto w = ex.spawn(waiter(), 1);
    auto s = ex.spawn(setter(), 2);
    ASSERT_TRUE(w && s);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_TRUE(got);
}

// The same for a unit handed to a waiting task: a pulse semaphore used as
// a one-shot signal may go once it has released.
TEST(semaphore, a_semaphore_may_be_destroyed_once_its_unit_is_handed_to_a_waiter) {
    executor ex{test::virtual_clock()};
    auto sem = std::make_unique<semaphore>("once", 0, 0);
    status got{errc::invalid};
    auto waiter = [&]() -> task<> { got = co_await sem->acquire(); };
    auto releaser = [&]() -> task<> {
        co_await sleep_for(1ms);
        EXPECT_TRUE(sem->release());
        sem.reset();  // before the waiter runs again
    };
    auto w = ex.spawn(waiter(), 1);
    auto r = ex.spawn(releaser(), 2);
    ASSERT_TRUE(w && r);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_TRUE(got);
}
