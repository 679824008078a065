// SPDX-License-Identifier: Apache-2.0
#include <weft/core/semaphore.hpp>
#include <weft/core/sleep.hpp>
#include <weft/core/task.hpp>
#include <weft/core/timeout.hpp>
#include <weft/core/when_all.hpp>
#include <weft/core/when_any.hpp>

#include <gtest/gtest.h>
#include <string>
#include <support/weft_test.hpp>

using namespace weft;

namespace {
task<int> after(std::chrono::milliseconds d, int v) {
    co_await sleep_for(d);
    co_return v;
}

// Runs `root` with its own frame from the large test pool: it must not take
// a tiny pool's only slot (pools are size classes: the smallest fitting
// slot is used).
template <class Root>
void run_root(executor& ex, Root& root) {
    task<> r;
    {
        use_frames s{test::large_frames};
        r = root();
    }
    auto h = ex.spawn(std::move(r));
    ASSERT_TRUE(h);
    ex.run();
}
}  // namespace

TEST(when_all, runs_children_concurrently_and_returns_all_results) {
    executor ex{test::virtual_clock()};
    int a = 0, b = 0;
    auto root = [&]() -> task<> {
        auto [x, y] = co_await when_all(after(3ms, 1), after(5ms, 2));
        a = *x;
        b = *y;
    };
    auto h = ex.spawn(root());
    ASSERT_TRUE(h);
    ex.run();
    EXPECT_EQ(a, 1);
    EXPECT_EQ(b, 2);
    EXPECT_EQ(test::ms(ex), 5);  // concurrent: max, not sum
}

TEST(when_any, first_wins_and_losers_are_cancelled_and_released) {
    static frame_pool<512, 8> pool{"any_pool"};
    executor ex{test::virtual_clock()};
    semaphore held{"held", 1, 1};
    bool loser_released = false;
    auto loser = [&]() -> task<int> {
        co_await held.acquire();               // holds a resource...
        auto s = co_await sleep_for(1h);       // ...and blocks
        EXPECT_EQ(s.code(), errc::cancelled);
        (void)held.release();                  // released while unwinding
        loser_released = true;
        co_return -1;
    };
    std::size_t index = 99;
    int value = 0;
    auto root = [&]() -> task<> {
        task<int> l, w;
        {
            use_frames s{pool};
            l = loser();
            w = after(2ms, 7);
        }
        auto r = co_await when_any(std::move(l), std::move(w));
        index = r.index;
        value = **std::get<1>(r.values);
        // Every loser has finished and freed its resources by now.
        EXPECT_TRUE(loser_released);
        EXPECT_EQ(held.available(), 1u);
    };
    auto h = ex.spawn(root());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(index, 1u);
    EXPECT_EQ(value, 7);
    EXPECT_EQ(test::ms(ex), 2);
    h->detach();                   // the root's frame may come from `pool` too
    EXPECT_EQ(pool.in_use(), 0u);  // losers' frames released too
}

TEST(when_any, cancelling_the_parent_cancels_children) {
    executor ex{test::virtual_clock()};
    errc outcome = errc::ok;
    auto root = [&]() -> task<> {
        auto r = co_await when_any(after(1h, 1), after(2h, 2));
        outcome = r.outcome;
    };
    auto h = ex.spawn(root());
    ASSERT_TRUE(h);
    auto canceller = [&]() -> task<> {  // named: a coroutine lambda must outlive its frame
        co_await sleep_for(1ms);
        h->cancel();
    };
    auto c = ex.spawn(canceller());
    ASSERT_TRUE(c);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(outcome, errc::cancelled);
    EXPECT_EQ(test::ms(ex), 1);
}

TEST(when_all, timeout_cancels_children_and_waits_for_them) {
    executor ex{test::virtual_clock()};
    int finished = 0;
    auto child = [&]() -> task<> {
        co_await sleep_for(1h);
        ++finished;
    };
    auto root = [&]() -> task<> {
        co_await with_timeout(when_all(child(), child()), 4ms);
    };
    auto h = ex.spawn(root());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(finished, 2);  // both unwound (their sleeps ended early)
    EXPECT_EQ(test::ms(ex), 4);
}

TEST(when_all, a_child_that_could_not_be_allocated_reports_the_pool) {
    static frame_pool<512, 1> tiny{"tiny"};
    executor ex{test::virtual_clock()};
    errc second = errc::ok;
    const char* pool_name = nullptr;
    auto root = [&]() -> task<> {
        task<int> a, b;
        {
            use_frames s{tiny};
            a = after(1ms, 1);
            b = after(1ms, 2);  // no slot left
        }
        auto [x, y] = co_await when_all(std::move(a), std::move(b));
        EXPECT_TRUE(x);
        second = y.code();
        if (!y) pool_name = y.err().object;
    };
    run_root(ex, root);
    EXPECT_EQ(second, errc::no_memory);
    EXPECT_STREQ(pool_name, "tiny");
}

TEST(when_all, a_childs_frame_error_is_the_one_it_had_not_a_later_one) {
    // The allocator's last error is overwritten by the next failure
    // anywhere; the group keeps the one the child had.
    static frame_pool<512, 1> tiny{"tiny2"};
    static frame_pool<512, 1> other{"other"};
    executor ex{test::virtual_clock()};
    std::string first;
    auto later_failure = [&]() -> task<int> {
        co_await sleep_for(1ms);
        task<int> c, d;
        {
            use_frames s{other};
            c = after(1ms, 3);
            d = after(1ms, 4);  // fails: 'other' has one slot
        }
        EXPECT_FALSE(d);
        co_return 2;
    };
    auto root = [&]() -> task<> {
        task<int> a, b;
        {
            use_frames s{tiny};
            a = after(1ms, 1);
            b = after(1ms, 2);  // no slot left in 'tiny2'
        }
        auto [x, y, z] = co_await when_all(std::move(a), std::move(b), later_failure());
        EXPECT_TRUE(x && z);
        if (!y) first = y.err().message().c_str();
    };
    run_root(ex, root);
    EXPECT_EQ(first, "frame pool 'tiny2': all slots in use (limit 1)");
}

TEST(when_all, a_bound_of_duration_max_is_never) {
    executor ex{test::virtual_clock()};
    int sum = 0;
    auto root = [&]() -> task<> {
        co_await sleep_for(1ms);  // past time 0: now + max would overflow
        auto [x, y] = co_await with_timeout(when_all(after(2ms, 1), after(3ms, 2)), duration::max());
        sum = *x + *y;
    };
    run_root(ex, root);
    EXPECT_EQ(sum, 3);
    EXPECT_EQ(test::ms(ex), 4);
}

// A child whose frame could not be allocated finishes first (with its
// error): when_any cancels the other child at once, as for any winner.
TEST(when_any, a_child_that_could_not_be_allocated_wins_and_the_others_are_cancelled) {
    static frame_pool<512, 1> one{"one"};
    executor ex{test::virtual_clock()};
    std::size_t index = 99;
    errc winner = errc::ok;
    bool loser_has_value = true;
    auto root = [&]() -> task<> {
        task<int> slow, failed;
        {
            use_frames s{one};
            slow = after(std::chrono::hours(1), 1);
            failed = after(1ms, 2);  // no slot left
        }
        auto r = co_await when_any(std::move(failed), std::move(slow));
        index = r.index;
        auto& w = std::get<0>(r.values);  // optional<result<int>>
        winner = w ? w->code() : errc::invalid;
        loser_has_value = std::get<1>(r.values).has_value();
    };
    run_root(ex, root);
    EXPECT_EQ(index, 0u);
    EXPECT_EQ(winner, errc::no_memory);
    EXPECT_FALSE(loser_has_value);
    EXPECT_EQ(test::ms(ex), 0);  // not an hour later
    EXPECT_EQ(one.in_use(), 0u);
}

// Equal deadlines fire in arming order and children start in argument
// order, so the leftmost of children ready in the same step wins.
TEST(when_any, children_ready_in_the_same_step_the_leftmost_wins) {
    static frame_pool<512, 8> pool{"same_step"};
    executor ex{test::virtual_clock()};
    std::size_t timed = 99, instant = 99;
    int value = 0;
    bool loser_has_value = true;
    auto quick = [](int v) -> task<int> { co_return v; };
    auto root = [&]() -> task<> {
        task<int> a, b;
        {
            use_frames s{pool};
            a = after(2ms, 1);
            b = after(2ms, 2);
        }
        auto r = co_await when_any(std::move(b), std::move(a));
        timed = r.index;
        value = **std::get<0>(r.values);
        loser_has_value = std::get<1>(r.values).has_value();
        EXPECT_EQ(pool.in_use(), 0u);  // the loser's frame too
        instant = (co_await when_any(quick(1), quick(2))).index;
    };
    run_root(ex, root);
    EXPECT_EQ(timed, 0u);
    EXPECT_EQ(value, 2);
    EXPECT_FALSE(loser_has_value);
    EXPECT_EQ(instant, 0u);
    EXPECT_EQ(test::ms(ex), 2);
}

TEST(when_all, a_parent_cancelled_before_the_await_cancels_the_children_at_once) {
    executor ex{test::virtual_clock()};
    errc x = errc::ok, y = errc::ok;
    auto child = [](errc& out) -> task<> { out = (co_await sleep_for(1h)).code(); };
    auto root = [&]() -> task<> {
        co_await sleep_for(1ms);  // ends cancelled
        co_await when_all(child(x), child(y));
    };
    auto h = ex.spawn(root());
    ASSERT_TRUE(h);
    h->cancel();
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(x, errc::cancelled);
    EXPECT_EQ(y, errc::cancelled);
    EXPECT_EQ(test::ms(ex), 0);
}

TEST(when_any, children_that_all_got_no_frame_end_the_await_at_once) {
    static frame_pool<512, 1> one{"all_fail"};
    executor ex{test::virtual_clock()};
    std::size_t index = 99;
    errc first = errc::ok, second = errc::ok;
    auto root = [&]() -> task<> {
        task<int> hold, a, b;
        {
            use_frames s{one};
            hold = after(1ms, 0);
            a = after(1ms, 1);  // no slot
            b = after(1ms, 2);  // no slot
        }
        auto r = co_await when_any(std::move(a), std::move(b));
        index = r.index;
        first = std::get<0>(r.values)->code();
        second = std::get<1>(r.values).has_value() ? errc::ok : errc::empty;
    };
    run_root(ex, root);
    EXPECT_EQ(index, 0u);
    EXPECT_EQ(first, errc::no_memory);
    EXPECT_EQ(second, errc::empty);
    EXPECT_EQ(test::ms(ex), 0);
}
