// SPDX-License-Identifier: Apache-2.0
#include <weft/core/sleep.hpp>
#include <weft/core/task.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>

#include <random>
#include <string>
#include <vector>

using namespace weft;

TEST(sleep, virtual_clock_advances_only_to_next_timer) {
    executor ex{test::virtual_clock()};
    std::vector<std::pair<char, std::int64_t>> log;
    auto sleeper = [&](char name, int period_ms, int n) -> task<> {
        for (int i = 0; i < n; ++i) {
            co_await sleep_for(std::chrono::milliseconds(period_ms));
            log.emplace_back(name, test::ms(ex));
        }
    };
    auto a = ex.spawn(sleeper('a', 3, 3));
    auto b = ex.spawn(sleeper('b', 5, 2));
    ASSERT_TRUE(a && b);
    ex.run();
    std::vector<std::pair<char, std::int64_t>> want{{'a', 3}, {'b', 5}, {'a', 6}, {'a', 9}, {'b', 10}};
    EXPECT_EQ(log, want);
    EXPECT_EQ(test::ms(ex), 10);
}

TEST(sleep, equal_deadlines_fire_in_arming_order) {
    executor ex{test::virtual_clock()};
    std::string log;
    auto s = [&](char c) -> task<> {
        co_await sleep_until(from_ns(1'000'000));
        log += c;
    };
    auto a = ex.spawn(s('a'));
    auto b = ex.spawn(s('b'));
    auto c = ex.spawn(s('c'));
    ASSERT_TRUE(a && b && c);
    ex.run();
    EXPECT_EQ(log, "abc");
}

TEST(sleep, deadline_in_the_past_does_not_suspend) {
    executor ex{test::virtual_clock()};
    bool done = false;
    auto t = [&]() -> task<> {
        co_await sleep_for(1ms);
        auto s = co_await sleep_until(from_ns(0));
        done = bool(s);
    };
    auto h = ex.spawn(t());
    ASSERT_TRUE(h);
    ex.run();
    EXPECT_TRUE(done);
}

TEST(sleep, many_random_timers_fire_in_deadline_order) {
    // Exercises the pairing heap with inserts and erases interleaved.
    static frame_pool<512, 600> pool{"timers"};
    use_frames scope{pool};
    executor ex{test::virtual_clock()};
    std::mt19937 rng(42);
    std::vector<std::int64_t> fired;
    auto t = [&](int d) -> task<> {
        if (co_await sleep_for(std::chrono::microseconds(d))) fired.push_back(to_ns(ex.now()));
    };
    std::vector<join_handle<void>> hs;
    for (int i = 0; i < 500; ++i) {
        auto h = ex.spawn(t(int(rng() % 10'000)));
        ASSERT_TRUE(h);
        hs.push_back(std::move(*h));
    }
    auto canceller = [&]() -> task<> {
        co_await sleep_for(1us);  // every sleeper is armed by now
        for (int i = 0; i < 500; i += 3) hs[std::size_t(i)].cancel();  // erase a third
    };
    auto c = ex.spawn(canceller());
    ASSERT_TRUE(c);
    ex.run();
    EXPECT_EQ(fired.size(), 500u - 167u);
    EXPECT_TRUE(std::is_sorted(fired.begin(), fired.end()));
}

TEST(sleep, real_clock_deadline_already_passed_needs_no_wait) {
    // Unit tests never sleep on the wall clock: a real-clock sleep whose
    // deadline has passed must complete without waiting in the port.
    executor ex{{"real", clock_mode::real}};
    bool done = false;
    auto t = [&]() -> task<> {
        co_await sleep_until(ex.now() - 1ms);
        done = true;
    };
    auto h = ex.spawn(t());
    ASSERT_TRUE(h);
    ex.run();
    EXPECT_TRUE(done);
}

TEST(sleep, a_duration_max_away_is_the_end_of_time_not_the_past) {
    // After time 0, now + duration::max() overflows: it must saturate.
    // (The virtual clock, with nothing else to do, jumps to that timer.)
    executor ex{test::virtual_clock()};
    time_point woke{};
    auto body = [&]() -> task<> {
        co_await sleep_for(1ms);
        co_await sleep_for(duration::max());
        woke = ex.now();
    };
    auto h = ex.spawn(body());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(woke, time_point{1ms + longest_delay});  // 146 years on, not at 1 ms
    EXPECT_EQ(later(INT64_MAX - 5, 10), INT64_MAX);
    EXPECT_EQ(later(10, -4), 6);
}

TEST(sleep, a_duration_max_sleep_past_2_62_ns_is_the_end_of_time_not_now) {
    // The virtual clock jumps to far timers, so it can read above 2^62 ns,
    // where now + longest_delay overflows: the next sleep of duration::max()
    // must still wait until the end of time, not return at once.
    executor ex{test::virtual_clock()};
    std::vector<time_point> woke;
    auto body = [&]() -> task<> {
        co_await sleep_for(1ms);
        for (int i = 0; i < 2; ++i) {
            co_await sleep_for(duration::max());
            woke.push_back(ex.now());
        }
        co_await sleep_for(1ms);  // at the end of time: due at once
        woke.push_back(ex.now());
    };
    auto h = ex.spawn(body());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    std::vector<time_point> want{time_point{1ms + longest_delay}, time_point::max(), time_point::max()};
    EXPECT_EQ(woke, want);
}
