// SPDX-License-Identifier: Apache-2.0
#pragma once
// The event queue: a binary min-heap of (tag, trigger, value slot) over an
// array whose capacity the application fixes (environment<Events, ...>).
// Ties on the tag are broken by insertion order, so runs are repeatable.
#include <weft/reactor/detail/nodes.hpp>

#include <cstddef>
#include <cstdint>

namespace weft::reactors::detail {

/// One pending event: `target` becomes present at `at` with value `slot`.
/// No member initialisers: the queue's storage is written before it is
/// read, and initialising it would cost a loop per environment.
struct event {
    tag at;
    element* target;
    std::uint32_t seq;
    std::uint16_t slot;
};

class event_queue {
public:
    event_queue(event* storage, std::size_t capacity) noexcept : e_(storage), cap_(capacity) {}

    bool empty() const noexcept { return n_ == 0; }
    bool full() const noexcept { return n_ == cap_; }
    std::size_t size() const noexcept { return n_; }
    std::size_t capacity() const noexcept { return cap_; }
    std::size_t peak() const noexcept { return peak_; }
    const event& top() const noexcept { return e_[0]; }
    event& at(std::size_t i) noexcept { return e_[i]; }

    /// Precondition: !full().
    void push(const tag& at, element* target, std::uint16_t slot) noexcept {
        std::size_t i = n_++;
        if (n_ > peak_) peak_ = n_;
        event ev{at, target, seq_++, slot};
        put(e_[sift_up(i, ev)], ev);
    }

    /// Removes the top.
    void drop_top() noexcept { remove_at(0); }

    /// Replaces the top with an event for the same target (timers): one
    /// sift instead of a pop and a push, and none when it is alone.
    void replace_top(tag at, std::uint16_t slot) noexcept {
        event& top = e_[0];
        top.at.time = at.time;
        top.at.microstep = at.microstep;
        top.seq = seq_++;
        top.slot = slot;
        if (n_ > 1) sift_down(0, top);
    }

    /// find()'s slot that matches any value slot.
    static constexpr std::uint16_t any_slot = 0xffff;
    /// Index of the pending event of `target` at `at` holding value slot
    /// `slot` (or any, any_slot), or size() if none. The slot too: after a
    /// history entry a resumed event can share its tag with a newer one of
    /// the same action.
    std::size_t find(const element* target, tag at, std::uint16_t slot) const noexcept {
        for (std::size_t i = 0; i < n_; ++i)
            if (e_[i].target == target && e_[i].at == at && (slot == any_slot || e_[i].slot == slot)) return i;
        return n_;
    }

    void remove_at(std::size_t i) noexcept {
        event last = e_[--n_];
        if (i == n_) return;
        // The moved element may need to go up or down (after going up it
        // stays: its children were below its new parent).
        sift_down(sift_up(i, last), last);
    }

    /// Removes every event for which `take(ev)` returns true (after handing it over).
    template <class F>
    void extract_if(F&& take) noexcept {
        std::size_t w = 0;
        for (std::size_t r = 0; r < n_; ++r)
            if (!take(e_[r])) e_[w++] = e_[r];
        n_ = w;
        for (std::size_t i = n_ / 2; i-- > 0;) sift_down(i, e_[i]);
    }

private:
    static bool before(const event& a, const event& b) noexcept {
        if (!(a.at == b.at)) return a.at < b.at;
        return std::int32_t(a.seq - b.seq) < 0;
    }
    // Moves the parents of hole `i` that `ev` goes before down one level;
    // returns where `ev` belongs (not stored). Shared by push and remove_at.
    [[gnu::noinline]] std::size_t sift_up(std::size_t i, const event& ev) noexcept {
        while (i > 0) {
            std::size_t p = (i - 1) / 2;
            if (!before(ev, e_[p])) break;
            e_[i] = e_[p];
            i = p;
        }
        return i;
    }
    // Out of line, taking a reference: each caller's copy of a 24-byte
    // event was ~30 B of code on a board; the copy is made once, here.
    [[gnu::noinline]] void sift_down(std::size_t i, const event& from) noexcept {
        event ev;  // `from` may be a slot that the sift overwrites
        put(ev, from);
        for (;;) {
            std::size_t c = 2 * i + 1;
            if (c >= n_) break;
            if (c + 1 < n_ && before(e_[c + 1], e_[c])) ++c;
            if (!before(e_[c], ev)) break;
            e_[i] = e_[c];
            i = c;
        }
        put(e_[i], ev);
    }
    // Field by field: a whole-struct copy of a local event is built with
    // narrow stores and read back with wide loads, which defeats store
    // forwarding (GCC 12 -O3: ~15 cycles per timer tag on x86-64).
    static void put(event& d, const event& s) noexcept {
        d.at.time = s.at.time;
        d.at.microstep = s.at.microstep;
        d.target = s.target;
        d.seq = s.seq;
        d.slot = s.slot;
    }

    event* e_;
    std::size_t cap_;
    std::size_t n_ = 0;
    std::size_t peak_ = 0;
    std::uint32_t seq_ = 0;
};

}  // namespace weft::reactors::detail
