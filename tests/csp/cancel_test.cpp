// SPDX-License-Identifier: Apache-2.0
#include <weft/csp/cancel.hpp>
#include <weft/csp/choose.hpp>
#include <weft/csp/recv.hpp>
#include <weft/csp/wrap.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>

using namespace weft;
using namespace weft::csp;

TEST(on_cancel, commits_when_the_task_is_cancelled) {
    executor ex{test::virtual_clock()};
    channel<int> jobs{"jobs"};
    int got = 0;
    auto worker = [&]() -> task<> {
        got = *co_await choose(recv(jobs), wrap(on_cancel(), [] { return -1; }));
    };
    auto w = ex.spawn(worker());
    auto killer = [&]() -> task<> {
        co_await weft::sleep_for(1ms);
        w->cancel();
    };
    auto k = ex.spawn(killer());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got, -1);
    EXPECT_EQ(jobs.try_send(1).code(), errc::full);  // offer withdrawn
}

TEST(on_cancel, without_it_a_cancelled_sync_fails_with_cancelled) {
    executor ex{test::virtual_clock()};
    channel<int> jobs{"jobs"};
    errc code = errc::ok;
    auto worker = [&]() -> task<> { code = (co_await recv(jobs)).code(); };
    auto w = ex.spawn(worker());
    auto killer = [&]() -> task<> { w->cancel(); co_return; };
    auto k = ex.spawn(killer());
    ex.run();
    EXPECT_EQ(code, errc::cancelled);
}

TEST(on_cancel, already_cancelled_commits_at_once) {
    executor ex{test::virtual_clock()};
    channel<int, 1> jobs{"jobs"};
    (void)jobs.try_send(5);
    int got = 0;
    auto worker = [&]() -> task<> {
        co_await weft::sleep_for(1ms);
        got = *co_await choose(recv(jobs), wrap(on_cancel(), [] { return -1; }));
    };
    auto w = ex.spawn(worker());
    w->cancel();
    ex.run();
    EXPECT_EQ(got, -1);
    EXPECT_EQ(jobs.size(), 1u);  // the ready value was not taken
}

// Several on_cancel() branches: which one commits follows choose's policy
// for ready branches (docs/csp.md, "choose, fairness"): a fair share for
// choose, argument order for choose_ordered. Cancellation is sticky, so
// every sync of the loop starts cancelled.
TEST(on_cancel, several_in_a_choose_each_win_their_share) {
    executor ex{test::virtual_clock()};
    channel<int> jobs{"jobs"};
    int first = 0, second = 0;
    auto worker = [&]() -> task<> {
        for (int i = 0; i < 200; ++i) {
            auto r = co_await choose(wrap(on_cancel(), [] { return 1; }), recv(jobs),
                                     wrap(on_cancel(), [] { return 2; }));
            (*r == 1 ? first : second)++;
        }
    };
    auto w = ex.spawn(worker());
    ASSERT_TRUE(w);
    w->cancel();
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(first + second, 200);
    EXPECT_GT(first, 70);
    EXPECT_GT(second, 70);
}

TEST(on_cancel, several_in_choose_ordered_commit_the_first) {
    executor ex{test::virtual_clock()};
    channel<int> jobs{"jobs"};
    int first = 0, parked = 0;
    auto worker = [&]() -> task<> {
        // Cancelled while parked, then at the start of each later sync.
        for (int i = 0; i < 10; ++i) {
            auto r = co_await choose_ordered(recv(jobs), wrap(on_cancel(), [] { return 1; }),
                                             wrap(on_cancel(), [] { return 2; }));
            if (*r == 1) ++first;
        }
        ++parked;
    };
    auto w = ex.spawn(worker());
    ASSERT_TRUE(w);
    test::cancel_after(ex, *w, 1ms);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(first, 10);
    EXPECT_EQ(parked, 1);
    EXPECT_EQ(jobs.try_send(1).code(), errc::full);  // offers withdrawn
}

// A nested choose is one branch: its own on_cancel() competes with the
// outer one by the outer choose's order.
TEST(on_cancel, in_a_nested_choose_is_one_branch_of_the_outer) {
    executor ex{test::virtual_clock()};
    channel<int> a{"a"}, b{"b"};
    int got = 0;
    auto worker = [&]() -> task<> {
        auto r = co_await choose_ordered(choose(recv(a), wrap(on_cancel(), [] { return 1; })),
                                         wrap(on_cancel(), [] { return 2; }), recv(b));
        got = *r;
    };
    auto w = ex.spawn(worker());
    ASSERT_TRUE(w);
    test::cancel_after(ex, *w, 1ms);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got, 1);
}
