// SPDX-License-Identifier: Apache-2.0
#include <weft/core/generator.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>

#include <memory>
#include <vector>

using namespace weft;

namespace {

// noinline: Clang may elide the frame of a coroutine whose ramp is inlined
// into a caller that destroys it (CoroElide); these tests count pool slots.
[[gnu::noinline]] generator<int> iota(int n) {
    for (int i = 0; i < n; ++i) co_yield i;
}

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
