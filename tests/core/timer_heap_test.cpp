// SPDX-License-Identifier: Apache-2.0
#include <weft/core/detail/timer_heap.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <utility>
#include <vector>

using weft::detail::timer_heap;
using weft::detail::timer_node;

// Random pushes, pops and erases of arbitrary nodes against an ordered
// set of (deadline, arming order): the heap must always pop the earliest,
// oldest among equals, and never lose or resurrect a node.
TEST(timer_heap, random_push_pop_erase_matches_a_sorted_model) {
    std::mt19937 rng(7);
    std::vector<timer_node> nodes(64);
    std::set<std::pair<std::uint64_t, unsigned>> model;  // (deadline, order)
    std::vector<unsigned> order(nodes.size());
    unsigned next_order = 0;
    timer_heap heap;
    for (int step = 0; step < 200'000; ++step) {
        const std::size_t i = rng() % nodes.size();
        timer_node& n = nodes[i];
        const unsigned op = rng() % 3;
        if (op == 0 && !n.armed()) {
            n.deadline_ns = rng() % 16;  // many equal deadlines
            heap.push(n);
            order[i] = next_order++;
            model.emplace(n.deadline_ns, order[i]);
        } else if (op == 1 && n.armed()) {
            heap.erase(n);
            ASSERT_EQ(model.erase({n.deadline_ns, order[i]}), 1u);
        } else if (op == 2 && !heap.empty()) {
            timer_node* top = heap.pop();
            ASSERT_FALSE(model.empty());
            const std::size_t j = std::size_t(top - nodes.data());
            ASSERT_EQ(std::make_pair(top->deadline_ns, order[j]), *model.begin()) << "step " << step;
            model.erase(model.begin());
        }
        ASSERT_EQ(heap.empty(), model.empty());
        if (!model.empty()) {
            ASSERT_EQ(heap.next_deadline(), model.begin()->first);
        }
    }
}

// Equal deadlines fire in arming order however many timers were armed in
// between: with a 32-bit sequence compared modulo 2^32, a timer that
// stayed armed across 2^31 others (a watchdog, a far sleep_until) fired
// after a later one with the same deadline.
TEST(timer_heap, equal_deadlines_keep_arming_order_across_2_31_and_2_32_arms) {
    for (std::uint64_t between : {std::uint64_t(1) << 31, std::uint64_t(1) << 32, (std::uint64_t(1) << 32) + 5}) {
        timer_heap heap;
        heap.skip_sequence((std::uint64_t(1) << 32) - 3);  // also across the 32-bit wrap
        timer_node first, second, earlier;
        first.deadline_ns = second.deadline_ns = 1000;
        earlier.deadline_ns = 5;
        heap.push(first);
        heap.skip_sequence(between);
        heap.push(second);
        heap.push(earlier);
        EXPECT_EQ(heap.pop(), &earlier);
        EXPECT_EQ(heap.pop(), &first) << between;
        EXPECT_EQ(heap.pop(), &second) << between;
        EXPECT_TRUE(heap.empty());
        EXPECT_FALSE(first.armed());
    }
}
