// SPDX-License-Identifier: Apache-2.0
#pragma once
// Doubly linked intrusive list: waiters of events, semaphores and mutexes.
// A node lives inside an awaiter (inside a coroutine frame); linking never
// allocates and unlinking is O(1), which cancellation needs. Awaiters
// derive from list_node, so a node converts back with static_cast.
namespace weft::detail {

struct list_node {
    list_node* prev = nullptr;
    list_node* next = nullptr;
    bool linked() const noexcept { return prev != nullptr; }
};

/// FIFO of list_nodes with a sentinel; O(1) push, pop and erase.
class intrusive_list {
public:
    intrusive_list() noexcept { head_.prev = head_.next = &head_; }
    intrusive_list(const intrusive_list&) = delete;
    intrusive_list& operator=(const intrusive_list&) = delete;

    bool empty() const noexcept { return head_.next == &head_; }
    void push_back(list_node& n) noexcept { insert_before(head_, n); }
    /// The sentinel: end of a walk, and the position push_back inserts before.
    list_node* end() noexcept { return &head_; }
    /// Links `n` in front of `pos` (a linked node or end()).
    static void insert_before(list_node& pos, list_node& n) noexcept {
        n.prev = pos.prev;
        n.next = &pos;
        pos.prev->next = &n;
        pos.prev = &n;
    }
    list_node* pop_front() noexcept {
        if (empty()) return nullptr;
        list_node* n = head_.next;
        erase(*n);
        return n;
    }
    list_node* front() noexcept { return empty() ? nullptr : head_.next; }
    static void erase(list_node& n) noexcept {
        n.prev->next = n.next;
        n.next->prev = n.prev;
        n.prev = n.next = nullptr;
    }

private:
    list_node head_;
};

}  // namespace weft::detail
