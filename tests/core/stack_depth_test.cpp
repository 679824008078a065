// SPDX-License-Identifier: Apache-2.0
// Loops of yields and of awaited tasks run in constant stack, whether or
// not the compiler makes symmetric transfer a tail call
// (weft/core/detail/tail_calls.hpp). Built three times: with the suite's
// flags, at -O0 and (GCC) at -O1, where it is not one without help.
#include <weft/core/generator.hpp>
#include <weft/core/task.hpp>
#include <weft/core/yield.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>

#include <cstdint>

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

TEST(stack_depth, a_loop_awaiting_tasks_that_end_at_once_does_not_grow_the_stack) {
    executor ex{test::virtual_clock()};
    stack_span s;
    long sum = 0;
    auto h = ex.spawn(await_each(s, sum, &at_once));
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(sum, sum_of_rounds);
    EXPECT_LT(s.growth(), allowed_growth);
}

TEST(stack_depth, a_loop_awaiting_tasks_that_suspend_does_not_grow_the_stack) {
    executor ex{test::virtual_clock()};
    stack_span s, other_span;
    long sum = 0;
    auto h = ex.spawn(await_each(s, sum, &after_a_yield));
    // A second task, so that each yield has somewhere to go.
    auto o = ex.spawn(yielder(other_span, rounds));
    ASSERT_TRUE(h && o);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(sum, sum_of_rounds);
    EXPECT_LT(s.growth(), allowed_growth);
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
