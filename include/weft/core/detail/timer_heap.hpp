// SPDX-License-Identifier: Apache-2.0
#pragma once
// Intrusive pairing heap of timers keyed by deadline: O(1) insert and
// min, O(log n) amortised pop and erase. Nodes live in awaiters, so a
// sleeping task costs no memory outside its own frame.
#include <cstdint>

namespace weft::detail {

struct timer_node {
    std::uint64_t deadline_ns = 0;
    /// Called on the executor when the deadline has passed.
    void (*fire)(timer_node* self) noexcept = nullptr;
    timer_node* child = nullptr;
    timer_node* sibling = nullptr;
    // The parent if leftmost child, else the left sibling; the root points
    // to itself, so that a node is armed exactly when this is set (no flag
    // of its own: see seq).
    timer_node* prev = nullptr;
    // Arming sequence: equal deadlines fire in the order they were armed,
    // which keeps runs deterministic. 64 bits, because a 32-bit sequence
    // compared modulo 2^32 put a timer armed 2^31 arms ago (a watchdog, a
    // far sleep_until) behind a later one: hours at 100 000 sleeps a
    // second. It takes the place of the old 32-bit sequence and armed
    // flag, so the node is no larger.
    std::uint64_t seq = 0;
    bool armed() const noexcept { return prev != nullptr; }
};

class timer_heap {
public:
    [[gnu::always_inline]] bool empty() const noexcept { return root_ == nullptr; }
    timer_node* top() const noexcept { return root_; }
    std::uint64_t next_deadline() const noexcept {
        return root_ ? root_->deadline_ns : ~std::uint64_t{0};
    }
    /// Tests: arm as if `n` timers had been armed and fired meanwhile.
    void skip_sequence(std::uint64_t n) noexcept { seq_ += n; }

    void push(timer_node& n) noexcept {
        n.child = n.sibling = nullptr;
        n.seq = seq_++;
        root_ = root_ ? meld(root_, &n) : &n;
        root_->prev = root_;
    }

    timer_node* pop() noexcept {
        timer_node* r = root_;
        if (!r) return nullptr;
        root_ = merge_pairs(r->child);
        if (root_) root_->prev = root_;
        r->prev = nullptr;  // disarmed (a root has no sibling; push() clears child)
        return r;
    }

    /// Removes n if armed; a no-op otherwise (so abort paths can call it blindly).
    void erase(timer_node& n) noexcept {
        if (!n.armed()) return;
        if (&n == root_) { pop(); return; }
        // Detach n's subtree from its parent or left sibling.
        if (n.prev->child == &n) n.prev->child = n.sibling;
        else n.prev->sibling = n.sibling;
        if (n.sibling) n.sibling->prev = n.prev;
        n.sibling = n.prev = nullptr;
        timer_node* sub = merge_pairs(n.child);
        if (sub) { root_ = meld(root_, sub); root_->prev = root_; }
    }

private:
    static bool before(const timer_node* a, const timer_node* b) noexcept {
        if (a->deadline_ns != b->deadline_ns) return a->deadline_ns < b->deadline_ns;
        return a->seq < b->seq;
    }
    // Makes the later root the leftmost child of the earlier one.
    static timer_node* meld(timer_node* a, timer_node* b) noexcept {
        if (before(b, a)) { timer_node* t = a; a = b; b = t; }
        b->sibling = a->child;
        if (a->child) a->child->prev = b;
        b->prev = a;
        a->child = b;
        a->sibling = nullptr;
        return a;
    }
    // Two-pass pairing, iterative so that deep sibling lists use no stack.
    static timer_node* merge_pairs(timer_node* first) noexcept {
        if (!first) return nullptr;
        timer_node* paired = nullptr;  // pairs, linked through sibling (reversed)
        while (first) {
            timer_node* a = first;
            timer_node* b = a->sibling;
            if (!b) { a->sibling = paired; a->prev = nullptr; paired = a; break; }
            first = b->sibling;
            a->prev = b->prev = nullptr;  // meld() links the loser, not the winner
            timer_node* m = meld(a, b);
            m->sibling = paired;
            paired = m;
        }
        timer_node* result = paired;
        paired = paired->sibling;
        result->sibling = nullptr;
        while (paired) {
            timer_node* next = paired->sibling;  // meld() rewrites it; prev is clear
            result = meld(result, paired);
            paired = next;
        }
        return result;
    }

    timer_node* root_ = nullptr;
    std::uint64_t seq_ = 0;
};

}  // namespace weft::detail
