// SPDX-License-Identifier: Apache-2.0
// Review 6: driver connections whose reads or writes fail, closed and
// reconnected, destroyed while their node is queued.
#include <weft/core/yield.hpp>
#include <weft/csp/connect.hpp>
#include <weft/csp/recv.hpp>
#include <weft/csp/send.hpp>

#include <gtest/gtest.h>
#include <support/scripted_drivers.hpp>
#include <support/weft_test.hpp>

#include <deque>
#include <optional>
#include <vector>

using namespace weft;
using namespace weft::csp;

namespace {
// An input driver the test feeds; a queued `fail` entry makes that read()
// fail (consuming the failure, as bridge.hpp asks). Posts its node on push.
struct flaky_in : test::scripted_driver {
    static constexpr int fail = -1;
    std::deque<int> q;
    int reads = 0;
    std::size_t readable() const noexcept { return q.size(); }
    result<int> read() noexcept {
        ++reads;
        int v = q.front();
        q.pop_front();
        if (v == fail) return error{errc::device, "sensor", "adc0", 0, "conversion failed"};
        return v;
    }
    void push(int v) noexcept {
        q.push_back(v);
        changed();
    }
};
static_assert(input_bridge<flaky_in, int>);

// An output driver whose write() of a negative value fails (and takes it).
struct picky_out : test::scripted_driver {
    bool open_ = true;
    std::vector<int> written;
    std::size_t writable() const noexcept { return open_ ? 1 : 0; }
    status write(int v) noexcept {
        if (v < 0) return error{errc::device, "dac", "dac0", 0, "value out of range"};
        written.push_back(v);
        return {};
    }
};
static_assert(output_bridge<picky_out, int>);
}  // namespace

// A failed read ends the connection's turn (docs/csp.md), also when it
// happens while another connection's handler runs (the output connection
// takes the input connection's held value and so pumps it) and the input
// connection's own node is still further down the same batch: that node
// leaves the batch and is posted again, so the rest of the driver is read
// after the ready task, not in the same drain (executor::post_next_turn).
TEST(csp_review6, a_failed_read_ends_the_turn_also_when_the_node_is_later_in_the_batch) {
    executor ex{test::virtual_clock()};
    channel<int> ch{"samples"};
    flaky_in adc;
    test::gate_out dac;
    auto out = connect(ex, ch, dac);  // waits as the first receiver
    auto in = connect(ex, ch, adc);
    adc.push(1);  // posts in's node
    adc.push(2);
    std::vector<int> seen_written;
    int reads_seen = -1;
    std::size_t errors_seen = 99;
    auto script = [&]() -> task<> {
        // Drained: 1 went to the output connection (held: gate closed), 2
        // waits in the input connection as a send offer.
        co_await weft::yield();
        EXPECT_EQ(adc.reads, 2);
        dac.open();           // posts out's node first
        adc.push(flaky_in::fail);  // then in's node: batch [out, in]
        adc.push(3);
        co_await weft::yield();  // ready while the batch drains
        reads_seen = adc.reads;
        errors_seen = in.errors();
        seen_written = dac.written;
    };
    auto h = ex.spawn(script());
    ASSERT_TRUE(h);
    // The connections stay open: stop once the script is done.
    auto stopper = [&]() -> task<> {
        co_await h->join();
        (void)in.close();
        (void)out.close();
    };
    auto s = ex.spawn(stopper());
    ASSERT_TRUE(s);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(errors_seen, 1u);
    // One failed read in this turn: 3 is still in the driver.
    EXPECT_EQ(reads_seen, 3);
    EXPECT_EQ(seen_written, (std::vector<int>{1, 2}));
}

// A connection destroyed from a task while the node its failed read
// re-posted is queued: the post is withdrawn, and a new connection built
// in the same storage (same node address) starts clean and gets the rest.
TEST(csp_review6, a_connection_destroyed_with_its_failed_read_repost_queued_leaves_no_post) {
    executor ex{test::virtual_clock()};
    channel<int> ch{"samples"};
    flaky_in adc;
    using conn = input_connection<int, 0, flaky_in>;
    std::optional<conn> c;
    adc.q = {0, flaky_in::fail, 5, 6};
    c.emplace(ex, ch, adc);  // reads 0 and holds it (no receiver)
    std::vector<int> got;
    auto t = [&]() -> task<> {
        auto v = co_await recv(ch);  // takes 0: the connection reads on, and fails
        got.push_back(v ? *v : -99);
        EXPECT_EQ(adc.reads, 2);
        EXPECT_EQ(c->errors(), 1u);
        c.reset();               // its node is queued (the failed read's re-post)
        c.emplace(ex, ch, adc);  // same address: reads 5 and holds it
        for (int i = 0; i < 2; ++i) {
            auto w = co_await recv(ch);
            got.push_back(w ? *w : -99);
        }
        (void)c->close();
    };
    auto h = ex.spawn(t());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got, (std::vector<int>{0, 5, 6}));
    EXPECT_EQ(adc.reads, 4);
    EXPECT_EQ(c->errors(), 0u);
}

// A write the driver refuses is reported and not retried; the values
// after it are written in order.
TEST(csp_review6, a_failed_write_is_reported_and_the_next_values_still_flow) {
    executor ex{test::virtual_clock()};
    channel<int> ch{"levels"};
    picky_out dac;
    auto c = connect(ex, ch, dac);
    auto t = [&]() -> task<> {
        for (int v : {1, -5, 2, 3}) EXPECT_TRUE(co_await send(ch, v));
        (void)c.close();
    };
    auto h = ex.spawn(t());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(dac.written, (std::vector<int>{1, 2, 3}));
    EXPECT_EQ(c.errors(), 1u);
    EXPECT_STREQ(c.last_error().message().c_str(), "dac 'dac0': value out of range");
    EXPECT_EQ(c.transferred(), 3u);
}

// An input connection holding a value when its channel closes hands it
// back on close(); the driver then connects to a new channel and the rest
// arrives there in order: nothing lost, nothing twice.
TEST(csp_review6, a_value_held_across_a_channel_close_comes_back_and_the_rest_flows_elsewhere) {
    executor ex{test::virtual_clock()};
    channel<int> first{"first"}, second{"second"};
    flaky_in adc;
    adc.q = {1, 2, 3};
    std::optional<int> back;
    std::vector<int> got;
    auto c1 = connect(ex, first, adc);  // holds 1 (no receiver)
    auto t = [&]() -> task<> {
        first.close();
        EXPECT_EQ(c1.errors(), 1u);
        back = c1.close();
        auto c2 = connect(ex, second, adc);
        for (int i = 0; i < 2; ++i) {
            auto v = co_await recv(second);
            got.push_back(v ? *v : -99);
        }
        (void)c2.close();
    };
    auto h = ex.spawn(t());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    ASSERT_TRUE(back);
    EXPECT_EQ(*back, 1);
    EXPECT_EQ(got, (std::vector<int>{2, 3}));
}
