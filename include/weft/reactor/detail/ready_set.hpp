// SPDX-License-Identifier: Apache-2.0
#pragma once
// The reactions to run at the current tag, as a bitmap over their ranks.
// Assembly sorts reactions by (level, inferred deadline, declaration), so
// "lowest set bit" is the next reaction to run, a reaction triggered many
// times in one tag is one bit (it runs once), and marking is O(1).
// Reactions only ever mark reactions of a higher level, so a forward cursor
// finds the next bit without rescanning.
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>

namespace weft::reactors::detail {

class ready_set {
public:
    ready_set(std::uint64_t* words, std::size_t nwords) noexcept : w_(words), n_(nwords) {}

    /// Executor thread, or any worker while `shared` (atomic OR).
    void mark(std::uint32_t rank, bool shared) noexcept {
        std::size_t w = rank >> 6;
        std::uint64_t bit = std::uint64_t{1} << (rank & 63);
        if (shared) {
            // relaxed: the batch barrier (acq_rel counter) orders this for
            // the thread that pops after the level is done.
            std::atomic_ref<std::uint64_t>(w_[w]).fetch_or(bit, std::memory_order_relaxed);
            // No cursor update: a batch only marks higher ranks than its
            // own, which are at or after the cursor.
        } else {
            w_[w] |= bit;
            if (w < cursor_) cursor_ = w;
        }
    }

    /// Lowest marked rank (removed), or -1 when none.
    std::int64_t pop() noexcept {
        while (cursor_ < n_) {
            std::uint64_t& word = w_[cursor_];
            if (word) {
                unsigned b = unsigned(std::countr_zero(word));
                word &= word - 1;
                return std::int64_t(cursor_ * 64 + b);
            }
            ++cursor_;
        }
        return -1;
    }

    /// Lowest marked rank without removing it, or -1.
    std::int64_t peek() noexcept {
        while (cursor_ < n_) {
            if (std::uint64_t word = w_[cursor_]) return std::int64_t(cursor_ * 64 + unsigned(std::countr_zero(word)));
            ++cursor_;
        }
        return -1;
    }

    bool empty() noexcept { return peek() < 0; }
    void reset_cursor() noexcept { cursor_ = 0; }

private:
    std::uint64_t* w_;
    std::size_t n_;
    std::size_t cursor_ = 0;
};

}  // namespace weft::reactors::detail
