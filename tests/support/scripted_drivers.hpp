// SPDX-License-Identifier: Apache-2.0
#pragma once
// Drivers a test scripts by hand, for connect(): an output whose
// writability the test opens, and an input the test feeds. Each posts its
// node when it changes, as a device's ISR would.
#include <weft/core/executor.hpp>
#include <weft/core/interrupt_queue.hpp>
#include <weft/core/result.hpp>

#include <cstddef>
#include <deque>
#include <vector>

namespace weft::test {

// What both share: the node connect() attaches, posted on each change.
struct scripted_driver {
    executor* ex = nullptr;
    irq_node* node = nullptr;
    bool is_synchronous() const noexcept { return false; }
    void attach(executor& e, irq_node& n) noexcept {
        ex = &e;
        node = &n;
    }
    void detach() noexcept { node = nullptr; }
    void changed() noexcept {
        if (node) (void)ex->post(*node);
    }
};

struct gate_out : scripted_driver {
    bool open_ = false;
    std::vector<int> written;
    std::size_t writable() const noexcept { return open_ ? 1 : 0; }
    status write(int v) noexcept {
        written.push_back(v);
        return {};
    }
    void open() noexcept {
        open_ = true;
        changed();
    }
};

struct fifo_in : scripted_driver {
    std::deque<int> q;
    std::size_t readable() const noexcept { return q.size(); }
    result<int> read() noexcept {
        int v = q.front();
        q.pop_front();
        return v;
    }
    void push(int v) noexcept {
        q.push_back(v);
        changed();
    }
};

}  // namespace weft::test
