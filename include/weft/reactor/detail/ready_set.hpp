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
#include <type_traits>

namespace weft::reactors::detail {

/// Worker threads need lock-free 64-bit atomics (ready words, batch claim).
/// Where they are not (ARMv7-M: no 8-byte LDREX), the parallel paths fold
/// away instead of calling libatomic, which bare-metal builds do not link.
inline constexpr bool workers_supported = std::atomic_ref<std::uint64_t>::is_always_lock_free;

class ready_set {
public:
    /// One bit per rank. 64-bit words where workers may run (fewer words
    /// to scan, 64-bit atomics exist); native 32-bit words elsewhere, where
    /// a 64-bit word costs register pairs and a library call per
    /// countr_zero (ARMv7-M: __ctzdi2 on every reaction).
    using word = std::conditional_t<workers_supported, std::uint64_t, std::uint32_t>;
    static constexpr unsigned word_bits = sizeof(word) * 8;
    static constexpr unsigned word_shift = word_bits == 64 ? 6 : 5;
    static constexpr std::size_t words_for(std::size_t ranks) noexcept { return (ranks + word_bits - 1) / word_bits; }

    ready_set(word* words, std::size_t nwords) noexcept : w_(words), n_(nwords) {}
    /// Scan only the first `nwords` words (assembly: the words that hold a
    /// rank). The caller zeroes them; the storage starts uninitialised.
    void limit(std::size_t nwords) noexcept { n_ = nwords; }

    /// Executor thread, or any worker while `shared` (atomic OR).
    void mark(std::uint32_t rank, bool shared) noexcept {
        std::size_t w = rank >> word_shift;
        word bit = word{1} << (rank & (word_bits - 1));
        if (workers_supported && shared) {
            // relaxed: the batch barrier (acq_rel counter) orders this for
            // the thread that pops after the level is done.
            std::atomic_ref<word>(w_[w]).fetch_or(bit, std::memory_order_relaxed);
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

    /// Marks through a precomputed word and bit (see link). Same threads
    /// and ordering as mark().
    static void mark(word& w, word bit, bool shared) noexcept {
        // relaxed: as in mark() above.
        if (workers_supported && shared) std::atomic_ref<word>(w).fetch_or(bit, std::memory_order_relaxed);
        else w |= bit;
    }
    word* word_of(std::uint32_t rank) const noexcept { return &w_[rank >> word_shift]; }
    static word bit_of(std::uint32_t rank) noexcept { return word{1} << (rank & (word_bits - 1)); }

    /// Runs `run(table[rank])` for every marked rank in increasing order
    /// until none is left, including ranks that `run` marks (always
    /// higher), and clears the set. Returns how many ran. Scans from rank 0
    /// and leaves the cursor alone (single-thread path; the worker path
    /// sets it). Bits are not cleared one by one: each word is zeroed when
    /// its last rank has run, so the scan stores nothing per reaction; the
    /// word is reloaded after each `run` because `run` may mark.
    ///
    /// The next rank is tested first on its own (a chain or pipeline: a
    /// reaction whose reader has the next rank). Its entry then follows
    /// from the rank just run, not from the word the body has just written:
    /// the branch is predicted, so the next body starts without waiting
    /// for that store to reach the load (on the host, the bit scan and the
    /// entry's address were most of a reaction switch's dependent chain).
    /// The table pointer advances with the word, so an entry is its word's
    /// base plus the bit index (no rank arithmetic; on the board, no spill
    /// of the table across the call).
    template <class T, class F>
    std::uint32_t drain(T* table, F&& run) noexcept {
        std::uint32_t ran = 0;
        // Locals: `run` is an opaque call, after which members would be
        // reloaded. The word by pointer: an index kept across the calls
        // lived on the stack (GCC 12 -O3), a store-forwarded counter that
        // cost 3 ns per tag on the host.
        word* const end = w_ + n_;
        for (word* w = w_; w != end; ++w, table += word_bits) {
            word bits = *w;
            if (!bits) continue;
            unsigned b = unsigned(std::countr_zero(bits));
            for (;; ++ran) {
                run(table[b]);
                bits = *w >> b;  // bit 0: the rank just run
                if (bits & 2) {  // the next rank (none after bit word_bits - 1)
                    ++b;
                    continue;
                }
                bits >>= 1;
                if (!bits) break;
                b += 1 + unsigned(std::countr_zero(bits));
            }
            ++ran;
            *w = 0;
        }
        return ran;
    }

    /// Lowest marked rank (removed), or -1 when none.
    std::int64_t pop() noexcept {
        while (cursor_ < n_) {
            word& bits = w_[cursor_];
            if (bits) {
                unsigned b = unsigned(std::countr_zero(bits));
                bits &= bits - 1;
                return std::int64_t(cursor_ * word_bits + b);
            }
            ++cursor_;
        }
        return -1;
    }

    /// Lowest marked rank without removing it, or -1.
    std::int64_t peek() noexcept {
        while (cursor_ < n_) {
            if (word bits = w_[cursor_]) return std::int64_t(cursor_ * word_bits + unsigned(std::countr_zero(bits)));
            ++cursor_;
        }
        return -1;
    }

    bool empty() noexcept { return peek() < 0; }
    /// Scan again from `rank`'s word (after running ranks >= `rank`, which
    /// may have marked ranks the cursor had already passed).
    void rewind(std::uint32_t rank) noexcept { cursor_ = rank >> word_shift; }
    void reset_cursor() noexcept { cursor_ = 0; }

private:
    word* w_;
    std::size_t n_;
    std::size_t cursor_ = 0;
};

}  // namespace weft::reactors::detail
