// SPDX-License-Identifier: Apache-2.0
#include <weft/csp/recv.hpp>
#include <weft/csp/send.hpp>
#include <weft/csp/wrap.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>

using namespace weft;
using namespace weft::csp;

TEST(wrap, applies_function_after_sync) {
    executor ex{test::virtual_clock()};
    channel<int, 1> ch{"w"};
    (void)ch.try_send(20);
    int got = 0;
    auto t = [&]() -> task<> { got = *co_await wrap(recv(ch), [](int v) { return v + 1; }); };
    auto h = ex.spawn(t());
    ex.run();
    EXPECT_EQ(got, 21);
}

TEST(wrap, errors_pass_through_without_calling_f) {
    executor ex{test::virtual_clock()};
    channel<int, 1> ch{"w"};
    ch.close();
    bool called = false;
    errc code = errc::ok;
    auto t = [&]() -> task<> {
        code = (co_await wrap(recv(ch), [&](int) { called = true; })).code();
    };
    auto h = ex.spawn(t());
    ex.run();
    EXPECT_FALSE(called);
    EXPECT_EQ(code, errc::closed);
}

TEST(wrap, function_returning_result_is_flattened) {
    executor ex{test::virtual_clock()};
    channel<int, 1> ch{"w"};
    (void)ch.try_send(-1);
    errc code = errc::ok;
    auto t = [&]() -> task<> {
        result<int> r = co_await wrap(recv(ch), [](int v) -> result<int> {
            if (v < 0) return error{errc::invalid, "sensor", "t", 0, "negative"};
            return v;
        });
        code = r.code();
    };
    auto h = ex.spawn(t());
    ex.run();
    EXPECT_EQ(code, errc::invalid);
}

TEST(wrap, send_event_wrap_takes_no_argument) {
    executor ex{test::virtual_clock()};
    channel<int, 1> ch{"w"};
    int got = 0;
    auto t = [&]() -> task<> { got = *co_await wrap(send(ch, 1), [] { return 5; }); };
    auto h = ex.spawn(t());
    ex.run();
    EXPECT_EQ(got, 5);
}
