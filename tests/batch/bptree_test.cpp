// SPDX-License-Identifier: Apache-2.0
#include <weft/batch/kernels/bptree.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

using namespace weft::batch;

namespace {
weft::frame_pool<512, 8> lane_frames{"bptree_test"};

struct tree {
    std::vector<std::uint64_t> arena;  // 8-byte aligned storage
    std::vector<const bptree_leaf*> starts;
    std::size_t leaf_bytes;
    std::size_t leaves_per_range;
};

tree make_tree(std::size_t leaves, std::uint32_t keys, std::size_t ranges, bool shuffled) {
    tree t;
    t.leaf_bytes = bptree_leaf::bytes_for(keys);
    t.arena.resize(leaves * t.leaf_bytes / 8 + 1);
    std::vector<std::uint32_t> place(leaves);
    std::iota(place.begin(), place.end(), 0u);
    if (shuffled) std::shuffle(place.begin(), place.end(), std::mt19937(7));
    auto* base = reinterpret_cast<unsigned char*>(t.arena.data());
    const bptree_leaf* leaf = bptree_build_chain(base, t.leaf_bytes, place.data(), leaves, keys);
    t.leaves_per_range = leaves / ranges;
    for (std::size_t j = 0; leaf; ++j, leaf = leaf->next)
        if (j % t.leaves_per_range == 0 && t.starts.size() < ranges) t.starts.push_back(leaf);
    return t;
}

// Reference: the keys of leaf j are j*keys .. j*keys+keys-1 by construction.
std::int64_t reference_sum(std::size_t first_leaf, std::size_t leaves, std::uint32_t keys) {
    std::int64_t s = 0;
    for (std::size_t k = first_leaf * keys; k < (first_leaf + leaves) * keys; ++k) s += std::int64_t(k);
    return s;
}

template <class P>
std::vector<std::int64_t> scan(const tree& t, std::size_t lanes) {
    std::vector<std::int64_t> sums(t.starts.size(), -1);
    bptree_scan_set s{t.starts.data(), t.starts.size(), t.leaves_per_range, t.leaf_bytes, sums.data()};
    interleaver<8> r;
    EXPECT_TRUE(bptree_scan<P>(r, lanes, s));
    return sums;
}
}  // namespace

TEST(bptree, every_policy_matches_the_reference_on_random_placement) {
    tree t = make_tree(600, 13, 12, true);
    for (std::size_t lanes : {1u, 2u, 5u, 8u}) {
        auto a = scan<sequential>(t, lanes);
        auto b = scan<interleaved>(t, lanes);
        auto c = scan<interleaved_no_prefetch>(t, lanes);
        for (std::size_t i = 0; i < t.starts.size(); ++i) {
            std::int64_t want = reference_sum(i * t.leaves_per_range, t.leaves_per_range, 13);
            EXPECT_EQ(a[i], want);
            EXPECT_EQ(b[i], want);
            EXPECT_EQ(c[i], want);
        }
    }
}

TEST(bptree, sequential_placement_gives_the_same_sums) {
    tree t = make_tree(100, 4, 10, false);
    auto b = scan<interleaved>(t, 3);
    for (std::size_t i = 0; i < 10; ++i) EXPECT_EQ(b[i], reference_sum(i * 10, 10, 4));
}

TEST(bptree, range_stops_at_the_end_of_the_chain) {
    tree t = make_tree(5, 2, 1, true);
    t.leaves_per_range = 100;
    auto b = scan<interleaved>(t, 2);
    EXPECT_EQ(b[0], reference_sum(0, 5, 2));
}

TEST(bptree, every_policy_gives_the_same_sums_on_random_scans) {
    for (unsigned seed = 1; seed <= 60; ++seed) {
        // 1..200 shuffled leaves of 0..20 keys; 0..12 ranges starting at
        // random leaves (or at no leaf), 0..30 leaves long (past the end too).
        std::mt19937 rng(seed);
        const std::size_t leaves = 1 + rng() % 200, ranges = rng() % 13;
        const std::uint32_t keys = rng() % 21;
        tree t = make_tree(leaves, keys, 1, true);
        std::vector<const bptree_leaf*> chain;
        for (const bptree_leaf* l = t.starts[0]; l; l = l->next) chain.push_back(l);
        t.starts.clear();
        std::vector<std::size_t> first;
        for (std::size_t i = 0; i < ranges; ++i) {
            first.push_back(rng() % (leaves + 1));
            t.starts.push_back(first.back() < leaves ? chain[first.back()] : nullptr);
        }
        t.leaves_per_range = rng() % 31;
        const std::size_t lanes = 1 + seed % 8;
        const auto want = scan<sequential>(t, 1);
        ASSERT_EQ(scan<interleaved>(t, lanes), want) << "seed " << seed;
        ASSERT_EQ(scan<interleaved_no_prefetch>(t, lanes), want) << "seed " << seed;
        for (std::size_t i = 0; i < ranges; ++i) {
            const std::size_t n = first[i] < leaves ? std::min(t.leaves_per_range, leaves - first[i]) : 0;
            ASSERT_EQ(want[i], reference_sum(first[i], n, keys)) << "seed " << seed << " range " << i;
        }
    }
}
