// SPDX-License-Identifier: Apache-2.0
#pragma once
// Simulated periodic timer peripheral (asynchronous input driver, bridge
// of std::uint32_t tick numbers): a thread plays the timer interrupt every
// `period` (absolute deadlines: no drift); with period 0, tick() raises
// one by hand (tests). Missed ticks (FIFO full) are reported by read() as
// an overflow error.
#include <weft/core/result.hpp>
#include <weft/core/time.hpp>
#include <weft_port/sim/irq_ring.hpp>

#include <pthread.h>
#include <time.h>

#include <atomic>
#include <cstdint>

namespace weft::sim {

class periodic_timer {
public:
    explicit periodic_timer(const char* name = "timer", duration period = {}) noexcept
        : name_(name), period_(period) {}
    periodic_timer(const periodic_timer&) = delete;
    periodic_timer& operator=(const periodic_timer&) = delete;
    ~periodic_timer() {
        stop_.store(true, std::memory_order_relaxed);
        if (started_) pthread_join(thread_, nullptr);
    }
    /// Interrupt-safe: one tick now. Only for a timer of period 0: its FIFO
    /// takes one producer, which is the timer's own thread otherwise.
    bool tick() noexcept { return ring_.push(count_.fetch_add(1, std::memory_order_relaxed)); }

    // --- bridge ---
    bool is_synchronous() const noexcept { return false; }
    void attach(executor& ex, irq_node& n) noexcept {
        ring_.attach(ex, n, "timer", name_);
        if (period_.count() > 0 && !started_) started_ = pthread_create(&thread_, nullptr, &run, this) == 0;
    }
    /// The timer keeps ticking into its FIFO (missed ticks are reported to
    /// the next connection).
    void detach() noexcept { ring_.detach(); }
    std::size_t readable() const noexcept { return ring_.size() + (ring_.overflowed() ? 1 : 0); }
    result<std::uint32_t> read() noexcept {
        if (ring_.overflowed() && ring_.take_overflows() != 0)
            return error{errc::overflow, "timer", name_, 8, "ticks missed"};
        return ring_.pop();
    }

private:
    static void* run(void* p) {
        auto* t = static_cast<periodic_timer*>(p);
        timespec next;
        clock_gettime(CLOCK_MONOTONIC, &next);
        const long long period_ns = t->period_.count();
        while (!t->stop_.load(std::memory_order_relaxed)) {
            long long ns = next.tv_nsec + period_ns;
            next.tv_sec += time_t(ns / 1'000'000'000);
            next.tv_nsec = long(ns % 1'000'000'000);
            while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, nullptr) != 0) {}
            (void)t->tick();
        }
        return nullptr;
    }

    const char* name_;
    duration period_;
    irq_ring<std::uint32_t, 8> ring_;
    std::atomic<std::uint32_t> count_{0};
    std::atomic<bool> stop_{false};
    pthread_t thread_{};
    bool started_ = false;
};

}  // namespace weft::sim
