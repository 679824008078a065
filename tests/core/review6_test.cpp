// SPDX-License-Identifier: Apache-2.0
// Review 6: joins refused as cycles, joins that follow or lose their
// handle, joins under bounds and groups; error texts with odd names;
// nested generators adopted part-way, empty, failing and abandoned.
#include <weft/core/cancel.hpp>
#include <weft/core/generator.hpp>
#include <weft/core/mutex.hpp>
#include <weft/core/sleep.hpp>
#include <weft/core/task.hpp>
#include <weft/core/timeout.hpp>
#include <weft/core/when_all.hpp>
#include <weft/core/when_any.hpp>
#include <weft/core/yield.hpp>

#include <gtest/gtest.h>
#include <support/generators.hpp>
#include <support/weft_test.hpp>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

using namespace weft;
using namespace std::chrono_literals;
using test::chain;
using test::iota;
using test::text;

namespace {

task<int> value_after(duration d, int v) {
    co_await sleep_for(d);
    co_return v;
}

}  // namespace

// ---------------------------------------------------------------- joins

// A bounded join whose handle is dropped while it waits ends with
// `invalid` at once, not with the bound's timeout later; the task runs on.
TEST(review6, a_bounded_join_whose_handle_is_dropped_ends_invalid_at_once) {
    executor ex{test::virtual_clock()};
    std::optional<join_handle<int>> h;
    status got;
    std::int64_t got_at = -1;
    bool worker_done = false;
    auto worker = [&]() -> task<int> {
        co_await sleep_for(5ms);
        worker_done = true;
        co_return 1;
    };
    auto w = ex.spawn(worker());
    ASSERT_TRUE(w);
    h.emplace(std::move(*w));
    auto joiner = [&]() -> task<> {
        auto r = co_await with_timeout(h->join(), 10ms);
        got = r ? status{} : status{r.err()};
        got_at = test::ms(ex);
    };
    auto dropper = [&]() -> task<> {
        co_await sleep_for(1ms);
        h.reset();
    };
    auto j = ex.spawn(joiner());
    auto d = ex.spawn(dropper());
    ASSERT_TRUE(j && d);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(text(got), "join_handle 'join': detached while being joined");
    EXPECT_EQ(got_at, 1);
    EXPECT_TRUE(worker_done);
}

// A join raced in when_any against a shorter sleep loses and is
// cancelled; a later join of the same handle still gets the value, and
// a second joiner meanwhile is not told `busy` by the cancelled one.
TEST(review6, a_join_that_loses_a_when_any_leaves_the_handle_joinable) {
    executor ex{test::virtual_clock()};
    std::optional<join_handle<int>> h;
    std::size_t index = 99;
    int later = 0;
    auto w = ex.spawn(value_after(5ms, 42));
    ASSERT_TRUE(w);
    h.emplace(std::move(*w));
    auto join_task = [&]() -> task<int> {
        auto r = co_await h->join();
        co_return r ? *r : -1;
    };
    auto joiner = [&]() -> task<> {
        auto r = co_await when_any(join_task(), value_after(1ms, 7));
        index = r.index;
        auto v = co_await h->join();
        later = v ? *v : -1;
    };
    auto j = ex.spawn(joiner());
    ASSERT_TRUE(j);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(index, 1u);
    EXPECT_EQ(later, 42);
}

// T waits in when_all for a child that joins X; X joining T closes the
// cycle X -> T -> child -> X and is refused; the rest ends normally.
TEST(review6, a_join_of_a_task_whose_when_all_child_joins_the_joiner_is_refused) {
    executor ex{test::virtual_clock()};
    std::optional<join_handle<int>> t, x;
    status x_got;
    int t_got = 0;
    auto child = [&]() -> task<int> {
        auto r = co_await x->join();
        co_return r ? *r + 1 : -1;
    };
    auto t_body = [&]() -> task<int> {
        auto [a] = co_await when_all(child());
        t_got = a ? *a : -1;
        co_return 5;
    };
    auto x_body = [&]() -> task<int> {
        co_await sleep_for(1ms);
        auto r = co_await t->join();
        x_got = r ? status{} : status{r.err()};
        co_return 10;
    };
    auto tt = ex.spawn(t_body());
    auto xx = ex.spawn(x_body());
    ASSERT_TRUE(tt && xx);
    t.emplace(std::move(*tt));
    x.emplace(std::move(*xx));
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(x_got.code(), errc::cycle);
    EXPECT_EQ(t_got, 11);
}

// Not a cycle: T waits in when_all for a child that sleeps; X joins T and
// gets T's value (a chain through a group to a task that waits for
// nothing the joiner holds).
TEST(review6, a_join_of_a_task_waiting_in_when_all_is_not_a_cycle) {
    executor ex{test::virtual_clock()};
    std::optional<join_handle<int>> t;
    result<int> got = errc::invalid;
    auto t_body = [&]() -> task<int> {
        auto [a, b] = co_await when_all(value_after(3ms, 1), value_after(2ms, 2));
        co_return *a + *b;
    };
    auto tt = ex.spawn(t_body());
    ASSERT_TRUE(tt);
    t.emplace(std::move(*tt));
    mutex m{"m"};  // held by the joiner: no edge to it from T's children
    auto x_body = [&]() -> task<> {
        EXPECT_TRUE(co_await m.lock());
        got = co_await t->join();
        m.unlock();
    };
    auto xx = ex.spawn(x_body());
    ASSERT_TRUE(xx);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    ASSERT_TRUE(got) << text(got);
    EXPECT_EQ(*got, 3);
}

// A handle moved while a bounded join waits: the join follows it and gets
// the value from the new handle before its bound.
TEST(review6, a_bounded_join_follows_its_moved_handle) {
    executor ex{test::virtual_clock()};
    std::optional<join_handle<int>> first, second;
    result<int> got = errc::invalid;
    auto w = ex.spawn(value_after(3ms, 9));
    ASSERT_TRUE(w);
    first.emplace(std::move(*w));
    auto joiner = [&]() -> task<> { got = co_await with_timeout(first->join(), 10ms); };
    auto mover = [&]() -> task<> {
        co_await sleep_for(1ms);
        second.emplace(std::move(*first));
        first.reset();
    };
    auto j = ex.spawn(joiner());
    auto m = ex.spawn(mover());
    ASSERT_TRUE(j && m);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    ASSERT_TRUE(got) << text(got);
    EXPECT_EQ(*got, 9);
}

// P holds m and waits in when_all(C); C joins T; T locks m: T's lock would
// close T -> P -> C -> T and is refused.
TEST(review6, a_lock_held_by_a_parent_whose_child_joins_the_locker_is_refused) {
    executor ex{test::virtual_clock()};
    mutex m{"bus"};
    std::optional<join_handle<void>> t;
    status t_got, c_got;
    auto child = [&]() -> task<> { c_got = co_await t->join(); };
    auto p_body = [&]() -> task<> {
        EXPECT_TRUE(co_await m.lock());
        (void)co_await when_all(child());
        m.unlock();
    };
    auto t_body = [&]() -> task<> {
        co_await sleep_for(1ms);
        t_got = co_await m.lock();
        if (t_got) m.unlock();
    };
    auto pp = ex.spawn(p_body());
    auto tt = ex.spawn(t_body());
    ASSERT_TRUE(pp && tt);
    t.emplace(std::move(*tt));
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(text(t_got), "mutex 'bus': would deadlock (held by a task that waits for this one)");
    EXPECT_TRUE(c_got) << text(c_got);
    EXPECT_FALSE(m.locked());
}

// ---------------------------------------------------------------- errors

// Names longer than the 128-byte text are cut, never overrun, and the
// text stays terminated.
TEST(review6, an_error_with_very_long_names_is_cut_to_its_buffer) {
    std::string kind(200, 'k'), object(300, 'o'), detail(400, 'd');
    error e{errc::full, kind.c_str(), object.c_str(), 123456789, detail.c_str()};
    auto t = e.message();
    EXPECT_EQ(std::strlen(t.c_str()), sizeof t.text - 1);
    EXPECT_EQ(std::string(t.c_str()), std::string(127, 'k'));
    error only_limit{errc::full, "", "", 0, nullptr};
    EXPECT_STREQ(only_limit.message().c_str(), "full");
    error no_kind{errc::closed, nullptr, "rx", 0, "gone"};
    EXPECT_STREQ(no_kind.message().c_str(), "'rx': gone");
    error kind_only{errc::closed, "channel", nullptr, 3, nullptr};
    EXPECT_STREQ(kind_only.message().c_str(), "channel: closed (limit 3)");
}

// A mutex built with nullptr for its name, held by a task that ends: the
// fatal report names it as an empty name, as error messages do
// (bounded_text::put reads a null string as empty; the report used to die
// of SIGSEGV with no message).
TEST(review6, a_task_ending_with_a_mutex_named_nullptr_is_reported_not_a_crash) {
    auto ends_holding = [] {
        executor ex{test::virtual_clock()};
        mutex m{nullptr};
        auto body = [&]() -> task<> { (void)co_await m.lock(); };
        auto h = ex.spawn(body());
        (void)ex.run();
    };
    EXPECT_DEATH(ends_holding(), "weft: a task ended holding mutex '' \\(unlock it first; lock_guard does\\)");
}

// ---------------------------------------------------------------- generators

// A generator its caller began, three levels deep, then adopted by
// another: the rest comes out once and in order, and every frame is back.
TEST(review6, an_adopted_generator_begun_inside_its_nesting_yields_the_rest) {
    static frame_pool<1024, 12> pool{"adopted"};
    use_frames scope{pool};
    std::vector<int> got;
    {
        auto inner = chain(2, 3);  // 200 100 0 0 1 2 1 101 201
        auto it = inner.begin();
        for (int k = 0; k < 4; ++k) ++it;  // at iota's second element, 1
        auto outer = [](generator<int> g) -> generator<int> {
            co_yield -1;
            co_yield elements_of(std::move(g));
            co_yield -2;
        };
        for (int v : outer(std::move(inner))) got.push_back(v);
    }
    EXPECT_EQ(got, (std::vector<int>{-1, 2, 1, 101, 201, -2}));
    EXPECT_EQ(pool.in_use(), 0u);
}

// The same, abandoned inside the adopted chain: every frame goes back.
TEST(review6, abandoning_a_walk_inside_an_adopted_generator_frees_every_frame) {
    static frame_pool<1024, 12> pool{"adopted_abandoned"};
    use_frames scope{pool};
    {
        auto inner = chain(2, 3);
        auto it = inner.begin();
        ++it;
        ++it;  // inside chain(0)
        auto outer = [](generator<int> g) -> generator<int> {
            co_yield elements_of(std::move(g));
            co_yield -2;
        };
        auto o = outer(std::move(inner));
        int seen = 0;
        for (int v : o) {
            (void)v;
            if (++seen == 3) break;  // inside iota again
        }
        EXPECT_GT(pool.in_use(), 3u);
    }
    EXPECT_EQ(pool.in_use(), 0u);
}

// A nested frame that fails inside an adopted generator's own nesting is
// reported by the root that adopted it.
TEST(review6, a_nested_failure_inside_an_adopted_generator_reaches_the_new_root) {
    static frame_pool<1024, 3> three{"three_frames"};
    use_frames scope{three};
    auto inner_body = []() -> generator<int> {
        co_yield 1;
        status s = co_yield elements_of(iota(2));  // fourth frame: none left
        co_yield s ? 2 : -99;
    };
    auto outer = [](generator<int> g) -> generator<int> {
        co_yield elements_of(std::move(g));
    };
    auto inner = inner_body();     // frame 1
    auto it = inner.begin();       // yields 1
    auto filler = iota(1);         // frame 2
    auto o = outer(std::move(inner));  // frame 3
    std::vector<int> got;
    for (int v : o) got.push_back(v);
    EXPECT_EQ(got, (std::vector<int>{-99}));
    EXPECT_EQ(o.err().code, errc::no_memory);
    (void)it;
}

// A moved-from generator yields nothing and did not fail (docs/core.md,
// Generators), also when the generator it was moved out of had no frame:
// the move no longer leaves the pool's error behind in it, which
// elements_of reported and passed to the root's err().
TEST(review6, elements_of_a_moved_from_failed_generator_yields_nothing_and_no_error) {
    static frame_pool<1024, 1> one{"one_frame"};
    status s;
    std::vector<int> got;
    error root_err{};
    {
        use_frames scope{one};
        auto holder = iota(1);  // takes the only slot
        auto failed = iota(3);  // no slot
        ASSERT_FALSE(failed);
        auto moved = std::move(failed);  // `failed` is now a moved-from generator
        (void)moved;
        holder = generator<int>{};  // free the slot for the root
        auto outer = [&]() -> generator<int> {
            s = co_yield elements_of(std::move(failed));
            co_yield 1;
        };
        auto o = outer();
        for (int v : o) got.push_back(v);
        root_err = o.err();
    }
    EXPECT_EQ(got, (std::vector<int>{1}));
    EXPECT_TRUE(s) << text(s);
    EXPECT_EQ(root_err.code, errc::ok);
}

// The same for a task: a moved-from task is empty, "task '(empty)':
// nothing to run" (docs/core.md, Tasks), also the shell a failed task was
// moved out of (it reported the full pool, and when_all / when_any took
// it for a child whose allocation failed).
TEST(review6, awaiting_a_moved_from_failed_task_says_nothing_to_run) {
    static frame_pool<1024, 1> one{"one_task_frame"};
    executor ex{test::virtual_clock()};
    status got;
    auto child = []() -> task<> { co_return; };
    auto body = [&]() -> task<> {
        task<> failed;
        {
            use_frames scope{one};
            auto holder = child();  // the only slot
            failed = child();       // no slot
            EXPECT_FALSE(failed);
        }
        auto taken = std::move(failed);  // `failed` is now moved from
        (void)taken;
        got = co_await std::move(failed);
    };
    auto h = ex.spawn(body());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_TRUE(test::failed_with(got, errc::invalid, "task '(empty)': nothing to run"));
}

// Handle A (joined by ja) is move-assigned onto handle B (joined by jb):
// B's task is detached, so jb ends `invalid`; ja follows A's task into B
// and gets its value.
TEST(review6, a_joined_handle_move_assigned_onto_another_joined_handle) {
    executor ex{test::virtual_clock()};
    std::optional<join_handle<int>> a, b;
    status ja_got, jb_got;
    int ja_value = 0;
    auto wa = ex.spawn(value_after(3ms, 1));
    auto wb = ex.spawn(value_after(3ms, 2));
    ASSERT_TRUE(wa && wb);
    a.emplace(std::move(*wa));
    b.emplace(std::move(*wb));
    auto ja = [&]() -> task<> {
        auto r = co_await a->join();
        ja_got = r ? status{} : status{r.err()};
        if (r) ja_value = *r;
    };
    auto jb = [&]() -> task<> {
        auto r = co_await b->join();
        jb_got = r ? status{} : status{r.err()};
    };
    auto mover = [&]() -> task<> {
        co_await sleep_for(1ms);
        *b = std::move(*a);
        a.reset();
    };
    auto x = ex.spawn(ja());
    auto y = ex.spawn(jb());
    auto z = ex.spawn(mover());
    ASSERT_TRUE(x && y && z);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_TRUE(ja_got) << text(ja_got);
    EXPECT_EQ(ja_value, 1);
    EXPECT_EQ(text(jb_got), "join_handle 'join': detached while being joined");
}
