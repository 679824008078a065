// SPDX-License-Identifier: Apache-2.0
#pragma once
// event: a manual-reset flag tasks can wait for. set() releases every
// waiter and keeps the event set until reset(). Executor thread only; to
// set an event from an ISR, complete a split_phase or post an irq_node
// whose handler calls set().
#include <weft/core/detail/executor_only.hpp>
#include <weft/core/detail/waiter.hpp>
#include <weft/core/result.hpp>

namespace weft {

class event {
public:
    explicit event(const char* name = "event") noexcept : name_(name) {}
    event(const event&) = delete;
    event& operator=(const event&) = delete;

    const char* name() const noexcept { return name_; }
    bool is_set() const noexcept { return set_; }

    /// Sets the event and makes every waiter ready (in arrival order).
    void set() noexcept {
        if constexpr (detail::check_executor_only) detail::check_executor_only_call("event", name_, "set()");
        set_ = true;
        while (detail::list_node* n = waiters_.pop_front())
            static_cast<detail::queued_waiter*>(n)->grant();
    }
    void reset() noexcept {
        if constexpr (detail::check_executor_only) detail::check_executor_only_call("event", name_, "reset()");
        set_ = false;
    }

    struct [[nodiscard("co_await it: it does nothing until awaited")]] wait_operation : detail::queued_waiter {
        event* ev;
        bool await_ready() const noexcept { return false; }  // a cancelled task's wait ends cancelled
        template <class P>
        bool await_suspend(std::coroutine_handle<P> h) noexcept {
            return enqueue_unless(h, ev->waiters_, [this] { return ev->set_; });
        }
        // A granted wait does not read the event: set() has unlinked every
        // waiter, so the event may be gone by now (a one-shot event in the
        // setter's frame), as a condition variable may once it notified.
        status await_resume() noexcept {
            if (outcome == errc::ok) return {};  // before ev is read
            return take_status("event", ev->name_);
        }
    };
    /// Awaitable: ok once set; cancelled / timeout if aborted.
    wait_operation wait() noexcept {
        wait_operation op{};
        op.ev = this;
        return op;
    }

private:
    const char* name_;
    bool set_ = false;
    detail::intrusive_list waiters_;
};

}  // namespace weft
