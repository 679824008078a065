// SPDX-License-Identifier: Apache-2.0
#include <weft/csp/choose.hpp>
#include <weft/csp/recv.hpp>
#include <weft/csp/send.hpp>
#include <weft/csp/timeout.hpp>
#include <weft/csp/wrap.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>

using namespace weft;
using namespace weft::csp;

TEST(choose, exactly_one_branch_commits_and_others_are_withdrawn) {
    executor ex{test::virtual_clock()};
    channel<int> a{"a"}, b{"b"};
    int which = -1;
    auto chooser = [&]() -> task<> {
        auto r = co_await choose(wrap(recv(a), [](int v) { return v; }),
                                 wrap(recv(b), [](int v) { return 100 + v; }));
        which = *r;
    };
    auto sender = [&]() -> task<> {
        (void)co_await send(b, 1);
        // The chooser's offer on `a` must be gone: nobody receives now.
        auto r = a.try_send(2);
        EXPECT_EQ(r.code(), errc::full);
    };
    auto c = ex.spawn(chooser());
    auto s = ex.spawn(sender());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(which, 101);
}

TEST(choose, random_start_does_not_starve_a_ready_branch) {
    executor ex{test::virtual_clock()};
    channel<int, 4> a{"a"}, b{"b"};
    int from_a = 0, from_b = 0;
    auto t = [&]() -> task<> {
        for (int i = 0; i < 100; ++i) {
            if (a.size() < 2) (void)a.try_send(0);
            if (b.size() < 2) (void)b.try_send(1);
            auto r = co_await choose(recv(a), recv(b));
            (*r == 0 ? from_a : from_b)++;
        }
    };
    auto h = ex.spawn(t());
    ex.run();
    // Fair coin flips from a fixed seed: near 50/50, never starved.
    EXPECT_GT(from_a, 30);
    EXPECT_GT(from_b, 30);
    EXPECT_EQ(from_a + from_b, 100);
}

// Two 2-way chooses per iteration: a start index that merely counted
// polls gave each of them the same start every time (100/0).
TEST(choose, alternating_chooses_do_not_starve_a_ready_branch) {
    executor ex{test::virtual_clock()};
    channel<int, 4> a{"a"}, b{"b"}, x{"x"}, y{"y"};
    int from_a = 0, from_b = 0, from_x = 0, from_y = 0;
    auto t = [&]() -> task<> {
        for (int i = 0; i < 200; ++i) {
            for (auto* ch : {&a, &b, &x, &y})
                if (ch->size() < 2) (void)ch->try_send(ch == &a || ch == &x ? 0 : 1);
            auto r = co_await choose(recv(a), recv(b));
            (*r == 0 ? from_a : from_b)++;
            auto q = co_await choose(recv(x), recv(y));
            (*q == 0 ? from_x : from_y)++;
        }
    };
    auto h = ex.spawn(t());
    ex.run();
    // Fair coin flips from a fixed seed: far from 0/200 either way.
    EXPECT_GT(from_a, 70);
    EXPECT_GT(from_b, 70);
    EXPECT_GT(from_x, 70);
    EXPECT_GT(from_y, 70);
}

TEST(choose, ordered_prefers_the_first_ready_branch) {
    executor ex{test::virtual_clock()};
    channel<int, 4> a{"a"}, b{"b"};
    int from_a = 0;
    auto t = [&]() -> task<> {
        for (int i = 0; i < 10; ++i) {
            (void)a.try_send(0);
            (void)b.try_send(1);
            if (*co_await choose_ordered(recv(a), recv(b)) == 0) ++from_a;
            (void)b.try_recv();
        }
    };
    auto h = ex.spawn(t());
    ex.run();
    EXPECT_EQ(from_a, 10);
}

TEST(choose, timeout_branch_commits_when_no_partner_comes) {
    executor ex{test::virtual_clock()};
    channel<int> a{"a"};
    std::int64_t at_ms = -1;
    int got = 0;
    auto t = [&]() -> task<> {
        auto r = co_await choose(recv(a), wrap(timeout(5ms), [] { return -1; }));
        got = *r;
        at_ms = test::ms(ex);
        // withdrawn: a later sender finds no receiver
        EXPECT_EQ(a.try_send(3).code(), errc::full);
    };
    auto h = ex.spawn(t());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got, -1);
    EXPECT_EQ(at_ms, 5);
}

TEST(choose, send_and_recv_branches_mix) {
    executor ex{test::virtual_clock()};
    channel<int> in{"in"}, out{"out"};
    int got = 0;
    auto chooser = [&]() -> task<> {
        auto r = co_await choose(wrap(recv(in), [](int) { return 1; }),
                                 wrap(send(out, 9), [] { return 2; }));
        EXPECT_EQ(*r, 2);
    };
    auto reader = [&]() -> task<> { got = *co_await recv(out); };
    auto c = ex.spawn(chooser());
    auto r = ex.spawn(reader());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got, 9);
}

TEST(choose, nested_choose_commits_the_inner_leaf) {
    executor ex{test::virtual_clock()};
    channel<int, 1> a{"a"}, b{"b"}, c{"c"};
    (void)c.try_send(3);
    int got = 0;
    auto t = [&]() -> task<> {
        got = *co_await choose(recv(a), wrap(choose(recv(b), recv(c)), [](int v) { return v * 10; }));
    };
    auto h = ex.spawn(t());
    ex.run();
    EXPECT_EQ(got, 30);
}

TEST(choose, closed_channel_commits_its_branch_with_the_error) {
    executor ex{test::virtual_clock()};
    channel<int> a{"a"}, b{"b"};
    errc code = errc::ok;
    auto t = [&]() -> task<> { code = (co_await choose(recv(a), recv(b))).code(); };
    auto closer = [&]() -> task<> { b.close(); co_return; };
    auto h = ex.spawn(t());
    auto k = ex.spawn(closer());
    ex.run();
    EXPECT_EQ(code, errc::closed);
}
