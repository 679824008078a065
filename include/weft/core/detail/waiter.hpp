// SPDX-License-Identifier: Apache-2.0
#pragma once
// The common shape of "a task waiting in a queue": event, semaphore and
// mutex awaiters derive from it. Aborting (cancel, timeout) unlinks the
// waiter in O(1) and wakes the task with the reason as its outcome.
#include <weft/core/detail/intrusive_list.hpp>
#include <weft/core/detail/wait_node.hpp>
#include <weft/core/executor.hpp>
#include <weft/core/task_control.hpp>

#include <coroutine>
#include <utility>

namespace weft::detail {

struct queued_waiter : list_node, wait_node {
    task_control* ctl = nullptr;
    errc outcome = errc::ok;

    /// Parks the task in `q`; false (do not suspend) if already cancelled,
    /// or if `ready()` (tested after that) granted the wait at once.
    template <class P, class Ready>
    bool enqueue_unless(std::coroutine_handle<P> h, intrusive_list& q, Ready ready) noexcept {
        ctl = &h.promise().control();
        // First: every await of a cancelled task ends cancelled, even one
        // that could complete without waiting.
        if (ctl->cancel_requested()) { outcome = errc::cancelled; return false; }
        if (ready()) return false;
        abort = &on_abort;
        q.push_back(*this);
        ctl->park(h, this);
        return true;
    }
    template <class P>
    bool enqueue(std::coroutine_handle<P> h, intrusive_list& q) noexcept {
        return enqueue_unless(h, q, [] { return false; });
    }
    /// What the await yields: ok, or why it ended early (cancelled,
    /// timeout), naming the object waited on. Takes the reason, so that
    /// the awaiter awaited again (a bound retried in a loop) reports that
    /// await's outcome, not an earlier timeout. Test `outcome` first where
    /// a granted wait must not read the object (it may be gone).
    status take_status(const char* kind, const char* name) noexcept {
        if (outcome == errc::ok) return {};
        return error{std::exchange(outcome, errc::ok), kind, name, 0, nullptr};
    }
    /// Grants the wait (called by the object being waited on).
    void grant() noexcept { ctl->wake(); }

    static void on_abort(wait_node* w, errc why) noexcept {
        auto* self = static_cast<queued_waiter*>(w);
        if (self->linked()) intrusive_list::erase(*self);
        self->outcome = why;
        self->ctl->wake();
    }
};

}  // namespace weft::detail
