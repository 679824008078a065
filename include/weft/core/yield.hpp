// SPDX-License-Identifier: Apache-2.0
#pragma once
// co_await weft::yield(): let every other ready task of the same (or a
// higher) priority run, then continue. Yields `cancelled` if the task has
// been cancelled (it still continues; cancellation is cooperative).
#include <weft/core/detail/tail_calls.hpp>
#include <weft/core/executor.hpp>
#include <weft/core/result.hpp>

#include <coroutine>

namespace weft {

struct [[nodiscard("co_await it: it does nothing until awaited")]] yield_operation {
    task_control* ctl = nullptr;  // set by await_suspend, which always runs
    bool await_ready() const noexcept { return false; }
    // Forced inline, as send and recv are: Clang 14 -Os kept it out of
    // line, a call, a push and a pop per switch (44 -> 35 instructions on
    // the board); GCC -Os does too in a program with many yields (the
    // board's core_test: 64 B more flash inline).
    template <class P>
    [[gnu::always_inline]] std::coroutine_handle<> await_suspend(std::coroutine_handle<P> h) noexcept {
        task_control& c = h.promise().control();
        ctl = &c;
        // park(h) without clearing wait_: a running task has none (every
        // wake clears it, and an await that does not suspend leaves none).
#ifndef NDEBUG
        WEFT_ASSERT(c.current_wait() == nullptr, "yield: the running task still has a wait node");
#endif
        c.resume_point_ = h;
        if constexpr (!detail::tail_calls) {
            // The direct switch would nest one call per yield here: the
            // next task is picked by run() instead.
            c.executor_->schedule(c);
            return std::noop_coroutine();
        }
        return c.executor_->yield_from(c);  // (4): to the back of its level
    }
    // Cancellation is read on resumption: a cancel() that arrived while the
    // task waited in the ready queue is reported by this very yield.
    status await_resume() const noexcept {
        return ctl->cancel_requested() ? status{errc::cancelled} : status{};
    }
};

/// Awaitable; does not allocate.
inline yield_operation yield() noexcept { return {}; }

}  // namespace weft
