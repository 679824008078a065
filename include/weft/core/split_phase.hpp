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
// push onto the interrupt queue, or one notify() if it waits in place.
//
//   idle ──(1) co_await──> armed ──(2) complete()──> filling_armed ──(2b) value──> delivering
//    │ │                                           ^  ^
//    │ │                                           │  └─(8b) filling_blocked, gave up waiting in place
//    │ │                                           └─(3c) co_await while filling
//    │ └──(3) complete()──> filling ───────────────┘
//    │                        └──(3b) value, nobody waits──> done
//    │                   armed ──(5) cancel/timeout──> idle
//    │
//    └──(6) co_await, idle executor──> blocked ──(7) complete()──> filling_blocked
//                                        │                           └──(7b) value, notify──> done
//                                        └──(8) other work first──> armed
//
//   done ──(4) resume──> idle <──(4) the waiter resumes── delivering
//
//   (2b) and (3c) post the wake-up to the executor and leave the state
//   `delivering`: the value is the waiting task's, and another task that
//   awaits before that one has resumed is refused with `busy` instead of
//   taking it (the wake-up would then go to whoever waited next, and the
//   first task would never resume). In (3b) the await finds the value
//   ready (`done`): the next task to await takes it. (5) applies to
//   `armed` only: a completion that has already claimed the state wins
//   and is delivered.
//   (6): when nothing else could run before the completion anyway (no task
//   ready, no interrupt node queued, no timer due: executor::idle_now()),
//   the awaiting task does not suspend: it sleeps in the port itself
//   (executor::wait_in_place()) and the completer only writes the value
//   and notifies (7, 7b), with no trip through the interrupt queue and
//   run(). If an interrupt node or a timer comes first, the task falls
//   back to waiting as in (1): (8) blocked -> armed, or (8b)
//   filling_blocked -> filling_armed while a completer writes. A
//   completion that is in but arrives together with other work requeues
//   the task so run() keeps the priority order.
//   (6m): on a one-core port with masked completions (a small trivially
//   copyable T) and no timer armed, the task waits in place without
//   leaving `idle`: the port's waker::wait() re-checks the state under
//   the mask the completer writes it under, so the completion is a plain
//   (3)+(3b) and its interrupt entry ends the sleep with no notify().
#include <weft/core/detail/isr_atomic.hpp>
#include <weft/core/detail/wait_node.hpp>
#include <weft/core/executor.hpp>
#include <weft/core/interrupt_queue.hpp>
#include <weft/core/result.hpp>

#include <coroutine>
#include <cstdint>
#include <new>
#include <type_traits>
#include <utility>

namespace weft {

template <class T>
class split_phase : detail::wait_node, irq_node {
    // A whole word: byte atomics cost a zero-extension after every load on
    // Arm, and the padding after the state is there anyway.
    using word = std::uint32_t;
    // Each waiting state's `filling_` twin is 4 above it, and blocked is
    // one above armed: the transitions are additions.
    enum state : word { idle, armed, blocked, done, filling, filling_armed, filling_blocked, delivering };

public:
    explicit split_phase(const char* name = "split_phase") noexcept
        : irq_node(&on_irq), name_(name) {}
    split_phase(const split_phase&) = delete;
    split_phase& operator=(const split_phase&) = delete;

    const char* name() const noexcept { return name_; }

    /// Delivers the result. Interrupt-safe (from maskable handlers, not an
    /// NMI), no allocation: lock-free, or on a one-core port a few
    /// instructions with interrupts masked.
    /// Fails with `busy` (naming the operation) if an earlier result has not
    /// been consumed yet: the new value is refused, the old one kept.
    [[nodiscard]] status complete(T value) noexcept {
        if constexpr (masked_completion) return complete_masked(value);
        word s = state_.load(std::memory_order_relaxed);
        word claim;
        do {
            if (s > blocked) return refused(s);
            claim = word(s + (filling - idle));  // (3), (2), (7)
            // acquire: when armed or blocked, see the waiter's ex_
            // (published by its release CAS) before using ex_.
        } while (!state_.compare_exchange_weak(s, claim, std::memory_order_acquire,
                                               std::memory_order_relaxed));
        value_ = std::move(value);
        if (claim == filling_blocked) {
            executor* ex = ex_;  // before `done`: the waiter may then leave
            if (finish(claim)) {
                ex->notify();  // (7b)
                return {};
            }
            // (8b): the task gave up waiting in place; it waits for our
            // wake-up through the executor now.
        } else if (claim == filling && finish(claim)) {
            return {};  // (3b)
        }
        // (3c), (8b): the failed CAS in finish() acquired the task's ex_.
        // release: the executor resumes the task after draining our node
        // and the task reads value_ then.
        state_.store(delivering, std::memory_order_release);  // (2b)
        ex_->post_unique(*this);
        return {};
    }

    /// Awaiter of a split_phase: yields result<T>, or the reason the wait
    /// ended early (cancelled, timeout), or `busy` if another task is
    /// already waiting (one awaiter at a time). Interrupt-unsafe (task side).
    struct [[nodiscard("co_await it: it does nothing until awaited")]] wait_operation {
        split_phase* op;
        // Why this await ended early (ok if it did not). In the awaiter,
        // i.e. in the awaiting task's frame, not in the operation: a wait
        // that was aborted keeps its reason until its task resumes, even if
        // another task awaits the operation meanwhile.
        errc outcome = errc::ok;
        // With masked completions the wait in place (6m) checks for `done`
        // first anyway: no separate check on the common path.
        bool await_ready() const noexcept { return !masked_completion && op->ready(); }
        template <class P>
        bool await_suspend(std::coroutine_handle<P> h) noexcept { return op->suspend(h, outcome); }
        result<T> await_resume() noexcept { return op->resume(outcome); }
    };
    /// `co_await op` is `co_await op.wait()`.
    wait_operation wait() noexcept { return {this}; }
    wait_operation operator co_await() noexcept { return {this}; }

    /// True if a result is waiting to be consumed by the next await (not
    /// one already on its way to a waiting task).
    bool ready() const noexcept {  // (3)
        return state_.load(std::memory_order_acquire) == done;
    }

private:
    template <class P>
    bool suspend(std::coroutine_handle<P> h, errc& out) noexcept {
        // Locals, not the members, across the sleep: the port's interrupt
        // masking is a compiler barrier that would force the members to be
        // reloaded.
        task_control* ctl = &h.promise().control();
        if (ctl->cancel_requested()) [[unlikely]] {
            // A value already in is delivered, as await_ready() would have.
            out = ready() ? errc::ok : errc::cancelled;
            return false;
        }
        executor* ex = &ctl->exec();
        if constexpr (masked_completion) {
            // (6m) leaves ex_ alone: a completer that finds `idle` does not
            // use it; wait_masked sets it before arming or requeueing.
            if (ex->idle_now() && !ex->timer_armed()) return wait_masked(h, ctl, ex, out);  // (6m)
        }
        // Written only if it changes: every task that awaits the operation
        // runs on this executor, and a second awaiter (refused with busy)
        // would otherwise write it while a completer on another thread
        // reads it, a data race. One core: a handler sees the one-word
        // store before or after, the same pointer either way.
        if constexpr (port::single_core) ex_ = ex;
        else if (ex_ != ex) ex_ = ex;
        word s = idle;
        // acq_rel: publish ex_ to the completer, and see its value_ if
        // it completed between await_ready and here.
        if (ex->idle_now() && state_.compare_exchange_strong(s, blocked, std::memory_order_acq_rel,
                                                             std::memory_order_acquire)) {  // (6)
            ctl_ = ctl;
            out_ = &out;  // (8) may arm: an abort then writes there
            // Inline only the common case: no timer, so the sleep is the
            // port's inline wait for a notify and needs no clock.
            if (ex->timer_armed()) return keep_waiting(h);
            bool alone = ex->wait_in_place();
            // acquire: see value_ once `done` (7b).
            if (state_.load(std::memory_order_acquire) == done && alone) return false;
            return keep_waiting(h);
        }
        return arm(h, ctl, out);
    }
    // (6m): with masked completions and no timer, the wait in place needs
    // no `blocked` state: the port checks state_ under the same mask as
    // the completer writes it, so the completion is a plain (3)+(3b) and
    // its interrupt ends the sleep without a notify().
    [[gnu::always_inline]] bool wait_masked(std::coroutine_handle<> h, task_control* ctl, executor* ex,
                                            errc& out) noexcept {
        bool alone;
        word s;
        do {  // a wake by an earlier, latched notify() finds the state idle
            alone = ex->wait_in_place_for([this] { return state_.load(std::memory_order_relaxed) != idle; });
            s = state_.load(std::memory_order_acquire);
        } while (alone && s == idle);
        if (alone && s == done) return false;
        ex_ = ex;
        if (s != done) return arm(h, ctl, out);  // run() has work first: wait as in (1)
        ctl_ = ctl;
        return requeue(h);
    }
    // (1), or the value is in or being written (3b, 3c). Out of line, so
    // that the inline part needs few registers; it reads the state itself
    // (what the caller saw, or newer), so that its arguments fit in
    // registers: a fifth, on the stack, cost the inline part 4 instructions.
    [[gnu::noinline]] bool arm(std::coroutine_handle<> h, task_control* ctl, errc& out) noexcept {
        // acquire: as the callers' loads, see a completer's value_.
        word s = state_.load(std::memory_order_acquire);
        // The claim comes first and ctl_ after it: only this thread reads
        // ctl_, and a refused second awaiter must not overwrite the
        // waiting task's.
        if ((s == idle && state_.compare_exchange_strong(s, armed, std::memory_order_acq_rel,
                                                         std::memory_order_acquire)) ||  // (1)
            (s == filling && state_.compare_exchange_strong(s, filling_armed, std::memory_order_acq_rel,
                                                            std::memory_order_acquire))) {  // (3c)
            ctl_ = ctl;
            out_ = &out;
            abort = &on_abort;
            ex_->armed_begin();
            ctl->park(h, this);
            return true;  // in (3c) the completer posts when its value is in
        }
        if (s == done) return false;  // completed meanwhile (3b): do not suspend
        // Another task waits (armed or blocked, perhaps with a completer
        // writing): this await is refused with `busy` and that one keeps
        // its wait. The reason goes to this await's own awaiter.
        out = errc::busy;
        return false;
    }
    // (6)-(8) after a wake-up that did not deliver the value alone: a
    // spurious wake, a completer still writing (foreign thread), or other
    // work for run(). Returns await_suspend's answer: false when the value
    // is in and nothing else needs the executor (the task continues).
    [[gnu::noinline]] bool keep_waiting(std::coroutine_handle<> h) noexcept {
        // acquire: see value_ once `done` (7b).
        word s = state_.load(std::memory_order_acquire);
        bool alone = ex_->still_idle();
        while (alone && s != done) {
            alone = ex_->wait_in_place();
            s = state_.load(std::memory_order_acquire);
        }
        if (alone) return false;  // (7b)
        // An interrupt node or a timer needs run() first: wait as in (1).
        ctl_->park(h, this);
        while (s != done) {
            // blocked -> armed (8), filling_blocked -> filling_armed (8b).
            // acq_rel as in (1); on failure, acquire sees a new value_.
            if (state_.compare_exchange_weak(s, word(s - (blocked - armed)), std::memory_order_acq_rel,
                                             std::memory_order_acquire)) {
                abort = &on_abort;
                ex_->armed_begin();
                return true;
            }
        }
        return requeue(h);
    }
    // The value is in, but run() has other work that may come first:
    // requeue, so that the priority order holds.
    [[gnu::noinline]] bool requeue(std::coroutine_handle<> h) noexcept {
        ctl_->park(h);
        ex_->schedule(*ctl_);
        return true;
    }
    result<T> resume(errc& out) noexcept {
        if (out != errc::ok) [[unlikely]] return take_outcome(out);
        T v = std::move(value_);
        state_.store(idle, std::memory_order_release);  // (4)
        return v;
    }
    // Out of line: an await that ended early is the rare path. Clears the
    // reason, so that an awaiter awaited again (an lvalue `co_await w`)
    // starts afresh: a completion that came after its timeout stays
    // (`done`) and is delivered, not the old reason.
    [[gnu::noinline]] error take_outcome(errc& out) const noexcept {
        error e = out == errc::busy
                      ? error{errc::busy, "split_phase", name_, 1, "awaited by a second task while one waits"}
                      : error{out, "split_phase", name_, 0, nullptr};
        out = errc::ok;
        return e;
    }

    static void on_irq(irq_node* n) noexcept {  // on the executor, after (2)
        auto* self = static_cast<split_phase*>(n);
        self->ex_->armed_end();
        self->ex_->wake_from_handler(*self->ctl_);  // the handler's last action
    }
    static void on_abort(detail::wait_node* w, errc why) noexcept {  // (5)
        auto* self = static_cast<split_phase*>(w);
        word expected = armed;
        if (self->state_.compare_exchange_strong(expected, idle, std::memory_order_acq_rel)) {
            self->ex_->armed_end();
            *self->out_ = why;  // the aborted awaiter's own: see wait_operation
            self->ctl_->wake();
        }
        // else: the ISR completed first; its queued wake-up delivers the
        // value and the abort loses the race (no value is dropped).
    }
    // On one core, masking interrupts makes the whole hand-off atomic with
    // respect to the task and every other handler, so a small value is
    // simply written under the mask: no `filling` states, one state load
    // and store instead of two compare-and-swaps. (2)+(2b), (3)+(3b),
    // (7)+(7b) each become one step.
    static constexpr bool masked_completion =
        port::single_core && std::is_trivially_copyable_v<T> && sizeof(T) <= 16;
    status complete_masked(const T& value) noexcept {
        word s;
        {
            port::critical_section masked;
            s = state_.load(std::memory_order_relaxed);
            if (s <= blocked) {
                value_ = value;
                state_.store(done, std::memory_order_relaxed);
                // idle: nobody waits, or the task waits in place (6m) and
                // this interrupt's entry ends its sleep.
                if (s != idle) [[unlikely]] {
                    if (s == armed) {  // (2b): the value is the waiter's
                        state_.store(delivering, std::memory_order_relaxed);
                        ex_->post_unique(*this);
                    } else {
                        ex_->notify();  // blocked: (6) with a timer armed
                    }
                }
            }
        }
        if (s > blocked) return refused(s);
        return {};
    }
    // release: the awaiter's acquire of `done` sees value_. Fails if the
    // task changed the state meanwhile (3c, 8b).
    [[gnu::always_inline]] bool finish(word claim) noexcept {
        return state_.compare_exchange_strong(claim, done, std::memory_order_acq_rel, std::memory_order_acquire);
    }
    // Out of line: formatting an error is the rare path of an ISR.
    [[gnu::noinline, gnu::cold]] status refused(word s) const noexcept {
        const char* why = s == done || s == delivering ? "completed twice before being awaited"
                                                       : "completed concurrently";
        return error{errc::busy, "split_phase", name_, 1, why};
    }

    const char* name_;
    detail::isr_atomic<word> state_{idle};
    executor* ex_ = nullptr;
    task_control* ctl_ = nullptr;
    errc* out_ = nullptr;  // the armed awaiter's outcome (on_abort writes it)
    T value_{};
};

}  // namespace weft
