// SPDX-License-Identifier: Apache-2.0
// mutex::scoped_lock(): the lock as a guard that unlocks at scope end; an
// error (timeout, cancellation, a would-be deadlock) holds nothing, so the
// guard-less result releases nobody's lock.
#include <weft/core/mutex.hpp>
#include <weft/core/sleep.hpp>
#include <weft/core/task.hpp>
#include <weft/core/timeout.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>

#include <optional>
#include <string>

using namespace weft;
using namespace std::chrono_literals;

namespace {

task<> hold_for(mutex& m, duration d, std::string& log, char c) {
    auto g = co_await m.scoped_lock();
    if (!g) co_return;
    log += c;
    co_await sleep_for(d);
    log += char(c - 'a' + 'A');  // still holding it here
}

task<> lock_after(executor& ex, mutex& m, duration after, std::string& log, char c, time_point& got_at) {
    co_await sleep_for(after);
    auto g = co_await m.scoped_lock();
    if (!g) co_return;
    got_at = ex.now();
    log += c;
}

}  // namespace

TEST(scoped_lock, holds_the_lock_until_the_scope_ends_then_hands_it_over) {
    executor ex{test::virtual_clock()};
    mutex m{"bus"};
    std::string log;
    time_point b_at{};
    auto a = ex.spawn(hold_for(m, 10ms, log, 'a'));
    auto b = ex.spawn(lock_after(ex, m, 1ms, log, 'b', b_at));
    ASSERT_TRUE(a && b);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(log, "aAb");
    EXPECT_EQ(b_at, time_point{} + 10ms);
    EXPECT_FALSE(m.locked());
}

TEST(scoped_lock, a_timed_out_lock_holds_nothing_and_leaves_the_owner_its_lock) {
    executor ex{test::virtual_clock()};
    mutex m{"bus"};
    std::string log;
    bool still_held_by_a = false;
    std::string why;
    auto a = ex.spawn(hold_for(m, 10ms, log, 'a'));
    auto b = ex.spawn([](mutex& m, bool& held, std::string& why) -> task<> {
        auto g = co_await with_timeout(m.scoped_lock(), 2ms);
        if (g) co_return;
        why = g.err().message().c_str();
        // b's result held no guard: the lock is still a's, unreleased.
        held = m.locked() && m.owner() != nullptr;
    }(m, still_held_by_a, why));
    ASSERT_TRUE(a && b);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_TRUE(still_held_by_a);
    EXPECT_NE(why.find("mutex 'bus'"), std::string::npos) << why;
    EXPECT_EQ(log, "aA");
    EXPECT_FALSE(m.locked());
}

TEST(scoped_lock, locking_twice_is_refused_as_a_deadlock_and_the_first_guard_still_unlocks) {
    executor ex{test::virtual_clock()};
    mutex m{"bus"};
    std::string why;
    bool held_after = false;
    auto t = ex.spawn([](mutex& m, std::string& why, bool& held_after) -> task<> {
        auto first = co_await m.scoped_lock();
        if (!first) co_return;
        auto second = co_await m.scoped_lock();
        if (second) co_return;
        why = second.err().message().c_str();
        held_after = m.locked();
    }(m, why, held_after));
    ASSERT_TRUE(t);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_NE(why.find("mutex 'bus': would deadlock"), std::string::npos) << why;
    EXPECT_TRUE(held_after);
    EXPECT_FALSE(m.locked());
}

TEST(scoped_lock, a_guard_moved_out_keeps_the_lock_past_the_awaiting_scope) {
    executor ex{test::virtual_clock()};
    mutex m{"bus"};
    bool held_in_between = false, free_after = false;
    auto t = ex.spawn([](mutex& m, bool& between, bool& after) -> task<> {
        {
            std::optional<lock_guard> kept;
            {
                auto g = co_await m.scoped_lock();
                if (!g) co_return;
                kept.emplace(std::move(*g));
            }
            between = m.locked();
        }
        after = !m.locked();
    }(m, held_in_between, free_after));
    ASSERT_TRUE(t);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_TRUE(held_in_between);
    EXPECT_TRUE(free_after);
}
