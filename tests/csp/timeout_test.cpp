// SPDX-License-Identifier: Apache-2.0
#include <weft/csp/recv.hpp>
#include <weft/csp/timeout.hpp>
#include <weft/csp/choose.hpp>
#include <weft/csp/wrap.hpp>
#include <weft/core/sleep.hpp>

#include <vector>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>

using namespace weft;
using namespace weft::csp;

TEST(timeout, alone_is_a_sleep) {
    executor ex{test::virtual_clock()};
    std::int64_t t1 = 0, t2 = 0;
    auto t = [&]() -> task<> {
        (void)co_await timeout(4ms);
        t1 = test::ms(ex);
        (void)co_await at(from_ns(10'000'000));
        t2 = test::ms(ex);
    };
    auto h = ex.spawn(t());
    ex.run();
    EXPECT_EQ(t1, 4);
    EXPECT_EQ(t2, 10);
}

TEST(timeout, core_with_timeout_bounds_an_event) {
    executor ex{test::virtual_clock()};
    channel<int> ch{"sensor"};
    result<int> r{0};
    auto t = [&]() -> task<> { r = co_await with_timeout(sync(recv(ch)), 3ms); };
    auto h = ex.spawn(t());
    ex.run();
    EXPECT_EQ(r.code(), errc::timeout);
    EXPECT_STREQ(r.err().message().c_str(), "channel 'sensor': timeout");
    EXPECT_EQ(ch.try_send(1).code(), errc::full);  // the offer was withdrawn
}

// The virtual clock jumps to far timers, so it can read above 2^62 ns,
// where now + longest_delay overflows: a timeout(duration::max()) must
// still be the end of time, and an at() before the epoch is due at once.
TEST(timeout, past_2_62_ns_a_max_timeout_is_the_end_of_time) {
    executor ex{test::virtual_clock()};
    std::vector<time_point> woke;
    auto t = [&]() -> task<> {
        co_await sleep_for(1ms);
        co_await sleep_for(duration::max());  // now: 1 ms + 2^62 ns
        for (int i = 0; i < 2; ++i) {
            (void)co_await timeout(duration::max());
            woke.push_back(ex.now());
        }
    };
    auto h = ex.spawn(t());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    std::vector<time_point> want{time_point::max(), time_point::max()};
    EXPECT_EQ(woke, want);
}

TEST(timeout, at_an_instant_before_the_epoch_commits_at_once) {
    executor ex{test::virtual_clock()};
    channel<int> ch{"never"};
    int got = 0;
    std::int64_t t_ms = -1;
    auto t = [&]() -> task<> {
        co_await sleep_for(2ms);
        auto r = co_await choose(recv(ch), wrap(at(time_point{} - 1ms), [] { return -1; }));
        got = r ? *r : 0;
        t_ms = test::ms(ex);
    };
    auto h = ex.spawn(t());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got, -1);
    EXPECT_EQ(t_ms, 2);
}
