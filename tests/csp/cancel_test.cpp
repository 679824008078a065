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
