// SPDX-License-Identifier: Apache-2.0
#pragma once
// with_timeout(op, 5ms) / with_deadline(op, t): bounds any abortable weft
// await (sleep, event, semaphore, mutex, split_phase, join, csp::sync(e)).
// If the time passes first, the inner await ends with errc::timeout and
// releases whatever it was queued on; otherwise the timer is disarmed.
//
//   if (auto s = co_await weft::with_timeout(sem.acquire(), 5ms); !s) ...
//
// A task is bounded too: it runs as a child of the awaiting task (as in a
// when_any of one), and if the time passes first it is cancelled and
// awaited, so whatever it held is released before the await returns:
//
//   result<int> v = co_await weft::with_timeout(read_sensor(), 50ms);
#include <weft/core/detail/timer_heap.hpp>
#include <weft/core/executor.hpp>
#include <weft/core/time.hpp>
#include <weft/core/when_any.hpp>

#include <coroutine>
#include <type_traits>
#include <utility>

namespace weft {

template <class Awaiter>
class [[nodiscard("co_await it: it does nothing until awaited")]] timeout_operation : detail::timer_node {
public:
    timeout_operation(Awaiter inner, time_point deadline) noexcept
        : inner_(std::move(inner)), deadline_(deadline) {}
    timeout_operation(Awaiter inner, duration d) noexcept
        : inner_(std::move(inner)), relative_(true), delta_(bounded_delay(d)) {}

    bool await_ready() noexcept { return inner_.await_ready(); }

    template <class P>
    bool await_suspend(std::coroutine_handle<P> h) noexcept {
        using r = decltype(inner_.await_suspend(h));
        static_assert((std::is_void_v<r> || std::is_same_v<r, bool>) && !requires { Awaiter::awaits_a_task; },
                      "with_timeout bounds an abortable await or a task<T> (the task itself, not its "
                      "awaiter); wrap other awaiters in a task");
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

/// A task<T> under a bound: yields awaited_t<T> (result<T>, status for
/// task<void>) like `co_await` of the task, or errc::timeout if the bound
/// passed first (errc::cancelled if the awaiting task was cancelled); the
/// child then saw `cancelled` at its await and has ended, and what it
/// returned is dropped. The child runs as its own root at the awaiting
/// task's priority (queued behind tasks already ready there, not run at
/// once as by `co_await`): its frame holds its control block, nothing
/// else is allocated. The await returns only once the child has ended,
/// however long it goes on after the cancel. Timers fire before tasks
/// run, so a bound due at the instant the child would end wins.
template <class T>
class [[nodiscard("co_await it: it does nothing until awaited")]] task_timeout_operation
    : public timeout_operation<when_any_operation<T>> {
    using base = timeout_operation<when_any_operation<T>>;

public:
    using base::base;
    awaited_t<T> await_resume() noexcept {
        when_any_result<T> r = base::await_resume();
        if (r.outcome != errc::ok) return error{r.outcome, "task", "", 0, nullptr};
        return std::move(*std::get<0>(r.values));
    }
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
/// Bounds the task `t` to `d` from the moment the awaiting task suspends.
template <class T>
task_timeout_operation<T> with_timeout(task<T>&& t, duration d) noexcept {
    return {when_any_operation<T>{std::move(t)}, d};
}
/// Bounds the task `t` to the executor-clock instant `at`.
template <class T>
task_timeout_operation<T> with_deadline(task<T>&& t, time_point at) noexcept {
    return {when_any_operation<T>{std::move(t)}, at};
}

}  // namespace weft
