// SPDX-License-Identifier: Apache-2.0
#pragma once
// isr_atomic<T>: std::atomic<T>'s interface for state shared between the
// executor and interrupt handlers (or, on the host, foreign threads).
//
// On a single-core port an interrupt handler runs on the very core whose
// code it interrupts, and a core sees its own loads and stores in program
// order; only the compiler could reorder them. There every operation is
// done relaxed between two compiler fences: exchanges stay atomic (on Arm,
// ldrex/strex, whose reservation an exception entry clears) and the memory
// barriers (dmb) that the orders would add go away, which is most of the
// ordering cost of an interrupt hand-off on a Cortex-M. A compare-and-swap
// there is a load, a compare and a store inside port::critical_section:
// no retry loop and no success flag to materialise, so fewer instructions
// than ldrex/strex; the masking (and the port's asm) is also the compiler
// fence. Not safe from a handler the critical section cannot mask (NMI,
// HardFault on Cortex-M). Elsewhere the orders are passed through
// unchanged.
#include <weft/port/port.hpp>

#include <atomic>

namespace weft::detail {

template <class T>
class isr_atomic {
    static constexpr bool one_core = port::single_core;
    static constexpr std::memory_order hw(std::memory_order o) noexcept {
        return one_core ? std::memory_order_relaxed : o;
    }
    // The compiler fences an order needs: before the access for release,
    // after it for acquire (consume is treated as acquire).
    [[gnu::always_inline]] static void fence_before(std::memory_order o) noexcept {
        if constexpr (one_core)
            if (o == std::memory_order_release || o == std::memory_order_acq_rel || o == std::memory_order_seq_cst)
                std::atomic_signal_fence(std::memory_order_seq_cst);
    }
    [[gnu::always_inline]] static void fence_after(std::memory_order o) noexcept {
        if constexpr (one_core)
            if (o != std::memory_order_relaxed && o != std::memory_order_release)
                std::atomic_signal_fence(std::memory_order_seq_cst);
    }

public:
    constexpr isr_atomic(T v) noexcept : v_(v) {}
    isr_atomic(const isr_atomic&) = delete;
    isr_atomic& operator=(const isr_atomic&) = delete;

    [[gnu::always_inline]] T load(std::memory_order o) const noexcept {
        T v = v_.load(hw(o));
        fence_after(o);
        return v;
    }
    [[gnu::always_inline]] void store(T v, std::memory_order o) noexcept {
        fence_before(o);
        v_.store(v, hw(o));
    }
    [[gnu::always_inline]] T exchange(T v, std::memory_order o) noexcept {
        fence_before(o);
        T old = v_.exchange(v, hw(o));
        fence_after(o);
        return old;
    }
    [[gnu::always_inline]] bool compare_exchange_weak(T& expected, T desired, std::memory_order success,
                                                      std::memory_order failure) noexcept {
        return cas<true>(expected, desired, success, failure);
    }
    [[gnu::always_inline]] bool compare_exchange_strong(T& expected, T desired, std::memory_order success,
                                                        std::memory_order failure) noexcept {
        return cas<false>(expected, desired, success, failure);
    }
    [[gnu::always_inline]] bool compare_exchange_strong(T& expected, T desired, std::memory_order o) noexcept {
        // The failure order std::atomic derives from `o`.
        return compare_exchange_strong(expected, desired, o,
                                       o == std::memory_order_acq_rel   ? std::memory_order_acquire
                                       : o == std::memory_order_release ? std::memory_order_relaxed
                                                                        : o);
    }

private:
    template <bool Weak>
    [[gnu::always_inline]] bool cas(T& expected, T desired, std::memory_order success,
                                    std::memory_order failure) noexcept {
        if constexpr (one_core) {
            port::critical_section masked;
            T cur = v_.load(std::memory_order_relaxed);
            if (cur != expected) {
                expected = cur;
                return false;
            }
            v_.store(desired, std::memory_order_relaxed);
            return true;
        }
        fence_before(success);
        bool ok = Weak ? v_.compare_exchange_weak(expected, desired, hw(success), hw(failure))
                       : v_.compare_exchange_strong(expected, desired, hw(success), hw(failure));
        fence_after(ok ? success : failure);
        return ok;
    }

    std::atomic<T> v_;
};

}  // namespace weft::detail
