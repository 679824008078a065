// SPDX-License-Identifier: Apache-2.0
#pragma once
// Simulated push button (asynchronous input driver, bridge of bool):
// press()/release() act as the GPIO interrupt and may be called from a
// test or a script thread (one at a time: the FIFO has one producer), not
// from a POSIX signal handler: their post notifies the executor under a
// mutex, which a signal landing on a thread that holds it would deadlock.
// The executor reads true (pressed) / false (released) in order.
#include <weft/core/result.hpp>
#include <weft_port/sim/irq_ring.hpp>

namespace weft::sim {

class button {
public:
    explicit button(const char* name = "button") noexcept : name_(name) {}
    const char* name() const noexcept { return name_; }

    /// Interrupt-safe. False if 16 edges are already waiting (reported later
    /// by read() as an overflow error).
    bool press() noexcept { return ring_.push(true); }
    bool release() noexcept { return ring_.push(false); }

    // --- bridge (weft/csp/bridge.hpp) ---
    bool is_synchronous() const noexcept { return false; }
    void attach(executor& ex, irq_node& n) noexcept { ring_.attach(ex, n, "button", name_); }
    void detach() noexcept { ring_.detach(); }
    std::size_t readable() const noexcept { return ring_.size() + (ring_.overflowed() ? 1 : 0); }
    result<bool> read() noexcept {
        if (ring_.overflowed() && ring_.take_overflows() != 0)
            return error{errc::overflow, "button", name_, ring_.capacity, "edges lost, interrupt queue full"};
        return ring_.pop();
    }

private:
    const char* name_;
    irq_ring<bool, 16> ring_;
};

}  // namespace weft::sim
