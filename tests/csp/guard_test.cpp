// SPDX-License-Identifier: Apache-2.0
#include <weft/csp/guard.hpp>
#include <weft/csp/recv.hpp>
#include <weft/csp/timeout.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>

using namespace weft;
using namespace weft::csp;

TEST(guard, builds_the_event_when_the_sync_starts) {
    executor ex{test::virtual_clock()};
    channel<int, 1> a{"a"}, b{"b"};
    (void)b.try_send(2);
    bool use_b = false;
    int calls = 0;
    int got = 0;
    auto t = [&]() -> task<> {
        auto ev = guard([&] { ++calls; return recv(use_b ? b : a); });
        use_b = true;  // decided at sync time, not when the event was made
        EXPECT_EQ(calls, 0);
        got = *co_await std::move(ev);
    };
    auto h = ex.spawn(t());
    ex.run();
    EXPECT_EQ(calls, 1);
    EXPECT_EQ(got, 2);
}

TEST(guard, time_event_from_guard_measures_from_sync) {
    executor ex{test::virtual_clock()};
    std::int64_t done = 0;
    auto t = [&]() -> task<> {
        co_await weft::sleep_for(3ms);
        (void)co_await guard([] { return timeout(2ms); });
        done = test::ms(ex);
    };
    auto h = ex.spawn(t());
    ex.run();
    EXPECT_EQ(done, 5);
}
