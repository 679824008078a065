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

struct gate_out {
    executor* ex = nullptr;
    irq_node* node = nullptr;
    bool open_ = false;
    std::vector<int> written;
    bool is_synchronous() const noexcept { return false; }
    void attach(executor& e, irq_node& n) noexcept {
        ex = &e;
        node = &n;
    }
    void detach() noexcept { node = nullptr; }
    std::size_t writable() const noexcept { return open_ ? 1 : 0; }
    status write(int v) noexcept {
        written.push_back(v);
        return {};
    }
    void open() noexcept {
        open_ = true;
        if (node) (void)ex->post(*node);
    }
};

struct fifo_in {
    executor* ex = nullptr;
    irq_node* node = nullptr;
    std::deque<int> q;
    bool is_synchronous() const noexcept { return false; }
    void attach(executor& e, irq_node& n) noexcept {
        ex = &e;
        node = &n;
    }
    void detach() noexcept { node = nullptr; }
    std::size_t readable() const noexcept { return q.size(); }
    result<int> read() noexcept {
        int v = q.front();
        q.pop_front();
        return v;
    }
    void push(int v) noexcept {
        q.push_back(v);
        if (node) (void)ex->post(*node);
    }
};

}  // namespace weft::test
