// SPDX-License-Identifier: Apache-2.0
#pragma once
// An async mutex: lock() suspends the task (not the thread) until the lock
// is handed to it. unlock() passes ownership directly to the oldest waiter.
// Executor thread only.
#include <weft/core/detail/waiter.hpp>
#include <weft/core/result.hpp>

namespace weft {

class mutex {
public:
    explicit mutex(const char* name = "mutex") noexcept : name_(name) {}
    mutex(const mutex&) = delete;
    mutex& operator=(const mutex&) = delete;

    const char* name() const noexcept { return name_; }
    bool locked() const noexcept { return locked_; }

    [[nodiscard]] bool try_lock() noexcept {
        if (locked_) return false;
        locked_ = true;
        return true;
    }
    /// Precondition: the caller holds the lock.
    void unlock() noexcept {
        WEFT_ASSERT(locked_, "mutex::unlock without lock");
        if (detail::list_node* n = waiters_.pop_front())
            static_cast<detail::queued_waiter*>(n)->grant();  // stays locked, new owner
        else
            locked_ = false;
    }

    struct lock_operation : detail::queued_waiter {
        mutex* m;
        bool await_ready() noexcept { return m->try_lock(); }
        template <class P>
        bool await_suspend(std::coroutine_handle<P> h) noexcept { return enqueue(h, m->waiters_); }
        status await_resume() const noexcept { return status{outcome}; }
    };
    /// Awaitable: ok with the lock held; cancelled / timeout without it.
    lock_operation lock() noexcept {
        lock_operation op{};
        op.m = this;
        return op;
    }

private:
    const char* name_;
    bool locked_ = false;
    detail::intrusive_list waiters_;
};

/// Unlocks on scope exit: `auto g = lock_guard{m};` after a successful lock.
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

}  // namespace weft
