// SPDX-License-Identifier: Apache-2.0
// Bad input to the core (audit of the rule "bad input gets a clear error
// and loses nothing"): each case checks the message (object name and
// limit), that the failed operation changed nothing, and that later
// operations on the same objects still work.
#include <weft/core.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>

#include <string>
#include <vector>

using namespace weft;

namespace {
// Out of line, so that Clang cannot elide the frame into the caller
// (CoroElide): these tests count pool slots.
[[gnu::noinline]] task<int> job(int x) { co_return x + 1; }
}  // namespace

// A refused spawn gives the task's frame back at once (the task object is
// the caller's temporary) and leaves the executor as it was: the same
// one-slot pool then serves a spawn at the highest valid priority.
TEST(bad_input, a_priority_above_the_maximum_frees_the_frame_and_changes_nothing) {
    static frame_pool<512, 1> one{"prio_one"};
    executor ex{test::virtual_clock("ctl")};
    {
        use_frames scope{one};
        auto bad = ex.spawn(job(1), priority(max_priority + 1));
        ASSERT_FALSE(bad);
        EXPECT_EQ(bad.code(), errc::invalid);
        EXPECT_EQ(bad.err().message().c_str(),
                  "executor 'ctl': priority above max_priority (limit " + std::to_string(max_priority) + ")");
    }
    EXPECT_EQ(one.in_use(), 0u);
    EXPECT_EQ(ex.live_tasks(), 0u);
    result<join_handle<int>> good = errc::invalid;
    {
        use_frames scope{one};
        good = ex.spawn(job(2), max_priority);
    }
    ASSERT_TRUE(good);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_TRUE(good->done());
}

// A priority computed at run time that does not fit the priority byte is
// refused, not narrowed: 257 became priority 1 and -1 became 255.
TEST(bad_input, a_priority_beyond_the_priority_byte_is_refused_not_narrowed) {
    executor ex{test::virtual_clock("ctl")};
    const std::string refused =
        "executor 'ctl': priority above max_priority (limit " + std::to_string(max_priority) + ")";
    volatile int wide[] = {257, 256 + int(max_priority), -1, 1 << 20};
    for (int p : wide) {
        auto h = ex.spawn(job(1), p);
        ASSERT_FALSE(h) << p;
        EXPECT_TRUE(test::failed_with(h, errc::invalid, refused.c_str())) << p;
    }
    EXPECT_EQ(ex.live_tasks(), 0u);
}

// A second completion is refused and the first value is kept, not
// overwritten; once it is consumed the operation takes completions again.
TEST(bad_input, a_refused_second_completion_keeps_the_first_value) {
    executor ex{test::virtual_clock()};
    split_phase<int> op{"adc"};
    ASSERT_TRUE(bool(op.complete(1)));
    status refused = op.complete(2);
    ASSERT_FALSE(refused);
    EXPECT_STREQ(refused.err().message().c_str(),
                 "split_phase 'adc': completed twice before being awaited (limit 1)");
    int first = 0, second = 0;
    auto t = [&]() -> task<> {
        auto a = co_await op;
        first = a ? *a : -1;
        EXPECT_TRUE(bool(op.complete(3)));
        auto b = co_await op;
        second = b ? *b : -1;
    };
    auto h = ex.spawn(t());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(first, 1);
    EXPECT_EQ(second, 3);
}

// Joining a handle that holds no task (default-built, or moved from) ends
// at once with `invalid`, and the joining task goes on normally.
TEST(bad_input, joining_an_empty_handle_is_refused_and_the_task_goes_on) {
    executor ex{test::virtual_clock()};
    join_handle<int> none;
    auto moved = ex.spawn(job(4));
    ASSERT_TRUE(moved);
    join_handle<int> owner = std::move(*moved);
    std::string empty_msg, moved_msg;
    errc empty_code = errc::ok;
    int value = 0;
    auto t = [&]() -> task<> {
        auto a = co_await none.join();
        empty_code = a.code();
        empty_msg = a.err().message().c_str();
        auto b = co_await moved->join();
        moved_msg = b.err().message().c_str();
        auto c = co_await owner.join();  // the task itself is still joinable
        value = c ? *c : -1;
    };
    auto h = ex.spawn(t());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(empty_code, errc::invalid);
    EXPECT_EQ(empty_msg, "join_handle '(empty)': nothing to join");
    EXPECT_EQ(moved_msg, "join_handle '(empty)': nothing to join");
    EXPECT_EQ(value, 5);
}

// An empty task (default-built or moved from) is refused the same way by
// everything that takes one: spawn, co_await, when_all, when_any and
// with_timeout. Each gave a result with neither a value nor an error
// code (message "ok"), and when_any let the empty child win.
TEST(bad_input, an_empty_task_is_refused_by_name_wherever_it_is_given) {
    executor ex{test::virtual_clock()};
    const std::string refused = "task '(empty)': nothing to run";
    task<int> t = job(1);
    task<int> kept = std::move(t);
    auto spawned = ex.spawn(std::move(t));
    ASSERT_FALSE(spawned);
    EXPECT_EQ(spawned.code(), errc::invalid);
    EXPECT_EQ(std::string(spawned.err().message().c_str()), refused);
    EXPECT_EQ(ex.live_tasks(), 0u);
    // One small task per path: a frame holding them all outgrows the pools.
    std::vector<std::string> got;
    auto note = [&](const error& e) { got.push_back(e.message().c_str()); };
    int all_value = 0, kept_value = 0;
    std::size_t any_index = 9;
    auto awaits = [&]() -> task<> {
        task<> none;
        note((co_await std::move(none)).err());
        task<int> none_int;
        note((co_await std::move(none_int)).err());
    };
    auto all = [&]() -> task<> {
        task<int> none;
        auto [c, d] = co_await when_all(std::move(none), job(2));
        note(c.err());
        all_value = d ? *d : -1;
    };
    auto bounded = [&]() -> task<> {
        task<int> none;
        note((co_await with_timeout(std::move(none), 5ms)).err());
    };
    auto any = [&]() -> task<> {
        task<int> none;
        auto f = co_await when_any(job(3), std::move(none));
        any_index = f.index;
        if (f.index == 1 && std::get<1>(f.values)) note(std::get<1>(f.values)->err());
    };
    auto moved_to = [&]() -> task<> {
        result<int> k = co_await std::move(kept);  // the task it was moved to still runs
        kept_value = k ? *k : -1;
    };
    auto h1 = ex.spawn(awaits());
    auto h2 = ex.spawn(all());
    auto h3 = ex.spawn(bounded());
    auto h4 = ex.spawn(any());
    auto h5 = ex.spawn(moved_to());
    ASSERT_TRUE(h1 && h2 && h3 && h4 && h5);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    // The empty child of when_any "ends" first, with its error: it wins.
    EXPECT_EQ(any_index, 1u);
    EXPECT_EQ(got, std::vector<std::string>(5, refused));
    EXPECT_EQ(all_value, 3);
    EXPECT_EQ(kept_value, 2);
}

// Unlocking a mutex nobody holds is a programming error: the program
// stops, and the message names the mutex.
TEST(bad_input, unlocking_a_free_mutex_stops_the_program_naming_it) {
    auto unlock_free = [] {
        mutex m{"spi_bus"};
        m.unlock();
    };
    EXPECT_DEATH(unlock_free(), "mutex 'spi_bus': unlock\\(\\) of a mutex that is not locked");
}

// An external_end() without its external_begin() stops the program
// naming the executor: the count wrapped, and a virtual-clock run() whose
// tasks all wait then slept for ever instead of reporting `stalled`.
TEST(bad_input, an_unbalanced_external_end_stops_the_program_naming_the_executor) {
    auto unbalanced = [] {
        executor ex{test::virtual_clock("sensors")};
        ex.external_begin();
        ex.external_end();
        ex.external_end();
    };
    EXPECT_DEATH(unbalanced(), "executor 'sensors': external_end\\(\\) without a matching external_begin\\(\\)");
}

// use_frames scopes that end out of order stop the program; the message
// names both pools, so that the scope at fault can be found.
TEST(bad_input, use_frames_scopes_out_of_order_name_both_pools) {
    static frame_pool<256, 1> outer{"outer_pool"}, inner{"inner_pool"};
    auto out_of_order = [] {
        auto* a = new use_frames{outer};
        use_frames b{inner};
        delete a;
    };
    EXPECT_DEATH(out_of_order(), "use_frames scopes ended out of order.*'outer_pool'.*'inner_pool'");
}
