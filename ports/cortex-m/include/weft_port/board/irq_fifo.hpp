// SPDX-License-Identifier: Apache-2.0
#pragma once
// The receive FIFO of the board's asynchronous drivers (button, UART rx):
// one producer (the device's interrupt handler), one consumer (the
// executor), N slots, plus the irq_node the handler posts. A push into a
// full FIFO is counted, and the driver reports the count as an error value
// from read() ("uart 'uart0': rx bytes lost, FIFO full (limit 16)"):
// nothing is lost silently.
//
// Single core: the handler preempts the executor but never the reverse, and
// an ARMv7-M core observes its own memory accesses in program order, so the
// indices need no hardware barrier; the signal fences stop the *compiler*
// from moving the slot access across the index update (the same contract as
// a signal handler and its thread).
//
// The attached executor also marks the driver connected: in Debug builds
// a second connect() before the first is closed stops the program; release
// builds do not check, so that firmware sizes do not grow (as for the
// executor's run() re-entry check).
#include <weft/core/executor.hpp>
#include <weft/core/interrupt_queue.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace weft::board {

/// Whether attach() checks that the driver is not attached already: only
/// in Debug builds (see the header comment).
#ifdef NDEBUG
inline constexpr bool check_attach = false;
#else
inline constexpr bool check_attach = true;
#endif

template <class T, std::size_t N>
class irq_fifo {
    static_assert(N >= 2 && (N & (N - 1)) == 0, "irq_fifo: capacity must be a power of two");

public:
    static constexpr std::size_t capacity = N;

    /// Executor thread, before the device's interrupt is enabled (or with it
    /// masked): where the handler posts when data arrives. `kind` and
    /// `name` (the driver's, e.g. "button", "but0") only name it if it is
    /// already attached, which stops the program in Debug builds.
    void attach(executor& ex, irq_node& n, [[maybe_unused]] const char* kind,
                [[maybe_unused]] const char* name) noexcept {
        if constexpr (check_attach) {
            if (ex_ != nullptr) attached_twice(kind, name);
        }
        node_ = &n;
        std::atomic_signal_fence(std::memory_order_release);  // node_ before ex_
        ex_ = &ex;
    }

    /// Executor thread: the handler stops posting, and the FIFO can be
    /// attached again. One core: a handler that read ex_ before this store
    /// has finished before we continue.
    void detach() noexcept { ex_ = nullptr; }

    /// Interrupt handler only. False (and counted) if the FIFO is full; the
    /// executor is told either way, so that it reads (or reports) soon.
    bool push(const T& v) noexcept {
        std::uint32_t t = tail_;
        bool ok = t - head_ != N;
        if (ok) {
            items_[t % N] = v;
            std::atomic_signal_fence(std::memory_order_release);  // slot before index
            tail_ = t + 1;
        } else {
            overflows_ = overflows_ + 1;
        }
        raise();
        return ok;
    }
    /// Interrupt handler only: counts a value the device lost before it
    /// reached the FIFO (a hardware overrun), reported like a full FIFO.
    void lost() noexcept {
        overflows_ = overflows_ + 1;
        raise();
    }
    /// Interrupt handler only: tells the executor to look at the driver.
    void raise() noexcept {
        if (executor* ex = ex_) ex->post(*node_);
    }

    /// Executor: values waiting (plus one if an overflow is to be reported).
    std::size_t readable() const noexcept {
        return std::size_t(tail_ - head_) + (overflows_ != 0 ? 1 : 0);
    }
    /// Executor: precondition tail_ != head_.
    T pop() noexcept {
        std::uint32_t h = head_;
        std::atomic_signal_fence(std::memory_order_acquire);  // index before slot
        T v = items_[h % N];
        std::atomic_signal_fence(std::memory_order_release);  // slot read before reuse
        head_ = h + 1;
        return v;
    }
    /// Executor: overflows since the last call (then reset). The handler
    /// increments the count, so the read-and-clear masks interrupts.
    std::uint32_t take_overflows() noexcept {
        port::critical_section cs;
        std::uint32_t n = overflows_;
        overflows_ = 0;
        return n;
    }
    bool overflowed() const noexcept { return overflows_ != 0; }

private:
    T items_[N] = {};
    // volatile: shared with the handler (see the header comment).
    volatile std::uint32_t head_ = 0, tail_ = 0, overflows_ = 0;
    executor* volatile ex_ = nullptr;
    irq_node* node_ = nullptr;
};

}  // namespace weft::board
