// SPDX-License-Identifier: Apache-2.0
#include <weft/reactor/detail/ready_set.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

using weft::reactors::detail::ready_set;

namespace {

constexpr std::uint32_t ranks = 3 * ready_set::word_bits;

struct drained {
    ready_set::word words[ready_set::words_for(ranks)] = {};
    ready_set set{words, ready_set::words_for(ranks)};
    std::uint32_t table[ranks];
    std::vector<std::uint32_t> order;
    drained() {
        for (std::uint32_t k = 0; k < ranks; ++k) table[k] = k;
    }
};

}  // namespace

TEST(ready_set, drain_runs_marked_ranks_in_order_with_those_marked_while_running) {
    drained d;
    const std::uint32_t w = ready_set::word_bits;
    for (std::uint32_t k : {0u, 5u, 6u, w - 1, w, 2 * w + 2}) d.set.mark(k, false);
    // Chains (6 -> 7 -> 8), a gap (8 -> w - 1), a chain across a word end
    // (w - 1 -> w -> w + 1), a mark that is already set (w), and marks in
    // later words.
    std::uint32_t n = d.set.drain(d.table, [&](std::uint32_t k) {
        d.order.push_back(k);
        if (k == 6) d.set.mark(7, false);
        if (k == 7) { d.set.mark(8, false); d.set.mark(w - 1, false); }
        if (k == w - 1) { d.set.mark(w, false); d.set.mark(w + 1, false); }
        if (k == w + 1) d.set.mark(2 * w - 1, false);
        if (k == 2 * w - 1) d.set.mark(2 * w, false);
    });
    std::vector<std::uint32_t> want{0, 5, 6, 7, 8, w - 1, w, w + 1, 2 * w - 1, 2 * w, 2 * w + 2};
    EXPECT_EQ(d.order, want);
    EXPECT_EQ(n, want.size());
    for (auto x : d.words) EXPECT_EQ(x, 0u);
}

TEST(ready_set, drain_of_an_empty_set_runs_nothing) {
    drained d;
    EXPECT_EQ(d.set.drain(d.table, [&](std::uint32_t k) { d.order.push_back(k); }), 0u);
    EXPECT_TRUE(d.order.empty());
}

TEST(ready_set, drain_runs_a_full_word_and_the_last_rank_alone) {
    drained d;
    const std::uint32_t w = ready_set::word_bits;
    for (std::uint32_t k = 0; k < w; ++k) d.set.mark(k, false);
    d.set.mark(ranks - 1, false);
    EXPECT_EQ(d.set.drain(d.table, [&](std::uint32_t k) { d.order.push_back(k); }), w + 1);
    ASSERT_EQ(d.order.size(), w + 1);
    for (std::uint32_t k = 0; k < w; ++k) EXPECT_EQ(d.order[k], k);
    EXPECT_EQ(d.order[w], ranks - 1);
    // Cleared: a second drain runs nothing.
    d.order.clear();
    EXPECT_EQ(d.set.drain(d.table, [&](std::uint32_t k) { d.order.push_back(k); }), 0u);
}
