// SPDX-License-Identifier: Apache-2.0
#pragma once
// A push button of the MPS2 board as a channel endpoint: an asynchronous
// input bridge of bool (true = pressed), the board twin of
// weft::sim::button.
//
//   weft::board::button but0{"but0", 0};
//   extern "C" void weft_irq_handler_9() { ack_timer(); but0.sample(); }  // the sampling ISR
//   auto b = weft::csp::connect(ex, bchan, but0);   // edges are sent on bchan
//
// The FPGAIO buttons raise no interrupt, so the application samples them
// from an interrupt of its choice (a periodic timer is a debouncer for
// free); sample() pushes one value per edge into a 16-entry FIFO and posts
// the connection. QEMU cannot press a button, so inject() is the test hook:
// it sets the level the next sample() sees, as a finger on the button would
// (the register is still read, and OR-ed in).
#include <weft/core/executor.hpp>
#include <weft/core/interrupt_queue.hpp>
#include <weft/core/result.hpp>
#include <weft_port/board/fpgaio.hpp>
#include <weft_port/board/irq_fifo.hpp>

#include <cstddef>
#include <cstdint>

namespace weft::board {

class button {
public:
    static constexpr std::size_t fifo = 16;

    /// Button `index` (< fpgaio::button_count). Does not allocate.
    explicit button(const char* name, unsigned index = 0) noexcept : name_(name), mask_(1u << index) {}
    button(const button&) = delete;
    button& operator=(const button&) = delete;

    const char* name() const noexcept { return name_; }

    /// Interrupt handler (the sampling ISR). Reads the button and, if its
    /// level changed since the last sample, queues the new level. False if
    /// an edge was lost because 16 were already waiting (read() reports it).
    bool sample() noexcept {
        bool now = (fpgaio::buttons() & mask_) != 0 || injected_;
        if (now == last_) return true;
        last_ = now;
        if (edges_.push(now)) [[likely]] return true;
        last_ = !now;  // not queued: the next sample that finds room queues this level
        return false;
    }
    /// Test hook, interrupt-safe: holds (true) or lets go of (false) the
    /// button as far as sample() can tell.
    void inject(bool pressed) noexcept { injected_ = pressed; }

    // --- bridge (weft/csp/bridge.hpp): asynchronous ---
    bool is_synchronous() const noexcept { return false; }
    void attach(executor& ex, irq_node& n) noexcept { edges_.attach(ex, n, "button", name_); }
    void detach() noexcept { edges_.detach(); }
    std::size_t readable() const noexcept { return edges_.readable(); }
    /// Executor thread. The oldest edge, or once per burst of lost edges
    /// "button 'but0': edges lost, interrupt queue full (limit 16)".
    result<bool> read() noexcept {
        if (edges_.overflowed() && edges_.take_overflows() != 0)
            return error{errc::overflow, "button", name_, fifo, "edges lost, interrupt queue full"};
        return edges_.pop();
    }

private:
    const char* name_;
    std::uint32_t mask_;
    volatile bool injected_ = false;
    bool last_ = false;  // handler only
    irq_fifo<bool, fifo> edges_;
};

}  // namespace weft::board
