// SPDX-License-Identifier: Apache-2.0
#include <weft/csp/recv.hpp>
#include <weft/csp/timeout.hpp>

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
