// SPDX-License-Identifier: Apache-2.0
// The host port's simulated UART (weft_port/sim/uart.hpp) on the virtual
// clock: deliver() must not let time pass the bytes it puts on the wire.
#include <weft_port/sim/uart.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>

#include <vector>

using namespace weft;
using namespace std::chrono_literals;

namespace {
// Stands in for a connection: drains the RX FIFO when posted and records
// the virtual time it ran at.
struct rx_probe : irq_node {
    explicit rx_probe(executor& ex, sim::uart& u) : irq_node(&on_irq), ex_(&ex), u_(&u) {}
    static void on_irq(irq_node* n) noexcept {
        auto* self = static_cast<rx_probe*>(n);
        while (self->u_->rx().readable() != 0) {
            (void)self->u_->rx().read();
            self->at_ms.push_back(test::ms(*self->ex_));
        }
    }
    executor* ex_;
    sim::uart* u_;
    std::vector<std::int64_t> at_ms;
};
}  // namespace

// With inject() the script's sleep could start before the reader thread had
// moved the bytes: the virtual clock then jumped 1 s ahead of them.
TEST(sim_uart, delivered_bytes_arrive_before_the_virtual_clock_moves) {
    executor ex{test::virtual_clock()};
    sim::uart u{"console"};
    rx_probe probe{ex, u};
    ex.external_begin();
    u.rx().attach(ex, probe);
    auto script = [&]() -> task<> {
        for (int i = 0; i < 20; ++i) {
            EXPECT_TRUE(u.deliver("ab", 2));
            co_await sleep_for(1s);
        }
        u.rx().detach();
        ex.external_end();
    };
    auto h = ex.spawn(script());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    ASSERT_EQ(probe.at_ms.size(), 40u);
    for (std::size_t i = 0; i < probe.at_ms.size(); ++i) EXPECT_EQ(probe.at_ms[i], std::int64_t(i / 2) * 1000);
}

TEST(sim_uart, deliver_beyond_the_free_fifo_is_refused_by_name_and_limit) {
    executor ex{test::virtual_clock()};
    sim::uart u{"console"};
    irq_node node{[](irq_node*) noexcept {}};
    status before = u.deliver("x", 1);
    EXPECT_EQ(before.code(), errc::closed);
    EXPECT_STREQ(before.err().message().c_str(), "uart 'console': rx not connected, nothing reads the wire");
    u.rx().attach(ex, node);
    std::uint8_t bytes[64] = {};
    ASSERT_TRUE(u.deliver(bytes, 60));
    EXPECT_EQ(u.rx().readable(), 60u);
    status s = u.deliver(bytes, 5);
    EXPECT_EQ(s.code(), errc::full);
    EXPECT_STREQ(s.err().message().c_str(), "uart 'console': bytes to deliver exceed the free rx FIFO (limit 64)");
    ASSERT_TRUE(u.deliver(bytes, 4));
    EXPECT_EQ(u.rx().readable(), 64u);
    u.rx().detach();
    (void)ex.withdraw_post(node);
}
