// SPDX-License-Identifier: Apache-2.0
#pragma once
// with_timeout(op, 5ms) / with_deadline(op, t): bounds any abortable weft
// await (sleep, event, semaphore, mutex, split_phase, join, csp::sync(e)).
// If the time passes first, the inner await ends with errc::timeout and
// releases whatever it was queued on; otherwise the timer is disarmed.
//
//   if (auto s = co_await weft::with_timeout(sem.acquire(), 5ms); !s) ...
//
// To bound a whole child task, race it against a sleeping task in when_any.
#include <weft/core/detail/timer_heap.hpp>
#include <weft/core/executor.hpp>
#include <weft/core/time.hpp>

#include <coroutine>
#include <type_traits>
#include <utility>

namespace weft {

template <class Awaiter>
class timeout_operation : detail::timer_node {
public:
    timeout_operation(Awaiter inner, time_point deadline) noexcept
        : inner_(std::move(inner)), deadline_(deadline) {}
    timeout_operation(Awaiter inner, duration d) noexcept
        : inner_(std::move(inner)), relative_(true), delta_(bounded_delay(d)) {}

    bool await_ready() noexcept { return inner_.await_ready(); }

    template <class P>
    bool await_suspend(std::coroutine_handle<P> h) noexcept {
        using r = decltype(inner_.await_suspend(h));
        static_assert(std::is_void_v<r> || std::is_same_v<r, bool>,
                      "with_timeout needs a leaf awaiter; to bound a task, race it "
                      "against a sleeping task with when_any");
        ctl_ = &h.promise().control();
        executor& ex = ctl_->exec();
        time_point now = ex.now();
        // Saturated: the virtual clock can read above 2^62 ns (it jumps to
        // far timers), where `now + longest_delay` would wrap into the past.
        time_point t = relative_ ? later(now, delta_) : deadline_;
        // Armed before the inner wait starts, because the inner wait looks
        // at the timers: a split_phase sleeps in place only until the next
        // deadline (executor::idle_now()). If the inner await does not
        // suspend, await_resume disarms.
        // A deadline before the epoch is due like any past one (to_ns()
        // would read it as far future, -1 ns as none, and a split_phase
        // would sleep in place past it).
        deadline_ns = due_ns(t);
        fire = &on_fire;
        ex.arm(*this);
        if constexpr (std::is_void_v<r>) inner_.await_suspend(h);
        else if (!inner_.await_suspend(h)) return false;
        if (t <= now) {  // already late: end the wait right away
            ex.disarm(*this);
            ctl_->abort_wait(errc::timeout);
        }
        return true;
    }

    decltype(auto) await_resume() noexcept {
        if (ctl_) ctl_->exec().disarm(*this);
        return inner_.await_resume();
    }

private:
    static void on_fire(detail::timer_node* n) noexcept {
        static_cast<timeout_operation*>(n)->ctl_->abort_wait(errc::timeout);
    }

    Awaiter inner_;
    task_control* ctl_ = nullptr;
    time_point deadline_{};
    bool relative_ = false;
    duration delta_{};
};

/// Bounds `op` to `d` from the moment the task suspends.
template <class Awaiter>
timeout_operation<Awaiter> with_timeout(Awaiter op, duration d) noexcept {
    return {std::move(op), d};
}
/// Bounds `op` to the executor-clock instant `t`.
template <class Awaiter>
timeout_operation<Awaiter> with_deadline(Awaiter op, time_point t) noexcept {
    return {std::move(op), t};
}

}  // namespace weft
