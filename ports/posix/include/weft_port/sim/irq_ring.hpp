// SPDX-License-Identifier: Apache-2.0
#pragma once
// The "hardware FIFO" of the simulated drivers: a single-producer (the
// simulated interrupt: a script thread or a test), single-consumer (the
// executor) lock-free ring, plus the attached irq_node to post. A push into
// a full ring is counted as an overflow, which the driver reports as an
// error value from read() (nothing disappears silently). The attached
// executor also marks the driver connected, so that a second connect()
// before the first is closed stops the program instead of stealing it.
#include <weft/core/executor.hpp>
#include <weft/core/interrupt_queue.hpp>

#include <sched.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace weft::sim {

template <class T, std::size_t N>
class irq_ring {
    static_assert(N >= 2 && (N & (N - 1)) == 0, "irq_ring: capacity must be a power of two");

public:
    static constexpr std::size_t capacity = N;

    /// Executor thread: where to post when data arrives. `kind` and `name`
    /// (the driver's, e.g. "button", "but0") only name it if it is already
    /// attached, which stops the program (a host checks it always).
    void attach(executor& ex, irq_node& n, const char* kind, const char* name) noexcept {
        // relaxed: only the executor thread stores ex_.
        if (ex_.load(std::memory_order_relaxed) != nullptr) attached_twice(kind, name);
        node_ = &n;
        // release: a producer that sees ex_ also sees node_.
        ex_.store(&ex, std::memory_order_release);
    }
    /// Executor thread: stop posting. When this returns no post is in
    /// flight (a producer that saw the executor has finished its post),
    /// and the ring can be attached again.
    void detach() noexcept {
        ex_.store(nullptr, std::memory_order_seq_cst);
        // seq_cst on both sides (Dekker): either raise() sees the null, or
        // we see its count and wait for it to finish.
        while (raising_.load(std::memory_order_seq_cst) != 0) sched_yield();
    }
    /// Interrupt-safe (one producer). False (and counted) if the ring is full.
    bool push(const T& v) noexcept {
        std::uint32_t t = tail_.load(std::memory_order_relaxed);
        // acquire: the slot we overwrite must have been consumed.
        if (t - head_.load(std::memory_order_acquire) == N) {
            overflows_.fetch_add(1, std::memory_order_relaxed);
            raise();
            return false;
        }
        items_[t % N] = v;
        // release: the consumer's acquire load of tail_ sees items_[t].
        tail_.store(t + 1, std::memory_order_release);
        raise();
        return true;
    }
    /// Executor: values waiting.
    std::size_t size() const noexcept {
        // acquire: pairs with push's release store.
        return tail_.load(std::memory_order_acquire) - head_.load(std::memory_order_relaxed);
    }
    /// Executor: precondition size() > 0.
    T pop() noexcept {
        std::uint32_t h = head_.load(std::memory_order_relaxed);
        T v = items_[h % N];
        // release: the producer may reuse the slot only after we read it.
        head_.store(h + 1, std::memory_order_release);
        return v;
    }
    /// Executor: overflows since the last call (then reset).
    std::uint32_t take_overflows() noexcept {
        return overflows_.exchange(0, std::memory_order_relaxed);
    }
    bool overflowed() const noexcept { return overflows_.load(std::memory_order_relaxed) != 0; }
    /// Interrupt-safe: tells the executor to look at the driver.
    void raise() noexcept {
        raising_.fetch_add(1, std::memory_order_seq_cst);
        // seq_cst: see detach(); it also orders node_ after attach's store.
        if (executor* ex = ex_.load(std::memory_order_seq_cst)) ex->post(*node_);
        // release: detach()'s caller may free the node once this reads 0.
        raising_.fetch_sub(1, std::memory_order_release);
    }

private:
    T items_[N] = {};
    std::atomic<std::uint32_t> head_{0}, tail_{0}, overflows_{0};
    std::atomic<executor*> ex_{nullptr};
    std::atomic<std::uint32_t> raising_{0};  // raise() calls past their count
    irq_node* node_ = nullptr;
};

}  // namespace weft::sim
