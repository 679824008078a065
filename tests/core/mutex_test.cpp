// SPDX-License-Identifier: Apache-2.0
// mutex: priority inheritance (along chains of owners, undone when waiters
// leave), hand-off by priority, and locks that would deadlock refused.
#include <weft/core/mutex.hpp>
#include <weft/core/sleep.hpp>
#include <weft/core/task.hpp>
#include <weft/core/timeout.hpp>
#include <weft/core/when_all.hpp>
#include <weft/core/when_any.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>

#include <string>

using namespace weft;

namespace {

// Holds `m` across a sleep of `hold`, then logs `c` and unlocks; records
// the priority it held the lock at after the sleep.
task<> holder(mutex& m, duration hold, std::string& log, char c, int* prio_after_sleep = nullptr) {
    auto s = co_await m.lock();
    EXPECT_TRUE(s);
    lock_guard g{m};
    co_await sleep_for(hold);
    if (prio_after_sleep) *prio_after_sleep = m.owner()->prio();
    log += c;
}

task<> locker(mutex& m, duration after, std::string& log, char c) {
    co_await sleep_for(after);
    auto s = co_await m.lock();
    EXPECT_TRUE(s);
    lock_guard g{m};
    log += c;
}

task<> logger(duration after, std::string& log, char c) {
    co_await sleep_for(after);
    log += c;
}

}  // namespace

// At 1 ms the high task, a medium one and the low owner all become ready.
// The high task waits for the lock; the owner inherits its priority and
// runs before the medium task (without inheritance: "MLH"). Then it drops
// back to its own priority and the medium task runs before it again.
TEST(mutex, owner_inherits_a_waiters_priority) {
    executor ex{test::virtual_clock()};
    mutex m{"bus"};
    std::string log;
    int low_prio = -1;
    auto h = ex.spawn(locker(m, 1ms, log, 'H'), 3);
    auto md = ex.spawn(logger(1ms, log, 'M'), 2);
    auto l = ex.spawn(holder(m, 1ms, log, 'L', &low_prio), 1);
    ASSERT_TRUE(h && md && l);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(log, "LHM");
    EXPECT_EQ(low_prio, 3);
    EXPECT_FALSE(m.locked());
    EXPECT_EQ(m.owner(), nullptr);
}

// The owner waits in its ready queue among tasks of its own priority (at
// the head, in the middle, at the tail) when it inherits: it moves to the
// new level and the others keep their order.
TEST(mutex, a_ready_owner_moves_to_its_new_level) {
    for (int pos = 0; pos < 3; ++pos) {
        executor ex{test::virtual_clock()};
        mutex m{"bus"};
        std::string log;
        auto h = ex.spawn(locker(m, 1ms, log, 'H'), 3);
        auto md = ex.spawn(logger(1ms, log, 'M'), 2);
        std::string peers = "xy";
        for (int i = 0; i < 3; ++i) {
            auto t = i == pos ? ex.spawn(holder(m, 1ms, log, 'L'), 1)
                              : ex.spawn(logger(1ms, log, peers[i < pos ? i : i - 1]), 1);
            ASSERT_TRUE(t);
        }
        ASSERT_TRUE(h && md);
        EXPECT_EQ(ex.run(), run_outcome::completed);
        EXPECT_EQ(log, "LHMxy") << "owner at position " << pos;
    }
}

// c (4) waits for m2, held by b (2), which waits for m1, held by a (1):
// both owners run at 4 until they unlock, ahead of d (3).
TEST(mutex, inheritance_follows_a_chain_of_owners) {
    executor ex{test::virtual_clock()};
    mutex m1{"m1"}, m2{"m2"};
    std::string log;
    int seen_a = -1, seen_b = -1;
    auto a = ex.spawn(holder(m1, 2ms, log, 'a'), 1);
    // (Named lambdas: a coroutine lambda's captures live in the closure,
    // which must outlive the task.)
    auto b_body = [&]() -> task<> {
        EXPECT_TRUE(co_await m2.lock());
        lock_guard g2{m2};
        co_await sleep_for(500us);
        EXPECT_TRUE(co_await m1.lock());
        lock_guard g1{m1};
        log += 'b';
    };
    auto b = ex.spawn(b_body(), 2);
    auto c = ex.spawn(locker(m2, 1ms, log, 'c'), 4);
    auto d = ex.spawn(logger(2ms, log, 'd'), 3);
    auto watch = [&]() -> task<> {
        co_await sleep_for(1500us);
        seen_a = m1.owner()->prio();
        seen_b = m2.owner()->prio();
    };
    auto observer = ex.spawn(watch(), 0);
    ASSERT_TRUE(a && b && c && d && observer);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(seen_a, 4);
    EXPECT_EQ(seen_b, 4);
    EXPECT_EQ(log, "abcd");
}

// A waiter that times out takes its priority with it.
TEST(mutex, a_waiter_leaving_lowers_the_owner_again) {
    executor ex{test::virtual_clock()};
    mutex m{"bus"};
    std::string log;
    int during = -1, after = -1;
    errc high_got = errc::ok;
    auto l = ex.spawn(holder(m, 2ms, log, 'L'), 1);
    auto high = [&]() -> task<> {
        co_await sleep_for(100us);
        high_got = (co_await with_timeout(m.lock(), 1ms)).code();
    };
    auto h = ex.spawn(high(), 3);
    auto md = ex.spawn(logger(2ms, log, 'M'), 2);
    auto watch = [&]() -> task<> {
        co_await sleep_for(500us);
        during = m.owner()->prio();
        co_await sleep_for(1ms);
        after = m.owner()->prio();
    };
    auto observer = ex.spawn(watch(), 0);
    ASSERT_TRUE(l && h && md && observer);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(high_got, errc::timeout);
    EXPECT_EQ(during, 3);
    EXPECT_EQ(after, 1);
    EXPECT_EQ(log, "ML");
}

// Waiters arriving as a (1), b (3), c (2), d (3) get the lock as b d c a.
TEST(mutex, hands_over_by_priority_then_arrival) {
    executor ex{test::virtual_clock()};
    mutex m{"bus"};
    std::string log;
    auto owner = ex.spawn(holder(m, 1ms, log, '-'), 0);
    const char names[] = "abcd";
    const priority prios[] = {1, 3, 2, 3};
    join_handle<void> waiters[4];
    for (int i = 0; i < 4; ++i) {
        auto w = ex.spawn(locker(m, (i + 1) * 100us, log, names[i]), prios[i]);
        ASSERT_TRUE(w);
        waiters[i] = std::move(*w);
    }
    ASSERT_TRUE(owner);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(log, "-bdca");
}

TEST(mutex, refuses_to_relock_a_held_mutex) {
    executor ex{test::virtual_clock()};
    mutex m{"bus"};
    status again;
    auto body = [&]() -> task<> {
        EXPECT_TRUE(co_await m.lock());
        again = co_await m.lock();
        m.unlock();
    };
    auto t = ex.spawn(body());
    ASSERT_TRUE(t);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    ASSERT_TRUE(test::failed_with(again, errc::cycle,
                                  "mutex 'bus': would deadlock (already held by this task)"));
    EXPECT_FALSE(m.locked());
}

// a holds m1 and wants m2; b holds m2 and already waits for m1: a's lock
// is refused, a releases m1, and b goes on.
TEST(mutex, refuses_a_lock_that_closes_a_cycle) {
    executor ex{test::virtual_clock()};
    mutex m1{"m1"}, m2{"m2"};
    status a_got;
    bool b_done = false;
    auto a_body = [&]() -> task<> {
        EXPECT_TRUE(co_await m1.lock());
        co_await sleep_for(1ms);
        a_got = co_await m2.lock();
        m1.unlock();
    };
    auto b_body = [&]() -> task<> {
        EXPECT_TRUE(co_await m2.lock());
        EXPECT_TRUE(co_await m1.lock());
        m1.unlock();
        m2.unlock();
        b_done = true;
    };
    auto a = ex.spawn(a_body());
    auto b = ex.spawn(b_body());
    ASSERT_TRUE(a && b);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(a_got.code(), errc::cycle);
    EXPECT_NE(std::string(a_got.err().message().c_str()).find("'m2'"), std::string::npos);
    EXPECT_TRUE(b_done);
    EXPECT_FALSE(m1.locked());
    EXPECT_FALSE(m2.locked());
}

// x (2) waits for m before y (2); x inherits 4 for a while (h waits for
// x's m2 until it times out), then drops back: x is still the older of two
// equal waiters and gets m first.
TEST(mutex, a_requeued_waiter_keeps_its_age_among_equals) {
    executor ex{test::virtual_clock()};
    mutex m{"m"}, m2{"m2"};
    std::string log;
    auto x_body = [&]() -> task<> {
        EXPECT_TRUE(co_await m2.lock());
        co_await sleep_for(1ms);
        EXPECT_TRUE(co_await m.lock());
        log += 'x';
        m.unlock();
        m2.unlock();
    };
    auto h_body = [&]() -> task<> {
        co_await sleep_for(3ms);
        EXPECT_EQ((co_await with_timeout(m2.lock(), 1ms)).code(), errc::timeout);
    };
    auto o = ex.spawn(holder(m, 10ms, log, '-'), 0);
    auto x = ex.spawn(x_body(), 2);
    auto y = ex.spawn(locker(m, 2ms, log, 'y'), 2);
    auto h = ex.spawn(h_body(), 4);
    ASSERT_TRUE(o && x && y && h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(log, "-xy");
}

// The owner (1) bounds its work by racing it in when_any: the work runs in
// a child task, which runs at what the owner inherits from h (3), ahead of
// the medium task (2); and back at 1 once h has the lock.
TEST(mutex, an_owner_waiting_in_when_any_lends_to_its_children) {
    executor ex{test::virtual_clock()};
    mutex m{"bus"};
    std::string log;
    int owner_prio = -1;
    auto work = [&]() -> task<> {
        co_await sleep_for(2ms);
        owner_prio = m.owner()->prio();
        log += 'O';
    };
    auto bound = []() -> task<> { co_await sleep_for(50ms); };
    auto owner = [&]() -> task<> {
        EXPECT_TRUE(co_await m.lock());
        (void)co_await when_any(work(), bound());
        m.unlock();
    };
    auto a = ex.spawn(owner(), 1);
    auto h = ex.spawn(locker(m, 1ms, log, 'H'), 3);
    auto md = ex.spawn(logger(2ms, log, 'M'), 2);
    ASSERT_TRUE(a && h && md);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(log, "OHM");
    EXPECT_EQ(owner_prio, 3);
}

// A parent holds m and waits in when_all for a child that locks m: the
// child's lock is refused (it would wait for its own parent).
TEST(mutex, refuses_a_child_the_lock_its_waiting_parent_holds) {
    executor ex{test::virtual_clock()};
    mutex m{"bus"};
    status child_got;
    auto child = [&]() -> task<> {
        child_got = co_await m.lock();
        if (child_got) m.unlock();
    };
    auto parent = [&]() -> task<> {
        EXPECT_TRUE(co_await m.lock());
        (void)co_await when_all(child());
        m.unlock();
    };
    auto p = ex.spawn(parent(), 1);
    ASSERT_TRUE(p);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(child_got.code(), errc::cycle);
    EXPECT_FALSE(m.locked());
}

TEST(mutex, a_waiter_that_comes_and_goes_leaves_a_ready_owner_its_place) {
    executor ex{test::virtual_clock()};
    mutex m{"bus"};
    std::string log;
    auto owner = [&]() -> task<> {
        EXPECT_TRUE(co_await m.lock());
        co_await sleep_for(1ms);
        log += 'O';
        m.unlock();
    };
    auto high = [&]() -> task<> {
        co_await sleep_for(1ms);  // the owner is ready by now, not yet running
        EXPECT_EQ((co_await with_timeout(m.lock(), 0ms)).code(), errc::timeout);
        log += 'H';
    };
    auto o = ex.spawn(owner(), 1);
    auto x = ex.spawn(logger(1ms, log, 'x'), 1);
    auto h = ex.spawn(high(), 5);
    ASSERT_TRUE(o && x && h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(log, "HOx");  // the owner's timer fired before x's
}

TEST(mutex, a_cancelled_task_does_not_get_a_free_lock) {
    executor ex{test::virtual_clock()};
    mutex m{"bus"};
    status got;
    auto body = [&]() -> task<> {
        co_await sleep_for(1ms);  // ends cancelled at once
        got = co_await m.lock();
        if (got) m.unlock();
    };
    auto t = ex.spawn(body(), 1);
    ASSERT_TRUE(t);
    t->cancel();
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got.code(), errc::cancelled);
    EXPECT_FALSE(m.locked());
}

// A task that ends holding a lock would leave it owned by a control block
// that no longer exists (the next lock() walks from the owner): stopped,
// naming the mutex.
TEST(mutex, a_task_that_ends_holding_a_lock_stops_the_program_naming_it) {
    EXPECT_DEATH(
        {
            executor ex{test::virtual_clock()};
            mutex m{"bus"};
            auto body = [&]() -> task<> { (void)co_await m.lock(); };
            auto t = ex.spawn(body(), 1);
            (void)ex.run();
        },
        "a task ended holding mutex 'bus'");
}

TEST(mutex, a_when_all_child_that_ends_holding_a_lock_stops_the_program) {
    EXPECT_DEATH(
        {
            executor ex{test::virtual_clock()};
            mutex m{"spi"};
            auto child = [&]() -> task<> { (void)co_await m.lock(); };
            auto idle = []() -> task<> { co_return; };
            auto parent = [&]() -> task<> { (void)co_await when_all(child(), idle()); };
            auto t = ex.spawn(parent(), 1);
            (void)ex.run();
        },
        "a task ended holding mutex 'spi'");
}

// What a task holds is its root's: a nested task may lock for its caller,
// locks may be released in any order, and a lock handed to a waiter
// becomes the waiter's to release (ending with it is then reported).
TEST(mutex, held_locks_follow_the_root_task_and_every_release_order) {
    executor ex{test::virtual_clock()};
    mutex a{"a"}, b{"b"}, c{"c"};
    std::string log;
    auto take = [](mutex& m) -> task<status> { co_return co_await m.lock(); };
    auto first = [&]() -> task<> {
        EXPECT_TRUE(co_await take(a));  // locked by a nested task, kept by this one
        EXPECT_TRUE(co_await b.lock());
        EXPECT_TRUE(co_await c.lock());
        co_await sleep_for(1ms);  // meanwhile the second task queues for b
        a.unlock();  // not the latest
        c.unlock();
        b.unlock();  // handed to the waiter
        log += '1';
    };
    auto second = [&]() -> task<> {
        co_await sleep_for(500us);
        EXPECT_TRUE(co_await b.lock());
        log += '2';
        b.unlock();
    };
    auto t1 = ex.spawn(first(), 1);
    auto t2 = ex.spawn(second(), 1);
    ASSERT_TRUE(t1 && t2);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(log, "12");
    EXPECT_FALSE(a.locked() || b.locked() || c.locked());
}

TEST(mutex, a_task_that_ends_with_a_lock_handed_to_it_stops_the_program) {
    EXPECT_DEATH(
        {
            executor ex{test::virtual_clock()};
            mutex m{"i2c"};
            auto first = [&]() -> task<> {
                (void)co_await m.lock();
                co_await sleep_for(1ms);
                m.unlock();  // handed to the second task
            };
            auto second = [&]() -> task<> {
                co_await sleep_for(500us);
                (void)co_await m.lock();  // and never unlocked
            };
            auto t1 = ex.spawn(first(), 1);
            auto t2 = ex.spawn(second(), 1);
            (void)ex.run();
        },
        "a task ended holding mutex 'i2c'");
}
