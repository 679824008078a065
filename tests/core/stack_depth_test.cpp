// SPDX-License-Identifier: Apache-2.0
// Loops of yields and of awaited tasks run in constant stack, whether or
// not the compiler makes symmetric transfer a tail call
// (weft/core/detail/tail_calls.hpp). Built three times: with the suite's
// flags, at -O0 and (GCC) at -O1, where it is not one without help.
#include <weft/core/event.hpp>
#include <weft/core/generator.hpp>
#include <weft/core/split_phase.hpp>
#include <weft/core/task.hpp>
#include <weft/core/yield.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

using namespace weft;

namespace {

// The stack a loop may use beyond its first iteration's: far below what
// one nested call per iteration would take (10 000 x at least 32 B).
constexpr std::uintptr_t allowed_growth = 64 * 1024;
constexpr int rounds = 10'000;

struct stack_span {
    std::uintptr_t low = ~std::uintptr_t{0}, high = 0;
    [[gnu::noinline]] void note() noexcept {
        auto here = reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
        if (here < low) low = here;
        if (here > high) high = here;
    }
    std::uintptr_t growth() const noexcept { return high - low; }
};

task<> yielder(stack_span& s, int n) {
    for (int i = 0; i < n; ++i) {
        s.note();
        (void)co_await yield();
    }
}

task<int> at_once(int v) { co_return v; }

task<int> after_a_yield(int v) {
    (void)co_await yield();
    co_return v;
}

// Awaits child(i) for every round, noting the stack each time.
task<> await_each(stack_span& s, long& sum, task<int> (*child)(int)) {
    for (int i = 0; i < rounds; ++i) {
        s.note();
        sum += *co_await child(i);
    }
}
constexpr long sum_of_rounds = long(rounds) * (rounds - 1) / 2;

// A filter over many items that passes few: most nested generators end
// without yielding anything.
generator<int> passes_if_last(stack_span& s, int i) {
    s.note();
    if (i == rounds - 1) co_yield i;
}
generator<int> filtered(stack_span& s) {
    for (int i = 0; i < rounds; ++i) co_yield elements_of(passes_if_last(s, i));
}

}  // namespace

TEST(stack_depth, two_tasks_yielding_to_each_other_do_not_grow_the_stack) {
    executor ex{test::virtual_clock()};
    stack_span s;
    auto a = ex.spawn(yielder(s, rounds));
    auto b = ex.spawn(yielder(s, rounds));
    ASSERT_TRUE(a && b);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_LT(s.growth(), allowed_growth);
}


// A loop awaiting child(i) every round, beside a task that yields as
// often (somewhere for a child's yield to go), runs in constant stack.
void expect_a_flat_loop_of_awaits(task<int> (*child)(int)) {
    executor ex{test::virtual_clock()};
    stack_span s, other_span;
    long sum = 0;
    auto h = ex.spawn(await_each(s, sum, child));
    auto o = ex.spawn(yielder(other_span, rounds));
    ASSERT_TRUE(h && o);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(sum, sum_of_rounds);
    EXPECT_LT(s.growth(), allowed_growth);
}

TEST(stack_depth, a_loop_awaiting_tasks_that_end_at_once_does_not_grow_the_stack) {
    expect_a_flat_loop_of_awaits(&at_once);
}

TEST(stack_depth, a_loop_awaiting_tasks_that_suspend_does_not_grow_the_stack) {
    expect_a_flat_loop_of_awaits(&after_a_yield);
}

TEST(stack_depth, a_run_of_nested_generators_that_yield_nothing_does_not_grow_the_stack) {
    stack_span s;
    int seen = 0, last = -1;
    for (int v : filtered(s)) {
        ++seen;
        last = v;
    }
    EXPECT_EQ(seen, 1);
    EXPECT_EQ(last, rounds - 1);
    EXPECT_LT(s.growth(), allowed_growth);
}

// --- the same behaviour with and without tail calls: these run in every
// build of this file, so the -O0 one (no tail calls) and the suite's
// (tail calls) must agree with the same expectations ---

namespace {

// A run of generators that were begun by their maker and have nothing
// left: each is resumed by the nesting, ends at once, and its parent goes on.
generator<int> one_then_nothing(stack_span& s, int i) {
    s.note();
    co_yield i;
}
generator<int> rests_of_begun_generators(stack_span& s) {
    for (int i = 0; i < rounds; ++i) {
        auto g = one_then_nothing(s, i);
        auto it = g.begin();  // takes its only element here
        (void)it;
        co_yield elements_of(std::move(g));  // nothing left
    }
    co_yield -1;
}

}  // namespace

TEST(stack_depth, a_run_of_begun_generators_with_nothing_left_does_not_grow_the_stack) {
    stack_span s;
    int seen = 0, last = 0;
    for (int v : rests_of_begun_generators(s)) {
        ++seen;
        last = v;
    }
    EXPECT_EQ(seen, 1);
    EXPECT_EQ(last, -1);
    EXPECT_LT(s.growth(), allowed_growth);
}

TEST(stack_depth, a_task_yielding_alone_does_not_grow_the_stack) {
    executor ex{test::virtual_clock()};
    stack_span s;
    auto h = ex.spawn(yielder(s, rounds));
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_LT(s.growth(), allowed_growth);
}

namespace {

task<int> grandchild_at_once(int v) { co_return v; }
task<int> child_awaiting_a_grandchild(int v) { co_return *co_await grandchild_at_once(v); }

}  // namespace

TEST(stack_depth, a_loop_awaiting_two_levels_that_end_at_once_does_not_grow_the_stack) {
    expect_a_flat_loop_of_awaits(&child_awaiting_a_grandchild);
}

// What an awaited task does while it runs (inline, without tail calls)
// takes effect as with symmetric transfer: it wakes a higher task, spawns
// one, completes a split_phase another waits for, and cancels its own
// task; none of them runs before the awaiting task's next await, and they
// then run in priority and FIFO order. With and without a yield before.
TEST(stack_depth, an_awaited_tasks_wakes_spawns_and_cancels_order_as_with_tail_calls) {
    for (bool yield_first : {false, true}) {
        executor ex{test::virtual_clock()};
        event ev{"ev"};
        split_phase<int> sp{"sp"};
        std::string log;
        join_handle<void>* self = nullptr;
        auto spawned = [&]() -> task<> {
            log += 's';
            co_return;
        };
        auto child = [&]() -> task<int> {
            if (yield_first) {
                EXPECT_TRUE(co_await yield());
            }
            ev.set();
            EXPECT_TRUE(ex.spawn(spawned(), 1));
            EXPECT_TRUE(sp.complete(1));
            self->cancel();
            log += 'c';
            co_return 3;
        };
        auto woken = [&]() -> task<> {
            EXPECT_TRUE(co_await ev.wait());
            log += 'w';
        };
        auto completed = [&]() -> task<> {
            EXPECT_TRUE(co_await sp);
            log += 'x';
        };
        auto root = [&]() -> task<> {
            result<int> v = co_await child();
            log += (v && *v == 3) ? 'r' : '?';
            status s = co_await yield();
            log += s.code() == errc::cancelled ? 'C' : 'R';
        };
        auto w = ex.spawn(woken(), 2);
        auto x = ex.spawn(completed(), 1);
        auto r = ex.spawn(root(), 1);
        ASSERT_TRUE(w && x && r);
        self = &*r;
        EXPECT_EQ(ex.run(), run_outcome::completed);
        EXPECT_EQ(log, "crwsCx") << (yield_first ? "child yields first" : "child runs straight");
    }
}

namespace {

// Random shapes of nested generators, some of them begun (partly consumed
// by their maker) before they are nested: every element comes out once,
// in order, whichever way the nesting runs.
struct shape {
    struct item {
        enum kind_t { value, nested, begun } kind;
        int v = 0;         // value
        int child = 0;     // nested, begun: the node
        int consumed = 0;  // begun: elements its maker takes first (>= 1)
    };
    std::vector<std::vector<item>> nodes;

    std::vector<int> flat(int n) const {
        std::vector<int> out;
        for (const item& it : nodes[std::size_t(n)]) {
            if (it.kind == item::value) {
                out.push_back(it.v);
                continue;
            }
            std::vector<int> sub = flat(it.child);
            out.insert(out.end(), sub.begin() + (it.kind == item::begun ? it.consumed : 0), sub.end());
        }
        return out;
    }
    int grow(std::mt19937& rng, int depth, int& budget, int& next_value) {
        const int n = int(nodes.size());
        nodes.emplace_back();
        const int items = int(rng() % 5);  // 0 to 4: empty generators too
        for (int i = 0; i < items && budget > 0; ++i) {
            --budget;
            const unsigned k = rng() % 3;
            if (k == 0 || depth == 0) {
                nodes[std::size_t(n)].push_back({item::value, next_value++});
                continue;
            }
            const int c = grow(rng, depth - 1, budget, next_value);
            const int len = int(flat(c).size());
            if (k == 2 && len > 0)
                nodes[std::size_t(n)].push_back({item::begun, 0, c, 1 + int(rng() % unsigned(len))});
            else
                nodes[std::size_t(n)].push_back({item::nested, 0, c});
        }
        return n;
    }
};

generator<int> walk(const shape& s, int n) {
    for (const shape::item& it : s.nodes[std::size_t(n)]) {
        if (it.kind == shape::item::value) {
            co_yield it.v;
        } else if (it.kind == shape::item::nested) {
            co_yield elements_of(walk(s, it.child));
        } else {
            auto g = walk(s, it.child);
            auto i = g.begin();
            for (int k = 1; k < it.consumed; ++k) ++i;
            co_yield elements_of(std::move(g));
        }
    }
}

}  // namespace

TEST(stack_depth, random_nestings_of_begun_generators_yield_every_element_once_in_order) {
    static frame_pool<512, 256> pool{"random_nestings"};
    use_frames scope{pool};
    std::mt19937 rng{20261126};
    for (int round = 0; round < 300; ++round) {
        shape s;
        int budget = 60, next_value = 0;
        s.grow(rng, 6, budget, next_value);
        std::vector<int> got;
        for (int v : walk(s, 0)) got.push_back(v);
        ASSERT_EQ(got, s.flat(0)) << "round " << round;
        ASSERT_EQ(pool.in_use(), 0u) << "round " << round;
    }
}

// A nested generator that gets no frame, inside one running nested under
// another: the error reaches the generator that nested it (its status)
// and the root (err()), and the iteration goes on.
namespace {
// noinline: Clang would elide the frame of a coroutine whose ramp is
// inlined into a caller that owns it (CoroElide), and take no slot.
[[gnu::noinline]] generator<int> single(int v) { co_yield v; }
}  // namespace

TEST(stack_depth, a_nested_generator_without_a_frame_deep_in_a_chain_reports_to_its_parent_and_the_root) {
    static frame_pool<512, 1> one{"one_frame"};
    generator<int> filler;
    {
        use_frames scope{one};
        filler = single(5);  // takes the only slot
    }
    ASSERT_TRUE(filler);
    status seen;
    auto mid = [&]() -> generator<int> {
        co_yield 0;
        generator<int> failed;
        {
            use_frames scope{one};  // closed before the co_yield
            failed = single(1);     // no slot
        }
        seen = co_yield elements_of(std::move(failed));
        co_yield seen ? 2 : -2;
    };
    auto top = [&]() -> generator<int> {
        co_yield elements_of(mid());
        co_yield 9;
    };
    auto g = top();
    std::vector<int> got;
    for (int v : g) got.push_back(v);
    EXPECT_EQ(got, (std::vector<int>{0, -2, 9}));
    EXPECT_EQ(seen.code(), errc::no_memory);
    EXPECT_STREQ(g.err().object, "one_frame");
    EXPECT_EQ(one.in_use(), 1u);  // the filler's
}

// A walk abandoned deep in a chain of nested generators (a same-fringe
// that finds a difference): destroying the root frees every frame of the
// chain from the innermost up, without one native call per level. The
// walk down nests the stack where there are no tail calls, so the span is
// noted only while the frames are destroyed.
namespace {
struct spine_node {
    int value = 0;
    const spine_node* left = nullptr;
};
struct note_when_destroyed {
    stack_span* s;
    ~note_when_destroyed() { s->note(); }
};
[[gnu::noinline]] generator<int> left_spine(stack_span& s, const spine_node* n) {
    note_when_destroyed note{&s};
    if (!n->left) {
        co_yield n->value;
        co_yield n->value + 1;  // never taken: the walk stops at the first
        co_return;
    }
    co_yield elements_of(left_spine(s, n->left));
}
}  // namespace

TEST(stack_depth, abandoning_a_deeply_nested_generator_frees_every_frame_without_growing_the_stack) {
    constexpr int depth = 2'000;  // at 32 B per level a recursive teardown takes 64 KB
    static frame_pool<512, depth + 1> pool{"spine"};
    std::vector<spine_node> spine(depth + 1);
    for (int i = 0; i < depth; ++i) spine[std::size_t(i)].left = &spine[std::size_t(i) + 1];
    spine[depth].value = 7;
    stack_span s;
    {
        use_frames scope{pool};
        auto g = left_spine(s, &spine[0]);
        auto it = g.begin();
        ASSERT_EQ(*it, 7);
        EXPECT_EQ(pool.in_use(), std::size_t(depth) + 1);
        s = stack_span{};  // the descent is not measured
    }  // g destroyed here, one level at a time
    EXPECT_EQ(pool.in_use(), 0u);
    EXPECT_LT(s.growth(), std::uintptr_t(4096));
}

// The same from a root that nested a generator its caller had begun: the
// chain runs through the begun generator's own nested frames.
TEST(stack_depth, abandoning_a_chain_through_a_begun_generator_frees_every_frame_once) {
    static frame_pool<512, 64> pool{"begun_chain"};
    std::vector<spine_node> spine(21);
    for (int i = 0; i < 20; ++i) spine[std::size_t(i)].left = &spine[std::size_t(i) + 1];
    spine[20].value = 3;
    stack_span s;
    {
        use_frames scope{pool};
        auto begun = left_spine(s, &spine[10]);  // 11 frames once begun
        auto first = begun.begin();
        ASSERT_EQ(*first, 3);
        auto outer = [&](generator<int> g) -> generator<int> {
            co_yield -1;
            co_yield elements_of(std::move(g));
        };
        auto g = outer(std::move(begun));
        auto it = g.begin();
        ASSERT_EQ(*it, -1);
        ++it;
        ASSERT_EQ(*it, 4);  // the begun walk's rest
        EXPECT_EQ(pool.in_use(), 12u);
    }
    EXPECT_EQ(pool.in_use(), 0u);
}
