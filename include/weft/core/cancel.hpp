// SPDX-License-Identifier: Apache-2.0
#pragma once
// Observing cancellation from inside a task.
//
//   if (co_await weft::cancelled()) co_return;    // poll, never suspends
//   co_await weft::until_cancelled();             // park until cancelled
//
// Cancellation is requested with join_handle::cancel(), by when_any for its
// losers, or by task_control::cancel(). It ends the task's current await
// with errc::cancelled and makes every later await end the same way; the
// task decides how to unwind.
#include <weft/core/detail/wait_node.hpp>
#include <weft/core/result.hpp>
#include <weft/core/task_control.hpp>

#include <coroutine>

namespace weft {

/// Awaitable yielding true if the task has been asked to cancel.
struct [[nodiscard("co_await it: it does nothing until awaited")]] cancelled_query {
    bool flag = false;
    bool await_ready() const noexcept { return false; }
    template <class P>
    bool await_suspend(std::coroutine_handle<P> h) noexcept {
        flag = h.promise().control().cancel_requested();
        return false;  // never actually suspends
    }
    bool await_resume() const noexcept { return flag; }
};
inline cancelled_query cancelled() noexcept { return {}; }

/// Awaitable that completes (with errc::cancelled) only when the task is
/// cancelled; with with_timeout it ends with errc::timeout instead.
struct [[nodiscard("co_await it: it does nothing until awaited")]] until_cancelled_operation : detail::wait_node {
    task_control* ctl = nullptr;
    errc outcome = errc::cancelled;
    bool await_ready() const noexcept { return false; }
    template <class P>
    bool await_suspend(std::coroutine_handle<P> h) noexcept {
        ctl = &h.promise().control();
        outcome = errc::cancelled;  // not an earlier await's timeout
        if (ctl->cancel_requested()) return false;
        abort = [](detail::wait_node* w, errc why) noexcept {
            auto* self = static_cast<until_cancelled_operation*>(w);
            self->outcome = why;
            self->ctl->wake();
        };
        ctl->park(h, this);
        return true;
    }
    status await_resume() const noexcept { return status{outcome}; }
};
inline until_cancelled_operation until_cancelled() noexcept { return {}; }

}  // namespace weft
