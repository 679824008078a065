// SPDX-License-Identifier: Apache-2.0
#pragma once
// split_phase<T>: an operation a task starts and an interrupt handler (or
// a foreign thread) completes. The thesis' split-phase event, without heap
// or STL: the value and the hand-off node live in the object.
//
//   weft::split_phase<std::uint16_t> adc{"adc"};
//   // task:  start the conversion, then
//   auto v = co_await adc;                  // result<uint16_t>
//   // ISR:   adc.complete(ADC->DR);        // interrupt-safe
//
// State machine (numbers cited in the code). `filling` states belong to
// one completer while it writes the value: the state itself is the lock, so
// a completion is one compare-and-swap, one store and (if a task waits) one
// push onto the interrupt queue.
//
//   idle ──(1) co_await──> armed ──(2) complete()──> filling_armed ──(2b) value──> done
//     │                      │                            ^                         │ ^
//     │                      │                            │ (3c) co_await while     │ │
//     │                      │                            │      filling            │ │
//     └──(3) complete()──> filling ──(3b) value, nobody waits─────────────────────────┘ │
//                            │                                                      │
//                            └──(5) cancel/timeout ──> idle   (4) resume ──> idle <──┘
//
//   (2b) and (3c) post the wake-up to the executor; in (3b) the await finds
//   the value ready. (5) applies to `armed` only: a completion that has
//   already claimed the state wins and is delivered.
#include <weft/core/detail/isr_atomic.hpp>
#include <weft/core/detail/wait_node.hpp>
#include <weft/core/executor.hpp>
#include <weft/core/interrupt_queue.hpp>
#include <weft/core/result.hpp>

#include <coroutine>
#include <cstdint>
#include <new>
#include <utility>

namespace weft {

template <class T>
class split_phase : detail::wait_node, irq_node {
    enum state : std::uint8_t { idle, armed, done, filling, filling_armed };

public:
    explicit split_phase(const char* name = "split_phase") noexcept
        : irq_node(&on_irq), name_(name) {}
    split_phase(const split_phase&) = delete;
    split_phase& operator=(const split_phase&) = delete;

    const char* name() const noexcept { return name_; }

    /// Delivers the result. Interrupt-safe, lock-free, no allocation.
    /// Fails with `busy` (naming the operation) if an earlier result has not
    /// been consumed yet: the new value is refused, the old one kept.
    [[nodiscard]] status complete(T value) noexcept {
        std::uint8_t s = state_.load(std::memory_order_relaxed);
        std::uint8_t claim;
        do {
            if (s == done) return refused("completed twice before being awaited");
            if (s != idle && s != armed) return refused("completed concurrently");
            claim = s == armed ? filling_armed : filling;
            // acquire: when armed, see the waiter's ex_ and ctl_ (published
            // by its release CAS) before posting to ex_.
        } while (!state_.compare_exchange_weak(s, claim, std::memory_order_acquire,
                                               std::memory_order_relaxed));
        value_ = std::move(value);
        if (claim == filling) {
            std::uint8_t expected = filling;
            // release: the awaiter's acquire of `done` sees value_. (3b)
            if (state_.compare_exchange_strong(expected, done, std::memory_order_acq_rel,
                                               std::memory_order_acquire))
                return {};
            // (3c): a task armed while we wrote; the failed CAS acquired
            // its ex_/ctl_, and it now waits for our wake-up.
        }
        // release: the executor resumes the task after draining our node
        // and the task reads value_ then.
        state_.store(done, std::memory_order_release);  // (2b)
        ex_->post_unique(*this);
        return {};
    }

    /// Awaiter of a split_phase: yields result<T>, or the reason the wait
    /// ended early (cancelled, timeout). Interrupt-unsafe (task side).
    struct wait_operation {
        split_phase* op;
        bool await_ready() const noexcept { return op->ready(); }
        template <class P>
        bool await_suspend(std::coroutine_handle<P> h) noexcept { return op->suspend(h); }
        result<T> await_resume() noexcept { return op->resume(); }
    };
    /// `co_await op` is `co_await op.wait()`.
    wait_operation wait() noexcept { return {this}; }
    wait_operation operator co_await() noexcept { return {this}; }

    /// True if a result is waiting to be consumed.
    bool ready() const noexcept {  // (3)
        return state_.load(std::memory_order_acquire) == done;
    }

private:
    template <class P>
    bool suspend(std::coroutine_handle<P> h) noexcept {
        ctl_ = &h.promise().control();
        if (ctl_->cancel_requested()) { outcome_ = errc::cancelled; return false; }
        ex_ = &ctl_->exec();
        outcome_ = errc::ok;
        abort = &on_abort;
        ex_->armed_begin();
        ctl_->park(h, this);
        std::uint8_t s = idle;
        // acq_rel: publish ex_/ctl_ to the completer, and see its value_ if
        // it completed between await_ready and here.
        if (state_.compare_exchange_strong(s, armed, std::memory_order_acq_rel,
                                           std::memory_order_acquire))
            return true;  // (1)
        if (s == filling && state_.compare_exchange_strong(s, filling_armed, std::memory_order_acq_rel,
                                                           std::memory_order_acquire))
            return true;  // (3c): the completer posts when its value is in
        ex_->armed_end();  // completed meanwhile (3b): do not suspend
        ctl_->park(h);
        return false;
    }
    result<T> resume() noexcept {
        if (outcome_ != errc::ok) return error{outcome_, "split_phase", name_, 0, nullptr};
        T v = std::move(value_);
        state_.store(idle, std::memory_order_release);  // (4)
        return v;
    }

    static void on_irq(irq_node* n) noexcept {  // on the executor, after (2)
        auto* self = static_cast<split_phase*>(n);
        self->ex_->armed_end();
        self->ctl_->wake();
    }
    static void on_abort(detail::wait_node* w, errc why) noexcept {  // (5)
        auto* self = static_cast<split_phase*>(w);
        std::uint8_t expected = armed;
        if (self->state_.compare_exchange_strong(expected, idle, std::memory_order_acq_rel)) {
            self->ex_->armed_end();
            self->outcome_ = why;
            self->ctl_->wake();
        }
        // else: the ISR completed first; its queued wake-up delivers the
        // value and the abort loses the race (no value is dropped).
    }
    // Out of line: formatting an error is the rare path of an ISR.
    [[gnu::noinline, gnu::cold]] status refused(const char* why) const noexcept {
        return error{errc::busy, "split_phase", name_, 1, why};
    }

    const char* name_;
    detail::isr_atomic<std::uint8_t> state_{idle};
    executor* ex_ = nullptr;
    task_control* ctl_ = nullptr;
    errc outcome_ = errc::ok;
    T value_{};
};

}  // namespace weft
