// SPDX-License-Identifier: Apache-2.0
// The interrupt-to-executor hand-off: arrival order, refused double posts,
// and withdraw(), which lets the owner of a posted node (a driver
// connection) be destroyed before the executor ran its handler.
#include <weft/core/interrupt_queue.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>

using namespace weft;

namespace {

std::string trace;

struct named_node : irq_node {
    explicit named_node(char c) : irq_node(&on_run), name(c) {}
    static void on_run(irq_node* n) noexcept { trace += static_cast<named_node*>(n)->name; }
    char name;
};

}  // namespace

TEST(interrupt_queue, drain_runs_posts_in_arrival_order_and_refuses_a_second_post) {
    trace.clear();
    interrupt_queue q;
    named_node a{'a'}, b{'b'}, c{'c'};
    EXPECT_TRUE(q.post(a));
    EXPECT_TRUE(q.post(b));
    EXPECT_FALSE(q.post(a));  // still queued: the ISR learns it
    EXPECT_TRUE(q.post(c));
    EXPECT_EQ(q.drain(), 3u);
    EXPECT_EQ(trace, "abc");
    EXPECT_TRUE(q.post(a));  // handled: may be posted again
    EXPECT_EQ(q.drain(), 1u);
    EXPECT_EQ(trace, "abca");
}

TEST(interrupt_queue, withdraw_unqueues_one_node_and_keeps_the_others_in_order) {
    trace.clear();
    interrupt_queue q;
    named_node a{'a'}, b{'b'}, c{'c'}, d{'d'};
    q.post(a);
    q.post(b);
    q.post(c);
    EXPECT_TRUE(q.withdraw(b));
    EXPECT_FALSE(q.withdraw(b));  // not queued any more
    q.post(d);                    // after the withdraw: still behind a and c
    EXPECT_EQ(q.drain(), 3u);
    EXPECT_EQ(trace, "acd");
    EXPECT_TRUE(q.post(b));  // its queued flag was cleared
    EXPECT_EQ(q.drain(), 1u);
    EXPECT_EQ(trace, "acdb");
}

TEST(interrupt_queue, withdraw_of_an_unposted_node_changes_nothing) {
    trace.clear();
    interrupt_queue q;
    named_node a{'a'}, b{'b'};
    q.post(a);
    EXPECT_FALSE(q.withdraw(b));
    EXPECT_EQ(q.drain(), 1u);
    EXPECT_EQ(trace, "a");
    EXPECT_FALSE(q.maybe_pending());
}

// A handler that destroys another node's owner (a connection closed from
// the handler of a sibling) must keep that node's handler from running,
// although it already left the shared stack as part of the same batch.
TEST(interrupt_queue, withdraw_from_a_handler_removes_a_later_node_of_the_same_batch) {
    trace.clear();
    interrupt_queue q;
    named_node b{'b'}, c{'c'};
    struct closer : irq_node {
        closer(interrupt_queue& q, irq_node& victim) : irq_node(&on_run), q(&q), victim(&victim) {}
        static void on_run(irq_node* n) noexcept {
            auto* self = static_cast<closer*>(n);
            trace += 'x';
            self->withdrew = self->q->withdraw(*self->victim);
        }
        interrupt_queue* q;
        irq_node* victim;
        bool withdrew = false;
    } x{q, b};
    q.post(x);
    q.post(b);
    q.post(c);
    EXPECT_EQ(q.drain(), 2u);
    EXPECT_TRUE(x.withdrew);
    EXPECT_EQ(trace, "xc");
    EXPECT_TRUE(q.post(b));
}

// A foreign thread keeps posting its nodes while the executor posts and
// withdraws one of its own: the withdraw takes the whole stack and puts the
// rest back under the newer posts. Every accepted post must be handled
// exactly once, and the withdrawn node never.
TEST(interrupt_queue, withdraw_keeps_every_post_of_a_concurrent_interrupt_thread) {
    constexpr int producers_posts = 200'000;
    interrupt_queue q;
    struct counted : irq_node {
        counted() : irq_node(&on_run) {}
        static void on_run(irq_node* n) noexcept { ++static_cast<counted*>(n)->handled; }
        long handled = 0;  // executor thread only
    };
    counted isr_nodes[4];
    counted mine;
    std::atomic<long> accepted[4] = {};
    std::atomic<bool> done{false};
    std::thread isr([&] {
        for (int i = 0; i < producers_posts; ++i) {
            counted& n = isr_nodes[i % 4];
            if (q.post(n)) accepted[i % 4].fetch_add(1, std::memory_order_relaxed);
        }
        done.store(true, std::memory_order_release);
    });
    long withdrawn = 0;
    int round = 0;
    while (!done.load(std::memory_order_acquire)) {
        q.post(mine);
        if (q.withdraw(mine)) ++withdrawn;
        if (++round % 3 == 0) q.drain();
    }
    isr.join();
    q.drain();
    EXPECT_EQ(mine.handled, 0);
    EXPECT_EQ(withdrawn, round);
    for (int k = 0; k < 4; ++k) EXPECT_EQ(isr_nodes[k].handled, accepted[k].load()) << "node " << k;
}
