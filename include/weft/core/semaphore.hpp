// SPDX-License-Identifier: Apache-2.0
#pragma once
// Counting semaphore with a static maximum. release() hands a unit directly
// to the oldest waiter (FIFO, no barging), so a waiter cannot starve.
// Executor thread only.
#include <weft/core/detail/executor_only.hpp>
#include <weft/core/detail/waiter.hpp>
#include <weft/core/result.hpp>

#include <cstdint>

namespace weft {

namespace detail {
/// Stops the program: a semaphore was built with more units than its
/// maximum. Cold, out of line, no printf.
[[noreturn, gnu::noinline, gnu::cold]] inline void initial_above_max(const char* name, std::uint32_t max) noexcept {
    fatal_error(error{errc::invalid, "semaphore", name, max, "initial count above its maximum"});
}
}  // namespace detail

class semaphore {
public:
    /// `initial` above `max` is a configuration error: the program stops,
    /// naming the semaphore and its maximum (a silent clamp would hide
    /// units the author believed were there).
    semaphore(const char* name, std::uint32_t initial, std::uint32_t max) noexcept
        : name_(name), count_(initial), max_(max) {
        if (initial > max) detail::initial_above_max(name, max);
    }
    semaphore(const semaphore&) = delete;
    semaphore& operator=(const semaphore&) = delete;

    const char* name() const noexcept { return name_; }
    std::uint32_t available() const noexcept { return count_; }
    std::uint32_t max() const noexcept { return max_; }

    /// Takes a unit if one is free; never waits.
    [[nodiscard]] bool try_acquire() noexcept {
        if (count_ == 0) return false;
        --count_;
        return true;
    }

    /// Returns a unit: to the oldest waiter if any, else to the count.
    /// Fails with `full`, naming the semaphore and its maximum, if that
    /// would exceed max (the count is unchanged).
    [[nodiscard]] status release() noexcept {
        if constexpr (detail::check_executor_only) detail::check_executor_only_call("semaphore", name_, "release()");
        if (detail::list_node* n = waiters_.pop_front()) {
            static_cast<detail::queued_waiter*>(n)->grant();
            return {};
        }
        if (count_ == max_) {
            // A maximum of 0 (a pulse: units go only to waiting tasks)
            // prints no limit, so its text says what happened.
            return error{errc::full, "semaphore", name_, max_,
                         max_ ? "released above its maximum" : "released with no task waiting (maximum 0)"};
        }
        ++count_;
        return {};
    }

    struct [[nodiscard("co_await it: it does nothing until awaited")]] acquire_operation : detail::queued_waiter {
        semaphore* sem;
        bool await_ready() const noexcept { return false; }  // a cancelled task takes no unit
        template <class P>
        bool await_suspend(std::coroutine_handle<P> h) noexcept {
            return enqueue_unless(h, sem->waiters_, [this] { return sem->waiters_.empty() && sem->try_acquire(); });
        }
        // A granted wait does not read the semaphore: the unit is handed
        // over and the waiter unlinked, so a one-shot signal may be gone by
        // now (destroyed by the releasing task before the waiter resumed).
        status await_resume() noexcept {
            if (outcome == errc::ok) return {};  // before sem is read
            return take_status("semaphore", sem->name_);
        }
    };
    /// Awaitable: ok with a unit held; cancelled / timeout without one.
    acquire_operation acquire() noexcept {
        acquire_operation op{};
        op.sem = this;
        return op;
    }

private:
    const char* name_;
    std::uint32_t count_;
    std::uint32_t max_;
    detail::intrusive_list waiters_;
};

}  // namespace weft
