// SPDX-License-Identifier: Apache-2.0
#pragma once
// The state one synchronisation (one `co_await event`) shares with every
// offer it leaves on channels, and the offer itself.
//
// A sync runs in three steps (numbers cited in the code):
//
//   bind ──(1)──> poll every leaf ──(2) one is ready──> committed (no suspension)
//                        │
//                        └──(3) none ready──> offer every leaf, park
//                                               │
//         (4) a partner / timer / cancel commits one leaf: every other offer
//             is withdrawn at once, then the owner is completed (task woken,
//             or a driver connection pumped)
//
// Offers live inside the waiting awaiter (inside the coroutine frame):
// nothing is allocated. Everything here runs on the executor thread.
#include <weft/core/detail/wait_node.hpp>
#include <weft/core/executor.hpp>
#include <weft/core/result.hpp>
#include <weft/core/task_control.hpp>

#include <atomic>
#include <cstdint>
#include <new>

namespace weft::csp::detail {

using leaf_index = std::uint16_t;
inline constexpr leaf_index no_leaf = 0xffff;
inline constexpr std::uint64_t no_time = ~std::uint64_t{0};

/// One synchronisation in progress. The root awaiter (or a driver
/// connection) derives from it.
struct sync_state : weft::detail::wait_node {
    sync_state() noexcept
        : complete(nullptr), ctl(nullptr), winner(no_leaf), live(0), status(errc::ok) {}
    /// For a direct send or receive (direct_wait): only what a commit or an
    /// abort reads is set; `winner` and `status` are written before either
    /// is read (mark, on_abort), and the choice fields are never read.
    sync_state(void (*on_abort)(wait_node*, errc) noexcept, void (*on_complete)(sync_state*) noexcept,
               task_control* c) noexcept
        : wait_node{on_abort}, complete(on_complete), ctl(c) {}

    /// (4) Called after a partner committed a leaf of this sync: withdraws
    /// the other offers and completes the owner.
    void (*complete)(sync_state* self) noexcept;
    task_control* ctl;    ///< waiting task; nullptr for connections
    leaf_index winner;    ///< committed leaf
    leaf_index live;      ///< leaves that may still commit (windows)
    errc status;          ///< outcome of the committed leaf / of the sync

    bool committed() const noexcept { return winner != no_leaf; }
    /// (2) Marks `leaf` as the winner during the owner's own poll.
    void mark(leaf_index leaf, errc st = errc::ok) noexcept {
        winner = leaf;
        status = st;
    }
    /// (4) A partner commits `leaf` of this (parked) sync.
    void commit(leaf_index leaf, errc st = errc::ok) noexcept {
        mark(leaf, st);
        complete(this);
    }
    /// Ends a parked sync with no winner (timeout of every window).
    void fail(errc st) noexcept {
        status = st;
        complete(this);
    }
    time_point now() const noexcept { return ctl->exec().now(); }
};

/// The links of an offer queue. The queue's sentinel is only this, so a
/// channel carries two pointers per queue rather than two whole offers
/// (channels in arrays, as actors' mailboxes, then share cache lines).
struct offer_link {
    offer_link* prev = nullptr;
    offer_link* next = nullptr;
};

/// An offer left on a channel's queue by a parked sync: "this task sends
/// *value" or "this task receives into *value".
struct offer : offer_link {
    sync_state* owner = nullptr;
    void* value = nullptr;  ///< T* (send) or value_slot<T>* (recv)
    leaf_index leaf = 0;
    bool windowed = false;  ///< a timed_offer whose window partners check

    /// False if the offer's window has closed (the timer that withdraws it
    /// has not run yet): a partner must not match it.
    inline bool eligible() const noexcept;
    bool linked() const noexcept { return prev != nullptr; }
    /// Unlinks the offer; a no-op if it is not queued.
    void withdraw() noexcept {
        if (!prev) return;
        prev->next = next;
        next->prev = prev;
        prev = next = nullptr;
    }
};

/// The offer of a leaf inside a window (window.hpp): the window's end
/// travels with it. Only the general sync's leaves can be windowed, so the
/// direct send and receive do without these 8 bytes.
struct timed_offer : offer {
    std::uint64_t latest_ns = no_time;  ///< window end; partners skip late offers
    /// Narrows the window to end at `t` at the latest.
    void limit(std::uint64_t t) noexcept {
        windowed = true;
        if (t < latest_ns) latest_ns = t;
    }
};

inline bool offer::eligible() const noexcept {
    return !windowed || to_ns(owner->now()) < static_cast<const timed_offer*>(this)->latest_ns;
}

/// Storage for one T that its owner constructs and destroys (a receive's
/// slot: a partner moves the value in; whether it holds one is known from
/// the sync's outcome, so no flag of its own).
template <class T>
class value_slot {
public:
    value_slot() noexcept {}
    void* raw() noexcept { return bytes_; }
    T* get() noexcept { return std::launder(reinterpret_cast<T*>(bytes_)); }
    void destroy() noexcept { get()->~T(); }

private:
    alignas(T) unsigned char bytes_[sizeof(T)];
};

/// What a direct send or receive (send_operation, recv_operation) needs
/// while its task waits in a channel's offer queue: the sync's completion
/// hooks and the one offer. Built (by build()) only then, so that a send or
/// receive that completes at once, or waits as a first receiver, writes
/// none of it. Its outcome goes where the awaiter keeps every other one
/// (`out`), so that the awaiter's resume reads one byte whichever way it
/// waited.
struct direct_wait : sync_state {
    direct_wait(task_control& c, void* value, errc* out) noexcept
        : sync_state(&on_abort, &on_complete, &c), out_(out) {
        o.owner = this;
        o.value = value;
    }
    /// (3) Builds the state in `storage` with the offer of `value` (the sent
    /// value, or the receive's slot); the caller queues the offer and parks
    /// the task on the result. Out of line: inlined, GCC 12 loads the two
    /// hooks' addresses at the entry of every resume of the coroutine
    /// (five instructions), although few sends or receives wait this way.
    [[gnu::noinline]] static direct_wait& build(void* storage, task_control& c, void* value, errc* out) noexcept {
        return *::new (storage) direct_wait(c, value, out);
    }
    offer o;

private:
    // (4) The partner has already unlinked the offer and moved the value.
    static void on_complete(sync_state* s) noexcept {
        auto* self = static_cast<direct_wait*>(s);
        *self->out_ = self->status;
        self->ctl->wake();
    }
    // Cancellation or with_timeout: the task is parked, so the offer is queued.
    static void on_abort(weft::detail::wait_node* w, errc why) noexcept {
        auto* self = static_cast<direct_wait*>(static_cast<sync_state*>(w));
        *self->out_ = why;
        self->o.withdraw();
        self->ctl->wake();
    }
    errc* out_;
};

/// A direct receive that waits on a channel ahead of every queued offer
/// (channel.hpp, "The first receiver and the first sender"): the channel
/// keeps a pointer to it and to its task instead of queueing an offer, and
/// the next value sent moves straight into `slot`. Lives in the receive's
/// awaiter (recv_operation), which derives from it.
template <class T>
struct first_receiver : weft::detail::wait_node {
    errc status;         ///< ok (a value is in slot), closed, or an abort's reason
    value_slot<T> slot;  ///< also the slot of the receive's offer, if it queues one
};

/// The same for a direct send on a rendezvous (send_operation derives from
/// it): the channel keeps a pointer to it and to its task; the next
/// receive moves `*value` out and wakes the task.
template <class T>
struct first_sender : weft::detail::wait_node {
    errc status;  ///< ok (the value was taken), closed, or an abort's reason
                  ///< (send_operation keeps every outcome here)
    T* value;     ///< the value sent (the send event's)
};

/// Storage for a direct_wait that is built only when a direct send or
/// receive waits behind others. A base class, so that a derived awaiter can
/// put it before the fields it touches every time.
struct offer_wait_storage {
    offer_wait_storage() noexcept {}
    union {
        direct_wait wait_;
    };
};

/// FIFO of offers with a sentinel. Like core's intrusive_list, plus the
/// iteration a channel needs to skip offers whose window has closed.
class offer_queue {
public:
    offer_queue() noexcept { head_.prev = head_.next = &head_; }
    offer_queue(const offer_queue&) = delete;
    offer_queue& operator=(const offer_queue&) = delete;

    bool empty() const noexcept { return head_.next == &head_; }
    void push_back(offer& o) noexcept {
        o.prev = head_.prev;
        o.next = &head_;
        head_.prev->next = &o;
        head_.prev = &o;
    }
    /// Unlinks and returns the oldest offer that may still commit and is
    /// not one of `self`'s (the sync asking, if any), or nullptr.
    offer* take_eligible(const sync_state* self = nullptr) noexcept {
        // Inline fast path: every buffered send/recv asks, and the answer
        // is usually "nobody waits" or "the oldest, which has no window
        // and is someone else's"; the scan stays out of line.
        if (empty()) return nullptr;
        offer* o = first();
        if (o->windowed || o->owner == self) return take_scanning(o, self);
        o->withdraw();
        return o;
    }
    offer* pop_front() noexcept {
        if (empty()) return nullptr;
        offer* o = first();
        o->withdraw();
        return o;
    }

private:
    // Every link but the sentinel belongs to an offer.
    offer* first() noexcept { return static_cast<offer*>(head_.next); }
    [[gnu::noinline]] offer* take_scanning(offer* o, const sync_state* self) noexcept {
        for (offer_link* l = o; l != &head_; l = l->next) {
            auto* c = static_cast<offer*>(l);
            if (c->owner != self && c->eligible()) {
                c->withdraw();
                return c;
            }
        }
        return nullptr;
    }

    offer_link head_;
};

/// Start index in [0, n) for choose's poll: the high bits of a Weyl
/// sequence (a 32-bit state advanced by 2^32 / golden ratio per poll). A
/// counter advanced by one, as this was, starves branches when chooses
/// alternate: with two 2-way chooses per loop iteration each one always
/// got the same start. Whatever the period p of the alternation, one
/// choose sees the state advance by p times the step, again an irrational
/// fraction of the range, so its starts are spread evenly over [0, n).
/// Cheaper than random starts on the host (a random start made the poll's
/// branches unpredictable: choose_8 +25 % with GCC, +32 % with Clang).
/// Shared by all executors; lost updates between threads are harmless
/// (any start is fair), so a relaxed load and store suffice.
inline unsigned choose_start(unsigned n) noexcept {
    static std::atomic<std::uint32_t> state{0x9e3779b9u};
    std::uint32_t x = state.load(std::memory_order_relaxed) + 0x9e3779b9u;
    state.store(x, std::memory_order_relaxed);
    return unsigned((std::uint64_t(x) * n) >> 32);
}

}  // namespace weft::csp::detail
