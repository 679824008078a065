// SPDX-License-Identifier: Apache-2.0
#pragma once
// The executor: one per core. Ready queues (one FIFO per priority and a
// bitmap, so the next task is found in O(1)), a timer heap, and the
// interrupt hand-off. It sleeps in the port when nothing is ready.
#include <weft/core/detail/timer_heap.hpp>
#include <weft/core/interrupt_queue.hpp>
#include <weft/core/result.hpp>
#include <weft/core/task_control.hpp>
#include <weft/core/time.hpp>
#include <weft/port/port.hpp>

#include <atomic>
#include <bit>
#include <cstdint>

namespace weft {

template <class T> class task;
template <class T> class join_handle;

/// Where the executor's notion of time comes from.
enum class clock_mode : std::uint8_t {
    real,     ///< the port's monotonic clock; idle means sleeping in the port
    virtual_  ///< starts at 0 and jumps to the next timer when idle (tests)
};

struct executor_config {
    const char* name = "executor";
    clock_mode clock = clock_mode::real;
};

/// Why run() returned.
enum class run_outcome : std::uint8_t {
    completed,  ///< every spawned task finished
    stopped,    ///< request_stop() was called
    stalled     ///< virtual clock only: tasks wait but nothing can wake them
};

class executor {
public:
    explicit executor(executor_config cfg = {}) noexcept : cfg_(cfg) {}
    executor(const executor&) = delete;
    executor& operator=(const executor&) = delete;

    const char* name() const noexcept { return cfg_.name; }
    clock_mode mode() const noexcept { return cfg_.clock; }

    /// Current time on this executor's clock.
    time_point now() const noexcept {
        return from_ns(cfg_.clock == clock_mode::real ? port::now_ns() : virtual_now_);
    }

    /// Starts `t` as an independent task at priority `p`. Fails with the
    /// frame pool's error if the task's frame could not be allocated.
    /// Does not allocate. Defined in task.hpp.
    template <class T>
    result<join_handle<T>> spawn(task<T>&& t, priority p = 0) noexcept;

    /// Runs tasks until all have finished or request_stop() is called.
    run_outcome run() noexcept {
        stop_.store(false, std::memory_order_relaxed);
        for (;;) {
            if (irqs_.maybe_pending()) irqs_.drain();
            if (!timers_.empty()) fire_timers();
            if (stop_.load(std::memory_order_relaxed)) return run_outcome::stopped;
            if (task_control* t = pop_ready()) {
                t->resume_point_.resume();
                continue;
            }
            if (live_ == 0) return run_outcome::completed;
            if (!idle()) return run_outcome::stalled;
        }
    }

    /// Asks run() to return at its next scheduling point.
    /// Interrupt-safe and callable from a foreign thread.
    void request_stop() noexcept {
        stop_.store(true, std::memory_order_relaxed);
        waker_.notify();
    }

    /// Queues `n` so that its handler runs on this executor, and wakes the
    /// executor. Interrupt-safe, lock-free, does not allocate. False if `n`
    /// is still queued from an earlier post.
    bool post(irq_node& n) noexcept {
        bool ok = irqs_.post(n);
        waker_.notify();
        return ok;
    }

    /// Makes a task ready (FIFO within its priority). Executor thread only.
    void schedule(task_control& t) noexcept {
        fifo& q = ready_[t.priority_];
        t.next_ready_ = nullptr;
        if (q.tail) q.tail->next_ready_ = &t; else q.head = &t;
        q.tail = &t;
        bitmap_ |= 1u << t.priority_;
    }

    /// The yield path: requeues `t` and, when no timer, interrupt or stop
    /// needs the run loop's attention, hands the processor straight to the
    /// next ready task by symmetric transfer instead of returning to run().
    std::coroutine_handle<> yield_from(task_control& t) noexcept {
        if (needs_loop()) {
            schedule(t);
            return std::noop_coroutine();
        }
        // Same result as schedule(t) followed by pop_ready(), in fewer
        // dependent loads: t is running, so its level holds only the others.
        const unsigned level = t.priority_;
        const std::uint32_t at_or_above = bitmap_ >> level;
        if (at_or_above == 0) return t.resume_point_;  // alone at the top: go on
        if (at_or_above == 1) {  // rotate: t to the back, the front runs
            fifo& q = ready_[level];
            task_control* next = q.head;
            task_control* after = next->next_ready_;
            t.next_ready_ = nullptr;
            if (after) {
                q.tail->next_ready_ = &t;
                q.head = after;
            } else {
                q.head = &t;
            }
            q.tail = &t;
            return next->resume_point_;
        }
        schedule(t);  // a higher level is ready
        return pop_ready()->resume_point_;
    }

    /// Timer queue (executor thread only). erase is a no-op if not armed.
    void arm(detail::timer_node& n) noexcept { timers_.push(n); }
    void disarm(detail::timer_node& n) noexcept { timers_.erase(n); }

    /// Counts operations an ISR or foreign thread will complete (armed
    /// split_phase operations, simulated interrupt sources). With the
    /// virtual clock, run() reports `stalled` only when this is zero.
    void external_begin() noexcept { external_.fetch_add(1, std::memory_order_relaxed); }
    void external_end() noexcept { external_.fetch_sub(1, std::memory_order_relaxed); }

    /// Virtual clock only (a no-op on the real clock): moves time forward by
    /// `d` as if the running code had taken that long. Lets tests simulate
    /// execution time (e.g. a reaction that misses its deadline).
    /// Executor thread only.
    void advance(duration d) noexcept {
        if (cfg_.clock == clock_mode::virtual_ && d.count() > 0) virtual_now_ += std::uint64_t(d.count());
    }

    /// Number of spawned tasks that have not finished.
    std::uint32_t live_tasks() const noexcept { return live_; }

    // --- used by spawn / task completion ---
    void task_started() noexcept { ++live_; }
    void task_finished() noexcept { --live_; }

private:
    struct fifo {
        task_control* head = nullptr;
        task_control* tail = nullptr;
    };

    task_control* pop_ready() noexcept {
        if (bitmap_ == 0) return nullptr;
        unsigned level = 31u - unsigned(std::countl_zero(bitmap_));
        fifo& q = ready_[level];
        task_control* t = q.head;
        q.head = t->next_ready_;
        if (!q.head) {
            q.tail = nullptr;
            bitmap_ &= ~(1u << level);
        }
        return t;
    }

    void fire_timers() noexcept {
        std::uint64_t now = to_ns(this->now());
        while (!timers_.empty() && timers_.top()->deadline_ns <= now) {
            detail::timer_node* n = timers_.pop();
            n->fire(n);
        }
    }

    // Nothing is ready: wait for the next timer or an interrupt. Returns
    // false if nothing could ever wake us (virtual clock only).
    bool idle() noexcept {
        std::uint64_t next = timers_.next_deadline();
        if (cfg_.clock == clock_mode::virtual_) {
            if (next != port::no_deadline) {
                // Time passes only while idle, and only as far as the next timer.
                if (next > virtual_now_) virtual_now_ = next;
                return true;
            }
            if (external_.load(std::memory_order_relaxed) == 0 && !irqs_.maybe_pending())
                return false;
            waker_.wait_until(port::no_deadline);
            return true;
        }
        waker_.wait_until(next);
        return true;
    }

    // True when a timer, an interrupt or a stop request needs run().
    bool needs_loop() const noexcept {
        return !timers_.empty() || irqs_.maybe_pending() || stop_.load(std::memory_order_relaxed);
    }

    // The fields every switch reads come first, so that they share a cache
    // line (host) and short load offsets (Thumb-2).
    std::uint32_t bitmap_ = 0;
    std::atomic<bool> stop_{false};
    interrupt_queue irqs_;
    detail::timer_heap timers_;
    fifo ready_[max_priority + 1];
    executor_config cfg_;
    port::waker waker_;
    std::uint64_t virtual_now_ = 0;
    std::uint32_t live_ = 0;
    std::atomic<std::uint32_t> external_{0};
};

inline void task_control::wake() noexcept {
    wait_ = nullptr;
    executor_->schedule(*this);
}

}  // namespace weft
