// SPDX-License-Identifier: Apache-2.0
#pragma once
// An async mutex with priority inheritance. lock() suspends the task (not
// the thread) until the lock is handed to it; unlock() passes ownership
// directly to the highest-priority waiter, the oldest among equals.
//
// Priority inversion: a low-priority owner that waits (for a timer, a
// channel) while a high-priority task waits for its lock would otherwise
// be scheduled behind every medium-priority task. So while tasks wait for
// a mutex, its owner runs at the highest of their priorities, and so on
// along a chain of owners each waiting for the next one's mutex. When a
// waiter leaves (it got the lock, timed out or was cancelled), the owner
// falls back to what it still inherits, or to its own priority. An owner
// waiting in when_all / when_any passes its priority on to its children.
// A lock that would close a cycle of such waits (including locking a mutex
// one already holds, or one held by a parent waiting for the caller) fails
// at once with errc::cycle instead of deadlocking.
// The scheduler does not preempt: an owner that drops its priority in
// unlock() runs on until its next await. Executor thread only.
#include <weft/core/detail/task_group.hpp>
#include <weft/core/detail/wait_graph.hpp>
#include <weft/core/detail/waiter.hpp>
#include <weft/core/executor.hpp>
#include <weft/core/result.hpp>

#include <cstdint>

namespace weft {

namespace detail {
/// Stops the program: unlock() of a mutex nobody holds (an unlock too many,
/// or of the wrong mutex). The message names it, as for a task that ends
/// holding one; cold and out of line, no printf.
[[noreturn, gnu::noinline, gnu::cold]] inline void unlock_not_locked(const char* name) noexcept {
    fatal_error(error{errc::invalid, "mutex", name, 0, "unlock() of a mutex that is not locked"});
}
}  // namespace detail

class lock_guard;

// The lock_link base links the mutex into its executor's
// contended_locks() while tasks wait for it: those are the only mutexes
// an owner can inherit a priority through. The held_lock base links it
// into its owner's control block, whose end while holding it is fatal
// (reported with the mutex's name): the lock would stay owned by a task
// that no longer exists.
class mutex : detail::lock_link, detail::held_lock {
public:
    explicit mutex(const char* name = "mutex") noexcept {
        held_name = name;
        detail::lock_owner_edge.store(&owner_waited_for, std::memory_order_relaxed);
    }
    mutex(const mutex&) = delete;
    mutex& operator=(const mutex&) = delete;

    const char* name() const noexcept { return held_name; }
    bool locked() const noexcept { return locked_; }
    /// The task holding the lock; nullptr when free or taken by try_lock()
    /// (which does not know its caller: such an owner inherits nothing, and
    /// its own lock() of the mutex is not recognised as a deadlock).
    const task_control* owner() const noexcept { return owner_; }

    [[nodiscard]] bool try_lock() noexcept {
        if (locked_) return false;
        locked_ = true;
        return true;
    }
    /// Precondition: the caller holds the lock. Nobody waiting: O(1).
    void unlock() noexcept {
        if (!locked_) [[unlikely]] detail::unlock_not_locked(held_name);
        detail::list_node* n = waiters_.pop_front();
        if (owner_) let_go(*owner_);
        if (!n) {  // nobody waited, so nobody lent the owner a priority through this lock
            locked_ = false;
            owner_ = nullptr;
            return;
        }
        auto* next = static_cast<lock_operation*>(n);
        task_control* previous = owner_;
        take(*next->ctl);  // stays locked
        if (waiters_.empty()) uncontend(next->ctl->exec());
        next->grant();  // first: settle() must see it no longer waiting
        if (previous) settle(previous);
        settle(owner_);  // the remaining waiters now lend to the new owner
    }

    struct [[nodiscard("co_await it: it does nothing until awaited")]] lock_operation : detail::queued_waiter {
        mutex* m;
        std::uint32_t arrival = 0;  // keeps FIFO among equals when a waiter is requeued
        // Always suspends: the owner's control block is known only in
        // await_suspend, which declines to suspend when the lock is free.
        bool await_ready() const noexcept { return false; }
        template <class P>
        bool await_suspend(std::coroutine_handle<P> h) noexcept {
            ctl = &h.promise().control();
            return m->acquire_or_wait(*this, h);
        }
        // The reason is taken (take_status): awaited again after a
        // timeout, the awaiter reports a later hand-over as one, and the
        // task knows it holds the lock.
        // [[nodiscard]]: Clang then names a dropped lock (GCC 12 does not
        // warn about a co_await's discarded result).
        [[nodiscard("check it: an error means the lock is not held")]] status await_resume() noexcept {
            if (outcome == errc::cycle) {
                outcome = errc::ok;
                return error{errc::cycle, "mutex", m->held_name, 0,
                             m->owner_ == ctl ? "would deadlock (already held by this task)"
                                              : "would deadlock (held by a task that waits for this one)"};
            }
            return take_status("mutex", m->held_name);
        }
        static void on_abort(detail::wait_node* n, errc why) noexcept {
            auto* self = static_cast<lock_operation*>(n);
            mutex* mx = self->m;
            detail::intrusive_list::erase(*self);
            if (mx->waiters_.empty()) mx->uncontend(self->ctl->exec());
            self->outcome = why;
            self->ctl->wake();
            if (mx->owner_) settle(mx->owner_);  // it may have inherited from this waiter
        }
    };
    /// Awaitable: ok with the lock held; cancelled / timeout without it;
    /// cycle (naming the mutex) when waiting would deadlock.
    lock_operation lock() noexcept {
        lock_operation op{};
        op.m = this;
        return op;
    }

    /// lock() that gives the lock as a guard: `auto g = co_await
    /// m.scoped_lock(); if (!g) co_return g.err();` holds it until `g`
    /// goes out of scope; an error (as lock()'s) holds nothing. Bounded as
    /// lock() is: `with_timeout(m.scoped_lock(), 5ms)`.
    struct scoped_lock_operation;
    scoped_lock_operation scoped_lock() noexcept;

private:
    bool acquire_or_wait(lock_operation& op, std::coroutine_handle<> h) noexcept {
        task_control& c = *op.ctl;
        if (c.cancel_requested()) {  // also for a free lock: every await of a cancelled task ends so
            op.outcome = errc::cancelled;
            return false;
        }
        if (!locked_) {
            locked_ = true;
            take(c);
            return false;
        }
        if (detail::wait_reaches(owner_, c)) {  // the owner waits for c
            op.outcome = errc::cycle;
            return false;
        }
        op.abort = &lock_operation::on_abort;
        if (waiters_.empty()) {  // now contended
            detail::lock_link*& head = c.exec().contended_locks();
            next_contended = head;
            head = this;
        }
        op.arrival = arrivals_++;
        insert_by_priority(op);
        c.park(h, &op);
        if (owner_) settle(owner_);
        return true;
    }

    // Behind every waiter of a higher priority and every older one of the
    // same (a waiter whose priority changed keeps its age among equals).
    void insert_by_priority(lock_operation& op) noexcept {
        detail::list_node* at = waiters_.end();
        while (at->prev != waiters_.end() && comes_after(*static_cast<lock_operation*>(at->prev), op))
            at = at->prev;
        detail::intrusive_list::insert_before(*at, op);
    }
    static bool comes_after(const lock_operation& a, const lock_operation& b) noexcept {
        if (a.ctl->prio() != b.ctl->prio()) return a.ctl->prio() < b.ctl->prio();
        return std::int32_t(a.arrival - b.arrival) > 0;  // wraps safely
    }

    // The lock `t` waits for, if it waits for one.
    static lock_operation* waiting_for(const task_control& t) noexcept {
        detail::wait_node* w = t.current_wait();
        return w && w->abort == &lock_operation::on_abort ? static_cast<lock_operation*>(w) : nullptr;
    }

    // The wait-for graph's lock edge (detail/wait_graph.hpp).
    static const task_control* owner_waited_for(const task_control& t) noexcept {
        const lock_operation* w = waiting_for(t);
        return w ? w->m->owner_ : nullptr;
    }

    // The priority `t` should run at: its own, the highest waiter's of any
    // lock it holds, and, for a when_all / when_any child, its parent's.
    static priority inherited(const task_control& t) noexcept {
        priority p = t.base_prio();
        for (detail::lock_link* n = t.exec().contended_locks(); n; n = n->next_contended) {
            mutex* mx = static_cast<mutex*>(n);
            if (mx->owner_ != &t) continue;
            priority top = static_cast<lock_operation*>(mx->waiters_.front())->ctl->prio();
            if (top > p) p = top;
        }
        if (const task_control* parent = detail::task_group::parent_of(t))
            if (parent->prio() > p) p = parent->prio();
        return p;
    }

    // Gives `t` the priority it should run at now and passes a change on
    // to whatever `t` waits for: the owner of its lock (after moving `t`
    // among that lock's waiters) or its group's children. Walks the
    // contended locks once per task reached.
    static void settle(task_control* t) noexcept {
        while (t) {
            priority p = inherited(*t);
            if (p == t->prio()) return;
            const bool lowered = p < t->prio();
            t->exec().reprioritise(*t, p);
            if (lock_operation* w = waiting_for(*t)) {
                detail::intrusive_list::erase(*w);
                w->m->insert_by_priority(*w);
                t = w->m->owner_;
                continue;
            }
            // A lowered ready task goes to the front of its level, so
            // children lowered first to last would end up reversed (the
            // last one moved runs first): lowered last to first, children
            // still queued from their start keep argument order
            // (when_any's leftmost wins). Raised ones go to the back.
            if (const detail::task_group* g = detail::task_group::awaited_by(*t)) {
                const auto settle_child = [](task_control& k) { settle(&k); };
                if (lowered) g->for_each_running_child<true>(settle_child);
                else g->for_each_running_child(settle_child);
            }
            return;
        }
    }

    // Its last waiter left: out of the executor's list (a walk: the list
    // holds only mutexes with waiters).
    void uncontend(executor& ex) noexcept {
        for (detail::lock_link** p = &ex.contended_locks(); *p; p = &(*p)->next_contended)
            if (*p == this) {
                *p = next_contended;
                return;
            }
    }

    // Ownership and the owner's list of held locks change together.
    void take(task_control& c) noexcept {
        owner_ = &c;
        next_held = c.held_;
        c.held_ = this;
    }
    // Usually the owner's latest lock (locks are released in reverse
    // order), so the walk ends at once.
    void let_go(task_control& c) noexcept {
        for (detail::held_lock** p = &c.held_; *p; p = &(*p)->next_held)
            if (*p == this) {
                *p = next_held;
                return;
            }
    }

    bool locked_ = false;
    task_control* owner_ = nullptr;
    std::uint32_t arrivals_ = 0;
    detail::intrusive_list waiters_;  // highest priority first, FIFO among equals
};

/// Unlocks on scope exit: `auto g = lock_guard{m};` after a successful
/// lock() (it does not lock), or what `co_await m.scoped_lock()` gives.
class lock_guard {
public:
    explicit lock_guard(mutex& m) noexcept : m_(&m) {}
    lock_guard(lock_guard&& o) noexcept : m_(o.m_) { o.m_ = nullptr; }
    ~lock_guard() { if (m_) m_->unlock(); }
    lock_guard(const lock_guard&) = delete;
    lock_guard& operator=(const lock_guard&) = delete;

private:
    mutex* m_;
};

struct [[nodiscard("co_await it: it does nothing until awaited")]] mutex::scoped_lock_operation : lock_operation {
    // A discarded guard unlocks at the end of the statement: Clang says so
    // (GCC 12 does not warn about a co_await's discarded result).
    [[nodiscard("keep the guard: auto g = co_await m.scoped_lock(); a discarded one unlocks at once")]]
    result<lock_guard> await_resume() noexcept {
        status s = lock_operation::await_resume();
        if (!s) return s.err();
        return result<lock_guard>{std::in_place, *m};
    }
};

inline mutex::scoped_lock_operation mutex::scoped_lock() noexcept { return {lock()}; }

}  // namespace weft
