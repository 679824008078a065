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
using test::text;

namespace {


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

// a holds the bus and joins b; b locks the bus. Whichever of the two waits
// comes second would close the cycle a -> b -> a and is refused: b's lock
// (the mutex follows a's join to b) or a's join (the join follows b's
// lock to its owner, a). The other wait then ends normally.
void mixed_cycle(bool b_waits_first) {
    executor ex{test::virtual_clock()};
    mutex bus{"bus"};
    std::optional<result<join_handle<void>>> b;
    status a_got, b_got;
    auto a_body = [&]() -> task<> {
        EXPECT_TRUE(co_await bus.lock());
        if (b_waits_first) co_await sleep_for(1ms);
        a_got = co_await (*b)->join();
        bus.unlock();
    };
    auto b_body = [&]() -> task<> {
        if (!b_waits_first) co_await sleep_for(1ms);
        b_got = co_await bus.lock();
        if (b_got) bus.unlock();
    };
    auto a = ex.spawn(a_body());
    b.emplace(ex.spawn(b_body()));
    ASSERT_TRUE(a && *b);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    const status& refused = b_waits_first ? a_got : b_got;
    const status& granted = b_waits_first ? b_got : a_got;
    EXPECT_EQ(refused.code(), errc::cycle);
    EXPECT_EQ(text(refused), b_waits_first
                                 ? "join_handle 'join': would deadlock (the joined task is the caller or waits for it)"
                                 : "mutex 'bus': would deadlock (held by a task that waits for this one)");
    EXPECT_TRUE(granted);
    EXPECT_FALSE(bus.locked());
}

TEST(join_wait, a_lock_whose_owner_joins_the_locker) { mixed_cycle(false); }
TEST(join_wait, a_join_of_a_task_waiting_for_the_joiners_lock) { mixed_cycle(true); }

// A handle moved while a join waits on it, the old one destroyed. Kept
// (`keep`): the join follows the moves and takes the value from the new
// handle (before, it read the destroyed one: "nothing to join"). Dropped:
// the task is detached and the join ends with `invalid`, as for the
// original handle dropped; the task still runs to its end.
void moved_during_join(bool keep) {
    executor ex{test::virtual_clock()};
    std::optional<join_handle<int>> first, second;
    status got;
    int value = 0;
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
        if (r) value = *r;
    };
    auto mover = [&]() -> task<> {
        co_await sleep_for(1ms);
        second.emplace(std::move(*first));  // move-constructed
        first.reset();
        join_handle<int> third;
        third = std::move(*second);  // and move-assigned
        if (keep) second.emplace(std::move(third));
        else second.reset();  // `third` is dropped at the end of this scope
    };
    auto j = ex.spawn(joiner());
    auto m = ex.spawn(mover());
    ASSERT_TRUE(j && m);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_TRUE(worker_done);
    if (keep) {
        EXPECT_TRUE(got);
        EXPECT_EQ(value, 42);
        EXPECT_FALSE(second->done());  // the join consumed it (and freed the frame)
    } else {
        EXPECT_EQ(text(got), "join_handle 'join': detached while being joined");
    }
}

TEST(join_wait, a_handle_moved_during_the_join_is_followed) { moved_during_join(true); }
TEST(join_wait, a_moved_handle_dropped_during_the_join_ends_it) { moved_during_join(false); }
