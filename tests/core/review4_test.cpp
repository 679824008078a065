// SPDX-License-Identifier: Apache-2.0
// Review 4: composition (when_all / when_any), joins, cancellation and
// bounds at their edges. Every scenario runs its frames from a pool of its
// own and checks that every frame went back.
#include <weft/core/cancel.hpp>
#include <weft/core/event.hpp>
#include <weft/core/sleep.hpp>
#include <weft/core/task.hpp>
#include <weft/core/timeout.hpp>
#include <weft/core/when_all.hpp>
#include <weft/core/when_any.hpp>
#include <weft/core/yield.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>

#include <optional>
#include <string>
#include <vector>

using namespace weft;
using namespace std::chrono_literals;

namespace {

task<int> after(duration d, int v, errc* saw = nullptr) {
    status s = co_await sleep_for(d);
    if (saw) *saw = s.code();
    co_return v;
}

// The coroutine `make()` calls, with its frame from `pool` (a reference:
// the frame of a coroutine lambda refers to the lambda object).
template <class Make>
auto made_in(frame_pool_base& pool, Make& make) {
    use_frames s{pool};
    return make();
}

}  // namespace

// --- when_all / when_any of one child ---

TEST(review4, when_all_and_when_any_of_one_child_give_its_value_and_free_its_frame) {
    static frame_pool<2048, 4> pool{"r4_one"};
    executor ex{test::virtual_clock()};
    int all = 0, any = 0;
    std::size_t index = 9;
    errc outcome = errc::invalid;
    auto root = [&]() -> task<> {
        auto [x] = co_await when_all(after(2ms, 4));
        all = *x;
        auto r = co_await when_any(after(1ms, 5));
        index = r.index;
        any = **std::get<0>(r.values);
        outcome = r.outcome;
    };
    {
        use_frames s{pool};
        auto h = ex.spawn(root());
        ASSERT_TRUE(h);
        EXPECT_EQ(ex.run(), run_outcome::completed);
    }
    EXPECT_EQ(all, 4);
    EXPECT_EQ(any, 5);
    EXPECT_EQ(index, 0u);
    EXPECT_EQ(outcome, errc::ok);
    EXPECT_EQ(test::ms(ex), 3);
    EXPECT_EQ(pool.in_use(), 0u);
}

// --- nested when_any inside when_all, cancelled from outside ---

TEST(review4, a_cancel_from_outside_reaches_a_when_any_nested_in_a_when_all) {
    static frame_pool<2048, 8> pool{"r4_nested"};
    executor ex{test::virtual_clock()};
    errc c1 = errc::ok, c2 = errc::ok, c3 = errc::ok;
    errc inner_outcome = errc::ok;
    int side = 0;
    auto inner = [&]() -> task<int> {
        auto r = co_await when_any(after(1h, 1, &c1), after(2h, 2, &c2));
        inner_outcome = r.outcome;
        co_return int(r.index) + 10;
    };
    int first = 0;
    auto root = [&]() -> task<> {
        auto [a, b] = co_await when_all(inner(), after(3h, 3, &c3));
        first = *a;
        side = *b;
    };
    {
        auto h = ex.spawn(made_in(pool, root));
        ASSERT_TRUE(h);
        test::cancel_after(ex, *h, 5ms);
        EXPECT_EQ(ex.run(), run_outcome::completed);
    }
    EXPECT_EQ(c1, errc::cancelled);
    EXPECT_EQ(c2, errc::cancelled);
    EXPECT_EQ(c3, errc::cancelled);
    EXPECT_EQ(inner_outcome, errc::cancelled);
    EXPECT_EQ(first, 10);  // the first child to end after the cancel
    EXPECT_EQ(side, 3);
    EXPECT_EQ(test::ms(ex), 5);
    EXPECT_EQ(pool.in_use(), 0u);
}

// --- when_any: a bound or a cancel that comes while the losers unwind ---

TEST(review4, a_bound_that_expires_while_the_losers_unwind_leaves_the_winner_ok) {
    static frame_pool<2048, 8> pool{"r4_unwind"};
    executor ex{test::virtual_clock()};
    std::size_t index = 9;
    errc outcome = errc::invalid;
    int value = 0;
    std::int64_t at = -1;
    auto stubborn = [&]() -> task<int> {
        (void)co_await sleep_for(1h);  // cancelled when the winner ends
        // Unwinding takes 8 ms of (simulated) work, past the bound at 5 ms:
        // every await ends cancelled at once, time passes by advance().
        for (int i = 0; i < 8; ++i) {
            ex.advance(1ms);
            (void)co_await yield();
        }
        co_return -1;
    };
    auto root = [&]() -> task<> {
        auto r = co_await with_timeout(when_any(stubborn(), after(2ms, 7)), 5ms);
        index = r.index;
        outcome = r.outcome;
        value = **std::get<1>(r.values);
        at = test::ms(ex);
    };
    {
        use_frames s{pool};
        auto h = ex.spawn(root());
        ASSERT_TRUE(h);
        EXPECT_EQ(ex.run(), run_outcome::completed);
    }
    EXPECT_EQ(index, 1u);
    EXPECT_EQ(outcome, errc::ok);
    EXPECT_EQ(value, 7);
    EXPECT_EQ(at, 10);  // the loser was awaited to its end
    EXPECT_EQ(pool.in_use(), 0u);
}

// A group whose children are all stuck leaves run() stalled; cancelling
// the parent then ends every child and gives every frame back.
TEST(review4, a_stalled_group_cancelled_afterwards_ends_and_frees_every_frame) {
    static frame_pool<2048, 8> pool{"r4_stalled"};
    executor ex{test::virtual_clock()};
    event never{"never"};
    errc a = errc::ok, b = errc::ok;
    std::size_t index = 9;
    auto stuck = [&](errc& out) -> task<int> {
        out = (co_await never.wait()).code();
        co_return 1;
    };
    auto root = [&]() -> task<> {
        auto [x, y] = co_await when_all(stuck(a), stuck(b));
        (void)x, (void)y;
        auto r = co_await when_any(stuck(a), stuck(b));  // cancelled: ends at once
        index = r.index;
    };
    {
        auto h = ex.spawn(made_in(pool, root));
        ASSERT_TRUE(h);
        EXPECT_EQ(ex.run(), run_outcome::stalled);
        EXPECT_EQ(pool.in_use(), 1u);  // the root (its children come from the test pools)
        h->cancel();
        EXPECT_EQ(ex.run(), run_outcome::completed);
    }
    EXPECT_EQ(a, errc::cancelled);
    EXPECT_EQ(b, errc::cancelled);
    EXPECT_EQ(index, 0u);
    EXPECT_EQ(pool.in_use(), 0u);
}

// A deadline already past: the children are cancelled before they first
// run, and no virtual time passes.
TEST(review4, a_past_deadline_on_a_when_all_cancels_children_before_they_run) {
    static frame_pool<2048, 8> pool{"r4_past"};
    executor ex{test::virtual_clock()};
    errc x = errc::ok, y = errc::ok;
    int got = 0;
    auto root = [&]() -> task<> {
        co_await sleep_for(3ms);
        auto [a, b] = co_await with_deadline(when_all(after(1ms, 1, &x), after(1h, 2, &y)), time_point{1ms});
        got = *a + *b;
    };
    {
        use_frames s{pool};
        auto h = ex.spawn(root());
        ASSERT_TRUE(h);
        EXPECT_EQ(ex.run(), run_outcome::completed);
    }
    EXPECT_EQ(x, errc::cancelled);
    EXPECT_EQ(y, errc::cancelled);
    EXPECT_EQ(got, 3);
    EXPECT_EQ(test::ms(ex), 3);
    EXPECT_EQ(pool.in_use(), 0u);
}

// --- timers: equal deadlines erased out of order and re-armed ---

// Eight sleeps armed for one deadline, each under a bound: four bounds
// expire early in an order unlike the arming order (erasing those sleeps
// from the middle of the heap), and those four sleep again for the same
// deadline; the other four bounds, all due at one far instant, are erased
// as their sleeps end. Equal deadlines still fire in arming order.
TEST(review4, equal_deadline_timers_erased_out_of_order_and_rearmed_keep_arming_order) {
    static frame_pool<2048, 16> pool{"r4_timers"};
    executor ex{test::virtual_clock()};
    std::vector<int> woke;
    const duration bound[8] = {2ms, 1h, 1h, 3ms, 1h, 1ms, 1h, 1ms};
    auto sleeper = [&](int id) -> task<> {
        status s = co_await with_timeout(sleep_until(time_point{10ms}), bound[id]);
        if (!s) {
            woke.push_back(100 + id);
            s = co_await sleep_until(time_point{10ms});  // armed again, behind the others
        }
        if (s) woke.push_back(id);
    };
    {
        std::vector<join_handle<void>> hs;
        for (int i = 0; i < 8; ++i) {
            auto make = [&] { return sleeper(i); };
            auto h = ex.spawn(made_in(pool, make));
            ASSERT_TRUE(h);
            hs.push_back(std::move(*h));
        }
        EXPECT_EQ(ex.run(), run_outcome::completed);
    }
    EXPECT_EQ(woke, (std::vector<int>{105, 107, 100, 103, 1, 2, 4, 6, 5, 7, 0, 3}));
    EXPECT_EQ(test::ms(ex), 10);
    EXPECT_EQ(pool.in_use(), 0u);
}

// --- joins ---

TEST(review4, a_join_bounded_at_the_instant_the_task_ends_times_out_then_a_second_join_gets_the_value) {
    static frame_pool<2048, 4> pool{"r4_join"};
    executor ex{test::virtual_clock()};
    std::optional<result<join_handle<int>>> h;
    {
        use_frames s{pool};
        h.emplace(ex.spawn(after(3ms, 42)));
    }
    ASSERT_TRUE(*h);
    std::string first;
    int second = 0;
    auto joiner = [&]() -> task<> {
        auto r = co_await with_timeout((*h)->join(), 3ms);
        first = r ? "value" : r.err().message().c_str();
        second = *co_await (*h)->join();
    };
    {
        use_frames s{pool};
        auto j = ex.spawn(joiner());
        ASSERT_TRUE(j);
        EXPECT_EQ(ex.run(), run_outcome::completed);
    }
    // Named as the join's other errors are ("task 'join'" named a task
    // called 'join').
    EXPECT_EQ(first, "join_handle 'join': timeout");
    EXPECT_EQ(second, 42);
    EXPECT_FALSE((*h)->done());  // joined: the handle let go of the frame
    h.reset();
    EXPECT_EQ(pool.in_use(), 0u);
}

TEST(review4, join_and_cancel_of_a_task_that_finished_long_ago) {
    static frame_pool<2048, 4> pool{"r4_done"};
    executor ex{test::virtual_clock()};
    std::optional<result<join_handle<int>>> h;
    {
        use_frames s{pool};
        h.emplace(ex.spawn(after(1ms, 9)));
    }
    ASSERT_TRUE(*h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_TRUE((*h)->done());
    EXPECT_EQ(pool.in_use(), 1u);
    (*h)->cancel();
    int got = 0;
    std::string again;
    auto joiner = [&]() -> task<> {
        co_await sleep_for(5ms);
        got = *co_await (*h)->join();
        auto r = co_await (*h)->join();
        again = r ? "value" : r.err().message().c_str();
    };
    {
        use_frames s{pool};
        auto j = ex.spawn(joiner());
        ASSERT_TRUE(j);
        EXPECT_EQ(ex.run(), run_outcome::completed);
    }
    EXPECT_EQ(got, 9);
    EXPECT_EQ(again, "join_handle '(empty)': nothing to join");
    EXPECT_EQ(pool.in_use(), 0u);
}

// --- pool exhaustion in the middle of a when_all ---

TEST(review4, a_pool_running_out_in_the_middle_of_a_when_all_names_the_pool_and_leaks_nothing) {
    static frame_pool<2048, 2> pool{"r4_mid"};
    executor ex{test::virtual_clock()};
    std::string msg;
    int sum = 0;
    std::size_t during = 0;
    auto root = [&]() -> task<> {
        task<int> a, b, c;
        {
            use_frames s{pool};
            a = after(1ms, 1);
            b = after(2ms, 2);
            c = after(3ms, 3);  // no slot
        }
        during = pool.in_use();
        auto [x, y, z] = co_await when_all(std::move(a), std::move(b), std::move(c));
        sum = *x + *y;
        if (!z) msg = z.err().message().c_str();
    };
    task<> r;
    {
        use_frames s{test::large_frames};
        r = root();
    }
    auto h = ex.spawn(std::move(r));
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(during, 2u);
    EXPECT_EQ(sum, 3);
    EXPECT_EQ(msg, "frame pool 'r4_mid': all slots in use (limit 2)");
    EXPECT_EQ(test::ms(ex), 2);
    EXPECT_EQ(pool.in_use(), 0u);
}

// Two children without a frame for different reasons, one whose pool was
// full and one given empty: each reports its own reason. The group kept a
// single copied error for all of them, so the later child's reason
// replaced the earlier one's: a full pool read "task '(empty)': nothing
// to run", and an empty task read as the pool's exhaustion.
TEST(review4, children_without_a_frame_for_different_reasons_each_report_their_own) {
    static frame_pool<512, 1> pool{"r4_mixed"};
    executor ex{test::virtual_clock()};
    std::vector<std::string> got;
    auto note = [&](const auto& r) { got.push_back(r ? "value" : r.err().message().c_str()); };
    std::size_t index = 9;
    auto root = [&]() -> task<> {
        task<int> hold, full, none;
        {
            use_frames s{pool};
            hold = after(1ms, 0);
            full = after(1ms, 1);  // no slot
        }
        auto [a, b, c] = co_await when_all(std::move(full), std::move(none), std::move(hold));
        note(a);
        note(b);
        note(c);
        task<int> hold2, full2, none2;
        {
            use_frames s{pool};
            hold2 = after(1ms, 3);
            full2 = after(1ms, 2);  // no slot
        }
        // The leftmost child without a frame wins: the empty one.
        auto r = co_await when_any(std::move(none2), std::move(full2), std::move(hold2));
        index = r.index;
        note(*std::get<0>(r.values));
    };
    {
        auto h = ex.spawn(made_in(test::large_frames, root));
        ASSERT_TRUE(h);
        EXPECT_EQ(ex.run(), run_outcome::completed);
    }
    EXPECT_EQ(got, (std::vector<std::string>{"frame pool 'r4_mixed': all slots in use (limit 1)",
                                             "task '(empty)': nothing to run", "value",
                                             "task '(empty)': nothing to run"}));
    EXPECT_EQ(index, 0u);
    EXPECT_EQ(pool.in_use(), 0u);
}

// A when_any loser waiting in a join gives the join up when it is
// cancelled: the joined task is left joinable, and a later join gets its
// value (the loser's join no longer holds the one joiner slot).
TEST(review4, a_loser_cancelled_in_a_join_leaves_the_task_to_a_later_join) {
    static frame_pool<2048, 8> pool{"r4_loser_join"};
    executor ex{test::virtual_clock()};
    auto make_target = [] { return after(5ms, 11); };
    auto target = ex.spawn(made_in(pool, make_target));
    ASSERT_TRUE(target);
    errc loser_saw = errc::ok;
    int later = 0;
    std::size_t index = 9;
    auto waiter = [&]() -> task<int> {
        auto r = co_await target->join();
        loser_saw = r.code();
        co_return r ? *r : -1;
    };
    auto root = [&]() -> task<> {
        auto r = co_await when_any(waiter(), after(1ms, 2));
        index = r.index;
        later = *co_await target->join();
    };
    {
        auto h = ex.spawn(made_in(pool, root));
        ASSERT_TRUE(h);
        EXPECT_EQ(ex.run(), run_outcome::completed);
    }
    EXPECT_EQ(index, 1u);
    EXPECT_EQ(loser_saw, errc::cancelled);
    EXPECT_EQ(later, 11);
    EXPECT_EQ(test::ms(ex), 5);
    EXPECT_EQ(pool.in_use(), 0u);
}
