// SPDX-License-Identifier: Apache-2.0
#pragma once
// The interrupt-safe hand-off from interrupt handlers (and, on the host,
// foreign threads) to the executor.
//
// An irq_node lives in the object that will be completed (a split_phase, a
// driver, a physical action). post() links it onto a lock-free intrusive
// stack with one compare-and-swap; the executor takes the whole stack with
// one exchange, restores arrival order and runs each node's handler on its
// own thread. The queue is bounded by construction: a node is either queued
// once or not at all, so an interrupt flood can never overflow memory; a
// post of an already-queued node returns false (the ISR learns that its
// previous event has not been consumed yet, nothing is lost silently).
#include <weft/core/detail/isr_atomic.hpp>
#include <weft/core/result.hpp>

#include <cstdint>

namespace weft {

/// A unit of interrupt-to-executor work. `handler` runs on the executor.
/// There is no default: a node without a handler would be found out only
/// when an interrupt posts it, as a jump to address 0 in the executor.
struct irq_node {
    explicit irq_node(void (*h)(irq_node*) noexcept) noexcept : handler(h) {}
    void (*handler)(irq_node*) noexcept;
    irq_node* next = nullptr;
    detail::isr_atomic<bool> queued{false};
};

/// Stops the program, naming the driver ("weft: button 'but0': already
/// connected (...)"): a driver that owns one irq_node was attached a
/// second time (csp::connect() before the first connection was closed).
/// Both connections would share its node, and the first would silently
/// stop being woken. Drivers call it from attach() (weft/csp/bridge.hpp).
[[noreturn, gnu::noinline, gnu::cold]] inline void attached_twice(const char* kind, const char* name) noexcept {
    detail::fatal_error(
        error{errc::busy, kind, name, 0, "already connected (close the first connection before connecting it again)"});
}

/// Multi-producer (ISRs, threads), single-consumer (the executor) queue.
class interrupt_queue {
public:
    /// Interrupt-safe (not from an NMI: detail/isr_atomic.hpp), lock-free,
    /// does not allocate. Returns false if the node is already queued (its
    /// previous post is still pending).
    bool post(irq_node& n) noexcept {
        // acq_rel: acquire so that a node we re-post after the executor
        // handled it sees the executor's writes; release publishes ours.
        if (n.queued.exchange(true, std::memory_order_acq_rel)) return false;
        irq_node* head = head_.load(std::memory_order_relaxed);
        do {
            n.next = head;
            // release: the consumer's acquire exchange must see n.next and
            // whatever the producer wrote into the enclosing object.
        } while (!head_.compare_exchange_weak(head, &n, std::memory_order_release,
                                              std::memory_order_relaxed));
        return true;
    }

    /// Like post(), for an owner whose own state machine guarantees that
    /// `n` is never queued twice (split_phase): skips the `queued` flag,
    /// i.e. one compare-and-swap loop instead of an exchange and the loop.
    /// Interrupt-safe as post().
    void push(irq_node& n) noexcept {
        irq_node* head = head_.load(std::memory_order_relaxed);
        do {
            n.next = head;
            // release: as in post().
        } while (!head_.compare_exchange_weak(head, &n, std::memory_order_release,
                                              std::memory_order_relaxed));
    }

    /// Cheap check for the executor's loop (no ordering needed: a miss is
    /// caught at the next check, and the poster also notifies the waker).
    [[gnu::always_inline]] bool maybe_pending() const noexcept { return pending_bits() != 0; }
    /// maybe_pending() as a word, zero when nothing is queued: for tests
    /// folded into one branch.
    [[gnu::always_inline]] std::uintptr_t pending_bits() const noexcept {
        return reinterpret_cast<std::uintptr_t>(head_.load(std::memory_order_relaxed));
    }

    /// Executor only: runs the handlers of every queued node, oldest first.
    /// Returns how many ran.
    unsigned drain() noexcept {
        // acquire: pairs with the release CAS in post().
        irq_node* n = head_.exchange(nullptr, std::memory_order_acquire);
        irq_node* fifo = n;
        // A lone node (the usual case: one interrupt per wake-up) needs no
        // reversal.
        if (n && n->next) for (fifo = nullptr; n;) {  // reverse LIFO into arrival order
            irq_node* next = n->next;
            n->next = fifo;
            fifo = n;
            n = next;
        }
        unsigned count = 0;
        // The cursor is a member so that a handler which destroys the owner
        // of a later node (withdraw) can unlink it from the batch too.
        draining_ = fifo;
        while (irq_node* cur = draining_) {
            draining_ = cur->next;
            // release: a re-post from an ISR after this point is legal and
            // must see that we are done reading cur->next. Where posters
            // run on other cores, an exchange: a post refused because cur
            // was still queued does not post again, so the handler must
            // see what that poster published, and a plain store lets the
            // handler's loads pass it (store buffers, on x86 and Arm
            // alike): its data would then wait for the next post. The
            // exchange reads the refused post's `true` and acquires its
            // writes. One core: the handler's loads follow in program order.
            if constexpr (port::single_core) cur->queued.store(false, std::memory_order_release);
            else (void)cur->queued.exchange(false, std::memory_order_acq_rel);
            cur->handler(cur);
            ++count;
        }
        return count;
    }

    /// Executor only, from a handler run by drain(): true if no node of
    /// the batch is left to run after it.
    bool batch_done() const noexcept { return draining_ == nullptr; }

    /// Executor only: takes `n` out of the rest of the batch drain() is
    /// running, if it is there (its handler does not run in this batch).
    /// Posters may be active: only the executor touches the batch. True if
    /// it was there.
    bool leave_batch(irq_node& n) noexcept {
        if (!unlink(draining_, n)) return false;
        n.queued.store(false, std::memory_order_release);
        return true;
    }

    /// Executor only, and only after the node's poster can no longer post
    /// it (the driver is detached, the ISR disabled): makes sure `n` is not
    /// queued, so that its owner may be destroyed. Its handler does not run.
    /// Other nodes keep their order. Returns true if `n` was queued.
    bool withdraw(irq_node& n) noexcept {
        if (leave_batch(n)) return true;
        if (!n.queued.load(std::memory_order_acquire)) return false;
        // Take the whole stack (newest first), drop n, and put the rest back
        // *under* anything posted meanwhile: producers only ever replace the
        // head, so the tail of what they pushed is ours to extend.
        irq_node* rest = head_.exchange(nullptr, std::memory_order_acquire);
        bool found = unlink(rest, n);
        n.queued.store(false, std::memory_order_release);
        if (rest) {
            irq_node* top = nullptr;
            while (!head_.compare_exchange_weak(top, rest, std::memory_order_release,
                                                std::memory_order_acquire)) {
                if (top) {  // newer posts arrived: hang the older ones below them
                    irq_node* last = top;
                    while (last->next) last = last->next;
                    last->next = rest;
                    break;
                }
            }
        }
        return found;
    }

private:
    static bool unlink(irq_node*& list, irq_node& n) noexcept {
        for (irq_node** p = &list; *p; p = &(*p)->next) {
            if (*p == &n) {
                *p = n.next;
                return true;
            }
        }
        return false;
    }

    detail::isr_atomic<irq_node*> head_{nullptr};
    irq_node* draining_ = nullptr;  // the rest of the batch drain() is running
};

}  // namespace weft
