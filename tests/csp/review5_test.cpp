// SPDX-License-Identifier: Apache-2.0
// Review 5 of the Concurrent-ML layer (2026-11-27): one event value
// synchronised again and again, as CML programs do (`auto ev = choose(...);
// for (;;) co_await ev;`). `co_await ev` and `sync(ev)` on an event kept
// in a variable did not compile (events were rvalues only, with an error
// about qualifiers); each sync now works on a copy, and must be a fresh
// one: no outcome, offer or timer left over from the one before, and the
// event (a value to send included) unchanged.
#include <weft/csp.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>

#include <string>
#include <vector>

using namespace weft;
using namespace weft::csp;
using namespace std::chrono_literals;

namespace {

frame_pool<4096, 8> review5_frames{"csp_review5"};

std::string text(const error& e) { return e.message().c_str(); }

// Runs a receiver and a sender (coroutine lambdas, which outlive their
// tasks) with frames from this file's pool, until both have finished.
template <class R, class S>
void run_both(executor& ex, R& receiver, S& sender) {
    use_frames s{review5_frames};
    auto a = ex.spawn(receiver());
    auto b = ex.spawn(sender());
    ASSERT_TRUE(a && b);
    EXPECT_EQ(ex.run(), run_outcome::completed);
}

}  // namespace

TEST(csp_review5, one_receive_event_synchronised_again_takes_each_value) {
    executor ex{test::virtual_clock()};
    channel<int> ch{"ch"};
    std::vector<int> got;
    auto receiver = [&]() -> task<> {
        auto ev = recv(ch);
        for (int i = 0; i < 3; ++i) {
            auto r = co_await ev;
            got.push_back(r ? *r : -1);
        }
    };
    auto sender = [&]() -> task<> {
        for (int i = 1; i <= 3; ++i) {
            co_await sleep_for(1ms);
            EXPECT_TRUE(co_await send(ch, i));
        }
    };
    ASSERT_NO_FATAL_FAILURE(run_both(ex, receiver, sender));
    EXPECT_EQ(got, (std::vector<int>{1, 2, 3}));
}

TEST(csp_review5, one_choose_with_a_timeout_synchronised_again_reports_each_sync) {
    executor ex{test::virtual_clock()};
    channel<int> ch{"ch"};
    std::vector<int> got;
    auto receiver = [&]() -> task<> {
        auto ev = choose(wrap(recv(ch), [](int v) { return v; }), wrap(timeout(2ms), [] { return 0; }));
        for (int i = 0; i < 4; ++i) {
            auto r = co_await ev;
            got.push_back(r ? *r : -1);
        }
    };
    auto sender = [&]() -> task<> {
        co_await sleep_for(1ms);
        EXPECT_TRUE(co_await send(ch, 1));   // 1 ms: first sync
        co_await sleep_for(3ms);             // second sync times out at 3 ms
        EXPECT_TRUE(co_await send(ch, 2));   // 4 ms: third sync
    };
    ASSERT_NO_FATAL_FAILURE(run_both(ex, receiver, sender));
    EXPECT_EQ(got, (std::vector<int>{1, 0, 2, 0}));
    EXPECT_EQ(test::ms(ex), 6);
}

TEST(csp_review5, one_bounded_receive_synchronised_again_after_its_timeout_takes_the_value) {
    executor ex{test::virtual_clock()};
    channel<int> ch{"ch"};
    std::vector<std::string> got;
    auto receiver = [&]() -> task<> {
        auto ev = recv(ch);
        for (int i = 0; i < 2; ++i) {
            auto r = co_await with_timeout(sync(ev), 2ms);
            got.push_back(r ? std::to_string(*r) : text(r.err()));
        }
    };
    auto sender = [&]() -> task<> {
        co_await sleep_for(3ms);
        EXPECT_TRUE(co_await send(ch, 5));
    };
    ASSERT_NO_FATAL_FAILURE(run_both(ex, receiver, sender));
    ASSERT_EQ(got.size(), 2u);
    EXPECT_EQ(got[1], "5");
}

TEST(csp_review5, a_send_event_kept_in_a_variable_sends_its_value_each_time) {
    executor ex{test::virtual_clock()};
    channel<std::string> ch{"ch"};
    std::vector<std::string> got;
    auto sender = [&]() -> task<> {
        auto ev = send(ch, std::string("a value long enough to live on the heap"));
        EXPECT_TRUE(co_await ev);
        EXPECT_TRUE(co_await sync(ev));
    };
    auto receiver = [&]() -> task<> {
        for (int i = 0; i < 2; ++i) {
            auto r = co_await recv(ch);
            got.push_back(r ? *r : text(r.err()));
        }
    };
    ASSERT_NO_FATAL_FAILURE(run_both(ex, receiver, sender));
    EXPECT_EQ(got, (std::vector<std::string>{"a value long enough to live on the heap", "a value long enough to live on the heap"}));
}

// Combinators take events kept in variables too (copies; they failed to
// compile), so an event is built from named parts and synced in a loop,
// its parts unchanged and usable on their own.
TEST(csp_review5, combinators_take_events_kept_in_variables_and_leave_them_usable) {
    executor ex{test::virtual_clock()};
    channel<int> a{"a"}, b{"b"};
    std::vector<int> got;
    auto receiver = [&]() -> task<> {
        auto from_a = recv(a);
        auto from_b = wrap(recv(b), [](int v) { return 10 * v; });
        auto quiet = wrap(timeout(5ms), [] { return 0; });
        auto either = choose(from_a, from_b, quiet);
        auto ordered = choose_ordered(from_b, from_a);
        auto early = within(from_a, 0ms, 1ms);
        for (int i = 0; i < 3; ++i) {
            auto r = co_await either;  // a at 1 ms, b at 2 ms, quiet at 7 ms
            got.push_back(r ? *r : -1);
        }
        auto r = co_await ordered;  // a at 8 ms
        got.push_back(r ? *r : -1);
        auto w = co_await early;  // nothing on a by 9 ms
        got.push_back(w ? *w : -int(w.code()));
        auto v = co_await from_b;  // b at 10 ms
        got.push_back(v ? *v : -1);
    };
    auto sender = [&]() -> task<> {
        co_await sleep_for(1ms);
        EXPECT_TRUE(co_await send(a, 1));
        co_await sleep_for(1ms);
        EXPECT_TRUE(co_await send(b, 2));
        co_await sleep_for(6ms);
        EXPECT_TRUE(co_await send(a, 3));
        co_await sleep_for(2ms);
        EXPECT_TRUE(co_await send(b, 4));
    };
    ASSERT_NO_FATAL_FAILURE(run_both(ex, receiver, sender));
    EXPECT_EQ(got, (std::vector<int>{1, 20, 0, 3, -int(errc::timeout), 40}));
    EXPECT_EQ(test::ms(ex), 10);
}
