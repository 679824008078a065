// SPDX-License-Identifier: Apache-2.0
#pragma once
// co_await weft::sleep_for(10ms) / sleep_until(t): suspend the task until
// the executor's clock reaches the deadline. The timer node lives in the
// awaiter, inside the sleeping task's frame.
//
// Outcome: ok when the time came; cancelled if the task was cancelled
// (before or during the sleep); the timer is always disarmed on return.
#include <weft/core/detail/timer_heap.hpp>
#include <weft/core/detail/wait_node.hpp>
#include <weft/core/executor.hpp>
#include <weft/core/time.hpp>

#include <coroutine>
#include <cstdint>
#include <utility>

namespace weft {

class [[nodiscard("co_await it: it does nothing until awaited")]] sleep_operation
    : detail::wait_node, detail::timer_node {
public:
    explicit sleep_operation(time_point until) noexcept : when_(until.time_since_epoch()) {}
    /// A relative sleep is measured from the moment the task suspends.
    explicit sleep_operation(duration d) noexcept : when_(bounded_delay(d)), relative_(true) {}

    bool await_ready() const noexcept { return false; }
    template <class P>
    bool await_suspend(std::coroutine_handle<P> h) noexcept {
        ctl_ = &h.promise().control();
        if (ctl_->cancel_requested()) { outcome_ = errc::cancelled; return false; }
        executor& ex = ctl_->exec();
        // One clock read: on a board it masks interrupts and reads a timer.
        const std::int64_t now = ex.now().time_since_epoch().count();
        // Added as unsigned, so that a wrap is defined and caught below.
        std::int64_t t = relative_ ? std::int64_t(std::uint64_t(now) + std::uint64_t(when_.count())) : when_.count();
        // already due: no suspension. (`now >= t`, not `t <= now`: GCC
        // compiles the 64-bit `<=` to two compares on Thumb-2.)
        if (now >= t) [[unlikely]] {
            // Or a positive delay that wrapped (t < 0 only then, as now and
            // the delay are >= 0): the virtual clock jumps to timers up to
            // the end of time, so it can read above 2^62 ns, where `now +
            // longest_delay` overflows. That is never, not the past.
            // Tested here, on the rare path, so that the usual sleep pays
            // nothing for it.
            if (!relative_ || t >= 0) return false;
            t = INT64_MAX;
        }
        deadline_ns = std::uint64_t(t);
        fire = &on_fire;
        abort = &on_abort;
        ex.arm(*this);
        ctl_->park(h, this);
        return true;
    }
    // A code alone ("cancelled"): naming the sleep costs every timer an
    // instruction on the board, and a sleep has no name to give. Cleared
    // as it is read, so that the awaiter awaited again (a bound retried in
    // a loop) reports that await's outcome, not an earlier timeout.
    status await_resume() noexcept { return status{std::exchange(outcome_, errc::ok)}; }

private:
    static void on_fire(detail::timer_node* n) noexcept {
        auto* self = &static_cast<sleep_operation&>(*n);  // a reference: no null test
        self->ctl_->wake();
    }
    static void on_abort(detail::wait_node* w, errc why) noexcept {
        auto* self = static_cast<sleep_operation*>(w);
        self->ctl_->exec().disarm(*self);
        self->outcome_ = why;
        self->ctl_->wake();
    }

    task_control* ctl_ = nullptr;
    // The delay (relative_) or the deadline since the clock's epoch: one
    // field, because this awaiter lives in every sleeping task's frame.
    duration when_;
    bool relative_ = false;
    errc outcome_ = errc::ok;
};

/// Suspends for at least `d`. Awaitable; does not allocate.
inline sleep_operation sleep_for(duration d) noexcept { return sleep_operation{d}; }
/// Suspends until the executor's clock reads at least `t`.
inline sleep_operation sleep_until(time_point t) noexcept { return sleep_operation{t}; }

}  // namespace weft
