// SPDX-License-Identifier: Apache-2.0
#pragma once
// The reactions to run at the current tag, as a bitmap over their ranks.
// Assembly sorts reactions by (level, inferred deadline, declaration), so
// "lowest set bit" is the next reaction to run, a reaction triggered many
// times in one tag is one bit (it runs once), and marking is O(1).
// Reactions only ever mark reactions of a higher level, so a forward cursor
// finds the next bit without rescanning, and marking never moves it back.
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>

namespace weft::reactors::detail {

/// Worker threads need lock-free 64-bit atomics (ready words, batch claim).
/// Where they are not (ARMv7-M: no 8-byte LDREX), the parallel paths fold
/// away instead of calling libatomic, which bare-metal builds do not link.
inline constexpr bool workers_supported = std::atomic_ref<std::uint64_t>::is_always_lock_free;

class ready_set {
public:
    ready_set(std::uint64_t* words, std::size_t nwords) noexcept : w_(words), n_(nwords) {}

    /// Executor thread, or any worker while `shared` (atomic OR).
    void mark(std::uint32_t rank, bool shared) noexcept {
        std::size_t w = rank >> 6;
        std::uint64_t bit = std::uint64_t{1} << (rank & 63);
        if (workers_supported && shared) {
            // relaxed: the batch barrier (acq_rel counter) orders this for
            // the thread that pops after the level is done.
            std::atomic_ref<std::uint64_t>(w_[w]).fetch_or(bit, std::memory_order_relaxed);
            // No cursor update: a batch only marks ranks above its own,
            // and run_reactions rewinds to the batch's first rank after it.
        } else {
            // No cursor update either: the cursor is reset before a tag's
            // events mark anything, reactions mark only ranks above their
            // own, drain() scans with its own position and run_reactions
            // rewinds to a level's first rank after running it.
            w_[w] |= bit;
        }
    }

    /// Runs `run(rank)` for every marked rank in increasing order until
    /// none is left, including ranks that `run` marks (always higher), and
    /// clears the set. Returns how many ran. Bits are not cleared one by
    /// one: the ranks up to the last one run are masked off instead and
    /// the word is zeroed when done, so the scan stores nothing per
    /// reaction; each word is reloaded because `run` may mark.
    template <class F>
    std::uint64_t drain(F&& run) noexcept {
        std::uint64_t ran = 0;
        for (std::size_t i = cursor_; i < n_; ++i) {
            std::uint64_t done = 0;  // bits at or below the last rank run
            for (std::uint64_t word; (word = w_[i] & ~done) != 0; ++ran) {
                unsigned b = unsigned(std::countr_zero(word));
                done = b == 63 ? ~std::uint64_t{0} : (std::uint64_t{2} << b) - 1;
                run(std::uint32_t(i * 64 + b));
            }
            if (done) w_[i] = 0;
        }
        cursor_ = n_;
        return ran;
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
    /// Scan again from `rank`'s word (after running ranks >= `rank`, which
    /// may have marked ranks the cursor had already passed).
    void rewind(std::uint32_t rank) noexcept { cursor_ = rank >> 6; }
    void reset_cursor() noexcept { cursor_ = 0; }

private:
    std::uint64_t* w_;
    std::size_t n_;
    std::size_t cursor_ = 0;
};

}  // namespace weft::reactors::detail
