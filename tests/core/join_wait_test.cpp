// SPDX-License-Identifier: Apache-2.0
// Joins of spawned tasks. A join or a lock that would close a cycle of
// joins, when_all children and locks' owners (of any length, in any mix)
// is refused with errc::cycle at once; the tasks outside the cycle are
// unaffected and every task ends (run() completes, not stalls). A join
// follows its handle when the handle is moved while it waits.
#include <weft/core/mutex.hpp>
#include <weft/core/sleep.hpp>
#include <weft/core/task.hpp>
#include <weft/core/when_all.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>

#include <optional>
#include <string>

using namespace weft;
using namespace std::chrono_literals;

namespace {

std::string text(const status& s) { return s ? "ok" : s.err().message().c_str(); }

}  // namespace

// a joins b and blocks; b then joins a: b's join is refused, b ends, and
// a's join gets b's value.
TEST(join_wait, two_tasks_joining_each_other) {
    executor ex{test::virtual_clock()};
    std::optional<result<join_handle<int>>> a, b;
    int a_got = 0;
    status b_got;
    auto a_body = [&]() -> task<int> {
        a_got = *co_await (*b)->join();
        co_return 1;
    };
    auto b_body = [&]() -> task<int> {
        co_await sleep_for(1ms);  // a is blocked in its join by now
        auto r = co_await (*a)->join();
        b_got = r ? status{} : status{r.err()};
        co_return 2;
    };
    a.emplace(ex.spawn(a_body()));
    b.emplace(ex.spawn(b_body()));
    ASSERT_TRUE(*a && *b);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(b_got.code(), errc::cycle);
    EXPECT_EQ(text(b_got), "join_handle 'join': would deadlock (the joined task is the caller or waits for it)");
    EXPECT_EQ(a_got, 2);
    EXPECT_TRUE((*a)->done());
}

// a -> b -> c blocked in joins; c joining a closes the cycle and is
// refused. A join that closes none (d joining a, which waits for b) waits.
TEST(join_wait, a_longer_cycle_is_refused_and_a_chain_is_not) {
    executor ex{test::virtual_clock()};
    std::optional<result<join_handle<int>>> a, b, c;
    status c_got;
    int d_got = 0;
    auto a_body = [&]() -> task<int> { co_return *co_await (*b)->join() + 1; };
    auto b_body = [&]() -> task<int> {
        co_await sleep_for(1ms);
        co_return *co_await (*c)->join() + 1;
    };
    auto c_body = [&]() -> task<int> {
        co_await sleep_for(2ms);
        auto r = co_await (*a)->join();
        c_got = r ? status{} : status{r.err()};
        co_return 10;
    };
    a.emplace(ex.spawn(a_body()));
    b.emplace(ex.spawn(b_body()));
    c.emplace(ex.spawn(c_body()));
    ASSERT_TRUE(*a && *b && *c);
    // d joins a while a waits for b: a chain, not a cycle.
    auto d_body = [&]() -> task<> {
        co_await sleep_for(1ms);
        d_got = *co_await (*a)->join();
    };
    auto d = ex.spawn(d_body());
    ASSERT_TRUE(d);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(c_got.code(), errc::cycle);
    EXPECT_EQ(d_got, 12);  // c's 10, +1 in b, +1 in a
}

// A parent waiting in when_all for its child: the child joining the
// parent's handle would wait for its own parent.
TEST(join_wait, a_when_all_child_joining_its_waiting_parent) {
    executor ex{test::virtual_clock()};
    std::optional<result<join_handle<void>>> p;
    status child_got;
    auto child = [&]() -> task<> {
        child_got = co_await (*p)->join();
    };
    auto parent = [&]() -> task<> { (void)co_await when_all(child()); };
    p.emplace(ex.spawn(parent()));
    ASSERT_TRUE(*p);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(child_got.code(), errc::cycle);
}

// a holds the bus and joins b; b locking the bus would wait for a, which
// waits for b: the mutex follows the join and refuses, b ends, a goes on.
TEST(join_wait, a_lock_whose_owner_joins_the_locker) {
    executor ex{test::virtual_clock()};
    mutex bus{"bus"};
    std::optional<result<join_handle<void>>> b;
    status b_got;
    bool a_done = false;
    auto a_body = [&]() -> task<> {
        EXPECT_TRUE(co_await bus.lock());
        EXPECT_TRUE(co_await (*b)->join());
        bus.unlock();
        a_done = true;
    };
    auto b_body = [&]() -> task<> {
        co_await sleep_for(1ms);
        b_got = co_await bus.lock();
        if (b_got) bus.unlock();
    };
    auto a = ex.spawn(a_body());
    b.emplace(ex.spawn(b_body()));
    ASSERT_TRUE(a && *b);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(b_got.code(), errc::cycle);
    EXPECT_EQ(text(b_got), "mutex 'bus': would deadlock (held by the caller or by a task waiting for it)");
    EXPECT_TRUE(a_done);
    EXPECT_FALSE(bus.locked());
}

// b waits for the bus a holds; a joining b would wait for its own
// unlock: the join follows the lock to its owner and refuses.
TEST(join_wait, a_join_of_a_task_waiting_for_the_joiners_lock) {
    executor ex{test::virtual_clock()};
    mutex bus{"bus"};
    std::optional<result<join_handle<void>>> b;
    status a_got;
    bool b_done = false;
    auto a_body = [&]() -> task<> {
        EXPECT_TRUE(co_await bus.lock());
        co_await sleep_for(1ms);  // b is blocked on the bus by now
        a_got = co_await (*b)->join();
        bus.unlock();
    };
    auto b_body = [&]() -> task<> {
        EXPECT_TRUE(co_await bus.lock());
        bus.unlock();
        b_done = true;
    };
    auto a = ex.spawn(a_body());
    b.emplace(ex.spawn(b_body()));
    ASSERT_TRUE(a && *b);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(a_got.code(), errc::cycle);
    EXPECT_EQ(text(a_got), "join_handle 'join': would deadlock (the joined task is the caller or waits for it)");
    EXPECT_TRUE(b_done);
}

// A handle moved while a join waits on it, the old one destroyed: the join
// follows the move and takes the value from the new handle (before, it
// read the destroyed one and reported "nothing to join").
TEST(join_wait, a_handle_moved_during_the_join_is_followed) {
    executor ex{test::virtual_clock()};
    std::optional<join_handle<int>> first, second;
    int got = 0;
    auto worker = []() -> task<int> {
        co_await sleep_for(2ms);
        co_return 42;
    };
    auto w = ex.spawn(worker());
    ASSERT_TRUE(w);
    first.emplace(std::move(*w));
    auto joiner = [&]() -> task<> {
        auto r = co_await first->join();
        got = r ? *r : -1;
    };
    auto mover = [&]() -> task<> {
        co_await sleep_for(1ms);
        second.emplace(std::move(*first));  // move-constructed
        first.reset();
        join_handle<int> third;
        third = std::move(*second);  // and move-assigned
        second.emplace(std::move(third));
    };
    auto j = ex.spawn(joiner());
    auto m = ex.spawn(mover());
    ASSERT_TRUE(j && m);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got, 42);
    EXPECT_FALSE(second->done());  // the join consumed it (and freed the frame)
}

// Moved during the join, and the new handle dropped: the task is detached
// and the join ends with `invalid`, as for the original handle dropped.
TEST(join_wait, a_moved_handle_dropped_during_the_join_ends_it) {
    executor ex{test::virtual_clock()};
    std::optional<join_handle<int>> first;
    status got;
    bool worker_done = false;
    auto worker = [&]() -> task<int> {
        co_await sleep_for(2ms);
        worker_done = true;
        co_return 42;
    };
    auto w = ex.spawn(worker());
    ASSERT_TRUE(w);
    first.emplace(std::move(*w));
    auto joiner = [&]() -> task<> {
        auto r = co_await first->join();
        got = r ? status{} : status{r.err()};
    };
    auto mover = [&]() -> task<> {
        co_await sleep_for(1ms);
        join_handle<int> moved{std::move(*first)};
    };
    auto j = ex.spawn(joiner());
    auto m = ex.spawn(mover());
    ASSERT_TRUE(j && m);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(text(got), "join_handle 'join': detached while being joined");
    EXPECT_TRUE(worker_done);
}
