// SPDX-License-Identifier: Apache-2.0
#include <weft/core/generator.hpp>

#include <gtest/gtest.h>
#include <support/generators.hpp>
#include <support/weft_test.hpp>

#include <memory>
#include <vector>

using namespace weft;
using test::chain;
using test::iota;

namespace {

// Seed 004's tree: leaves hold values, inner nodes two children.
struct node {
    int value = 0;
    const node* left = nullptr;
    const node* right = nullptr;
};

[[gnu::noinline]] generator<int> fringe(const node* n) {
    if (!n->left && !n->right) {
        co_yield n->value;
        co_return;
    }
    if (n->left) co_yield elements_of(fringe(n->left));
    if (n->right) co_yield elements_of(fringe(n->right));
}

bool same_fringe(const node* a, const node* b) {
    auto ga = fringe(a);
    auto gb = fringe(b);
    auto ia = ga.begin();
    auto ib = gb.begin();
    for (; ia != ga.end() && ib != gb.end(); ++ia, ++ib)
        if (*ia != *ib) return false;
    return (ia == ga.end()) == (ib == gb.end());
}

}  // namespace

TEST(generator, yields_in_order_lazily) {
    std::vector<int> got;
    for (int v : iota(5)) got.push_back(v);
    EXPECT_EQ(got, (std::vector<int>{0, 1, 2, 3, 4}));
}

TEST(generator, nested_yield_flattens_recursively) {
    auto outer = []() -> generator<int> {
        co_yield -1;
        co_yield elements_of(iota(3));
        co_yield -2;
    };
    std::vector<int> got;
    for (int v : outer()) got.push_back(v);
    EXPECT_EQ(got, (std::vector<int>{-1, 0, 1, 2, -2}));
}

TEST(generator, same_fringe_on_trees_of_different_shape) {
    //   a: ((1 2) 3)        b: (1 (2 3))        c: (1 (2 4))
    node l1{1}, l2{2}, l3{3}, l4{4};
    node a_in{0, &l1, &l2}, a{0, &a_in, &l3};
    node b_in{0, &l2, &l3}, b{0, &l1, &b_in};
    node c_in{0, &l2, &l4}, c{0, &l1, &c_in};
    EXPECT_TRUE(same_fringe(&a, &b));
    EXPECT_FALSE(same_fringe(&a, &c));
    EXPECT_FALSE(same_fringe(&a, &l1));  // prefix is not the same fringe
}

TEST(generator, deep_recursion_uses_frames_not_stack) {
    // A left spine 2000 deep: 2000 nested generators alive at once.
    static frame_pool<1024, 2100> pool{"fringe"};
    use_frames scope{pool};
    std::vector<node> spine(2001);
    for (int i = 0; i < 2000; ++i) {
        spine[std::size_t(i)].left = &spine[std::size_t(i) + 1];
    }
    spine[2000].value = 7;
    int count = 0, last = 0;
    for (int v : fringe(&spine[0])) { ++count; last = v; }
    EXPECT_EQ(count, 1);
    EXPECT_EQ(last, 7);
    EXPECT_GE(pool.peak(), 2001u);
    EXPECT_EQ(pool.in_use(), 0u);
}

TEST(generator, nested_allocation_failure_is_reported_not_dropped) {
    static frame_pool<1024, 2> two{"two_frames"};
    use_frames scope{two};
    auto outer = []() -> generator<int> {
        co_yield 1;
        co_yield elements_of(iota(3));  // second frame: fits, freed after
        auto hold = iota(1);            // second frame again, kept alive
        status s = co_yield elements_of(iota(3));  // third frame: no slot
        if (!s) co_yield -99;
    };
    auto g = outer();
    std::vector<int> got;
    for (int v : g) got.push_back(v);
    EXPECT_EQ(got, (std::vector<int>{1, 0, 1, 2, -99}));
    EXPECT_EQ(g.err().code, errc::no_memory);
    EXPECT_STREQ(g.err().object, "two_frames");
}


TEST(generator, nested_chains_several_levels_deep_yield_in_order) {
    static frame_pool<1024, 8> pool{"three_levels"};
    use_frames scope{pool};
    std::vector<int> got;
    for (int v : chain(2, 2)) got.push_back(v);
    EXPECT_EQ(got, (std::vector<int>{200, 100, 0, 0, 1, 1, 101, 201}));
    EXPECT_EQ(pool.in_use(), 0u);
}

TEST(generator, destroying_the_root_mid_chain_frees_every_nested_frame) {
    static frame_pool<1024, 8> pool{"mid_chain"};
    use_frames scope{pool};
    {
        auto g = chain(3, 5);
        int seen = 0;
        for (int v : g) {
            (void)v;
            if (++seen == 6) break;  // inside iota, under four chain levels
        }
        EXPECT_EQ(pool.in_use(), 5u);
    }
    EXPECT_EQ(pool.in_use(), 0u);
}

TEST(generator, destroying_a_deep_chain_mid_iteration_frees_every_frame) {
    static frame_pool<1024, 2100> pool{"deep_destroy"};
    use_frames scope{pool};
    std::vector<node> spine(2001);
    for (int i = 0; i < 2000; ++i) spine[std::size_t(i)].left = &spine[std::size_t(i) + 1];
    {
        auto g = fringe(&spine[0]);
        auto it = g.begin();
        EXPECT_EQ(*it, 0);
        EXPECT_EQ(pool.in_use(), 2001u);
    }
    EXPECT_EQ(pool.in_use(), 0u);
}

TEST(generator, empty_nested_generators_yield_nothing) {
    auto outer = []() -> generator<int> {
        co_yield elements_of(iota(0));
        co_yield 1;
        co_yield elements_of(iota(0));
    };
    std::vector<int> got;
    for (int v : outer()) got.push_back(v);
    EXPECT_EQ(got, (std::vector<int>{1}));
}

TEST(generator, moving_it_after_begin_keeps_the_iteration) {
    auto g = iota(4);
    auto it = g.begin();
    EXPECT_EQ(*it, 0);
    auto moved = std::move(g);
    ++it;
    EXPECT_EQ(*it, 1);
    generator<int> assigned;
    assigned = std::move(moved);
    ++it;
    EXPECT_EQ(*it, 2);
}

// Resuming a finished coroutine is undefined (it crashed).
TEST(generator, elements_of_a_finished_generator_yields_nothing) {
    auto outer = []() -> generator<int> {
        auto g = iota(2);
        for (int v : g) (void)v;
        co_yield elements_of(std::move(g));
        co_yield 5;
    };
    std::vector<int> got;
    for (int v : outer()) got.push_back(v);
    EXPECT_EQ(got, (std::vector<int>{5}));
}

// The rest of a begun generator, from its own innermost nested generator
// (resuming its top skipped what the nested ones had left).
TEST(generator, elements_of_a_begun_generator_yields_the_rest) {
    static frame_pool<1024, 8> pool{"begun"};
    use_frames scope{pool};
    auto outer = []() -> generator<int> {
        auto g = chain(1, 2);  // 100, 0, 0, 1, 101
        auto it = g.begin();   // 100
        ++it;                  // 0, from chain(0)
        ++it;                  // 0, from iota(2) under chain(0)
        co_yield elements_of(std::move(g));
        co_yield 5;
    };
    std::vector<int> got;
    for (int v : outer()) got.push_back(v);
    EXPECT_EQ(got, (std::vector<int>{1, 1, 101, 5}));
    EXPECT_EQ(pool.in_use(), 0u);
}

TEST(generator, nested_allocation_failure_two_levels_down_reaches_the_root) {
    static frame_pool<1024, 1> one{"one_frame"};
    status seen;
    auto mid = [&]() -> generator<int> {
        generator<int> hold, failed;
        {
            use_frames scope{one};  // closed before the co_yield
            hold = iota(1);
            failed = iota(2);  // no slot
        }
        seen = co_yield elements_of(std::move(failed));
        co_yield seen ? 1 : -1;
    };
    auto outer = [&]() -> generator<int> {
        co_yield elements_of(mid());
        co_yield 9;
    };
    auto g = outer();
    std::vector<int> got;
    for (int v : g) got.push_back(v);
    EXPECT_EQ(got, (std::vector<int>{-1, 9}));
    EXPECT_EQ(seen.code(), errc::no_memory);
    EXPECT_STREQ(g.err().object, "one_frame");
    EXPECT_EQ(one.in_use(), 0u);
}

// A generator without a frame that failed for no reason (default or
// moved-from) is not a failure: it used to reset the root's err().
TEST(generator, elements_of_an_empty_generator_keeps_an_earlier_error) {
    static frame_pool<1024, 2> two{"two_slots"};
    use_frames scope{two};
    auto outer = []() -> generator<int> {
        auto hold = iota(1);
        status s = co_yield elements_of(iota(1));  // no slot
        co_yield s ? 1 : -1;
        s = co_yield elements_of(generator<int>{});
        co_yield s ? 2 : -2;
    };
    auto g = outer();
    std::vector<int> got;
    for (int v : g) got.push_back(v);
    EXPECT_EQ(got, (std::vector<int>{-1, 2}));
    EXPECT_EQ(g.err().code, errc::no_memory);
}

TEST(generator, yields_const_references_and_move_only_values) {
    std::vector<std::unique_ptr<int>> owned;
    owned.push_back(std::make_unique<int>(1));
    owned.push_back(std::make_unique<int>(2));
    auto refs = [&]() -> generator<const std::unique_ptr<int>&> {
        for (auto& p : owned) co_yield p;
    };
    int sum = 0;
    for (const auto& p : refs()) sum += *p;
    EXPECT_EQ(sum, 3);
    auto made = []() -> generator<std::unique_ptr<int>> {
        co_yield std::make_unique<int>(4);
        auto p = std::make_unique<int>(5);
        co_yield p;
    };
    sum = 0;
    for (const auto& p : made()) sum += *p;
    EXPECT_EQ(sum, 9);
}

// generator<int&> gave `const int&` (did not compile).
TEST(generator, of_references_lets_the_consumer_write_through) {
    int values[3] = {1, 2, 3};
    auto each = [&]() -> generator<int&> {
        for (int& v : values) co_yield v;
    };
    for (int& v : each()) v *= 10;
    EXPECT_EQ(values[0] + values[1] + values[2], 60);
}
