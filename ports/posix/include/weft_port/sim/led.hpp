// SPDX-License-Identifier: Apache-2.0
#pragma once
// Simulated LED (synchronous output driver, bridge of bool): always
// writable; records its state and, if `verbose`, prints each change.
#include <weft/core/executor.hpp>
#include <weft/core/result.hpp>
#include <weft/port/port.hpp>

#include <cstdio>

namespace weft::sim {

class led {
public:
    explicit led(const char* name = "led", bool verbose = false) noexcept : name_(name), verbose_(verbose) {}
    bool on() const noexcept { return on_; }
    unsigned writes() const noexcept { return writes_; }

    // --- bridge (weft/csp/bridge.hpp) ---
    bool is_synchronous() const noexcept { return true; }
    void attach(executor&, irq_node&) noexcept {}  // synchronous: never interrupts
    void detach() noexcept {}
    std::size_t writable() const noexcept { return 1; }
    status write(bool v) noexcept {
        on_ = v;
        ++writes_;
        if (verbose_) {
            char line[64];
            int n = std::snprintf(line, sizeof line, "%s %s\n", name_, v ? "on" : "off");
            port::console_write(line, std::size_t(n));
        }
        return {};
    }

private:
    const char* name_;
    bool verbose_;
    bool on_ = false;
    unsigned writes_ = 0;
};

}  // namespace weft::sim
