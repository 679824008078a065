// SPDX-License-Identifier: Apache-2.0
#pragma once
// B+Tree leaf scan (seed 000, §4.3.2): visit the leaves of a B+Tree in key
// order, scan the keys of each leaf, follow the link to the next leaf. The
// leaves may lie anywhere in memory (a tree grown by arbitrary inserts), so
// each step is a pointer chase: the lane prefetches the leaf it is about to
// read and suspends, and the other lanes' scans hide the miss.
//
// Work item: one range scan = `leaves_per_range` consecutive leaves starting
// at `starts[item]`. Output: the sum of the keys of the range.
#include <weft/batch/interleave.hpp>
#include <weft/batch/lane.hpp>
#include <weft/batch/prefetch.hpp>

#include <cstddef>
#include <cstdint>
#include <new>

namespace weft::batch {

/// A B+Tree leaf: header, then `count` int32 keys (storage supplied by the
/// caller, `leaf_bytes` apart or anywhere).
struct bptree_leaf {
    const bptree_leaf* next = nullptr;  ///< next leaf in key order, or nullptr
    std::uint32_t count = 0;            ///< keys stored after the header
    std::uint32_t reserved = 0;

    /// The keys, stored right after the header.
    const std::int32_t* keys() const noexcept { return reinterpret_cast<const std::int32_t*>(this + 1); }
    std::int32_t* keys() noexcept { return reinterpret_cast<std::int32_t*>(this + 1); }
    /// Bytes a leaf with `capacity` keys occupies (header + keys), rounded
    /// up so that consecutive leaves stay aligned.
    static constexpr std::size_t bytes_for(std::size_t capacity) noexcept {
        constexpr std::size_t a = alignof(bptree_leaf);
        return (sizeof(bptree_leaf) + capacity * sizeof(std::int32_t) + a - 1) / a * a;
    }
};

/// Sum of one leaf's keys.
inline std::int64_t bptree_leaf_sum(const bptree_leaf& leaf) noexcept {
    const std::int32_t* k = leaf.keys();
    std::int64_t s = 0;
    for (std::uint32_t i = 0; i < leaf.count; ++i) s += k[i];
    return s;
}

/// The scans to run: a view on caller-owned storage.
struct bptree_scan_set {
    const bptree_leaf* const* starts = nullptr;  ///< first leaf of each range
    std::size_t ranges = 0;                       ///< number of work items
    std::size_t leaves_per_range = 0;             ///< leaves visited per item (stops early at nullptr)
    std::size_t leaf_bytes = 0;                   ///< bytes prefetched per leaf (one step)
    std::int64_t* sums = nullptr;                 ///< output, one per range
};

/// Lane body: scan range `item`. Suspends once per leaf under interleaving policies.
template <class Policy>
lane bptree_scan_lane(const bptree_scan_set& s, std::size_t item) {
    const bptree_leaf* leaf = s.starts[item];
    std::int64_t sum = 0;
    for (std::size_t i = 0; i < s.leaves_per_range && leaf != nullptr; ++i) {
        co_await Policy::prefetch(leaf, s.leaf_bytes);
        sum += bptree_leaf_sum(*leaf);
        leaf = leaf->next;
    }
    s.sums[item] = sum;
}

/// Runs every range of `s` on `runner` (one lane when Policy is sequential).
/// Errors: those of interleaver::run (lane count, frame pool exhausted).
template <class Policy, std::size_t K>
status bptree_scan(interleaver<K>& runner, std::size_t lanes, const bptree_scan_set& s) noexcept {
    return runner.template run_under<Policy>(lanes, s.ranges,
        [&s](std::size_t i) { return bptree_scan_lane<Policy>(s, i); });
}

/// Links `count` leaves of capacity `keys_per_leaf`, placed in `arena` at
/// slots `placement[0..count)` (slot i starts at arena + i * leaf_bytes), in
/// key order; leaf j holds keys j*keys_per_leaf + 0..keys_per_leaf-1.
/// Returns the first leaf. Precondition: placement is a permutation of
/// [0, count), leaf_bytes is a multiple of 8 (bptree_leaf::bytes_for) and
/// arena holds count * leaf_bytes bytes, aligned to 8.
inline bptree_leaf* bptree_build_chain(unsigned char* arena, std::size_t leaf_bytes,
                                       const std::uint32_t* placement, std::size_t count,
                                       std::uint32_t keys_per_leaf) noexcept {
    bptree_leaf* prev = nullptr;
    bptree_leaf* first = nullptr;
    for (std::size_t j = 0; j < count; ++j) {
        auto* leaf = new (arena + std::size_t(placement[j]) * leaf_bytes) bptree_leaf{};
        leaf->count = keys_per_leaf;
        for (std::uint32_t k = 0; k < keys_per_leaf; ++k)
            leaf->keys()[k] = std::int32_t((j * keys_per_leaf + k) & 0x7fffffff);
        if (prev) prev->next = leaf; else first = leaf;
        prev = leaf;
    }
    return first;
}

}  // namespace weft::batch
