// SPDX-License-Identifier: Apache-2.0
#pragma once
// A user LED of the MPS2 board as a channel endpoint: a synchronous output
// bridge of bool (weft/csp/bridge.hpp), the board twin of weft::sim::led.
//
//   weft::board::led led0{"led0", 0};
//   auto l = weft::csp::connect(ex, lchan, led0);  // values on lchan drive LED 0
#include <weft/core/executor.hpp>
#include <weft/core/interrupt_queue.hpp>
#include <weft/core/result.hpp>
#include <weft/port/port.hpp>
#include <weft_port/board/fpgaio.hpp>

#include <cstddef>

namespace weft::board {

class led {
public:
    /// LED `index` (< fpgaio::led_count). With `verbose`, each write also
    /// prints "<name> on|off" on the console (semihosting: slow, for demos
    /// and tests). Does not allocate.
    explicit led(const char* name, unsigned index = 0, bool verbose = false) noexcept
        : name_(name), mask_(1u << index), verbose_(verbose) {}
    led(const led&) = delete;
    led& operator=(const led&) = delete;

    const char* name() const noexcept { return name_; }
    /// State read back from the FPGAIO register.
    bool on() const noexcept { return (fpgaio::leds() & mask_) != 0; }
    /// Values written so far.
    unsigned writes() const noexcept { return writes_; }

    // --- bridge (weft/csp/bridge.hpp): synchronous, always writable ---
    bool is_synchronous() const noexcept { return true; }
    void attach(executor&, irq_node&) noexcept {}  // never interrupts
    void detach() noexcept {}
    std::size_t writable() const noexcept { return 1; }
    /// Executor thread. The read-modify-write of the shared register masks
    /// interrupts, so a handler driving the other LED cannot undo it.
    status write(bool v) noexcept {
        {
            port::critical_section cs;
            auto& r = fpgaio::leds();
            r = v ? (r | mask_) : (r & ~mask_);
        }
        ++writes_;
        if (verbose_) print(v);
        return {};
    }

private:
    void print(bool v) const noexcept {
        std::size_t n = 0;
        while (name_[n]) ++n;
        port::console_write(name_, n);
        if (v) port::console_write(" on\n", 4);
        else port::console_write(" off\n", 5);
    }

    const char* name_;
    std::uint32_t mask_;
    bool verbose_;
    unsigned writes_ = 0;
};

}  // namespace weft::board
