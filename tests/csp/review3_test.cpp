// SPDX-License-Identifier: Apache-2.0
// Review of the channel's direct path (first receiver, first sender) mixed
// with every other way to wait on a channel: queued direct waits, choose,
// with_timeout(sync(e)), windows, driver connections, cancellation
// (join handles, when_any), close(), try_send / try_recv, buffered
// channels at their boundaries.
#include <weft/csp.hpp>

#include <gtest/gtest.h>
#include <support/scripted_drivers.hpp>
#include <support/weft_test.hpp>

#include <cstring>
#include <string>
#include <vector>

using namespace weft;
using namespace weft::csp;

namespace {

// GCC 12 gives every await of a coroutine its own frame slots: the
// receivers below that await many kinds of event outgrow the shared pools.
frame_pool<4096, 8> review3_frames{"review3"};

// A value that counts its live copies, so that a value lost in a slot or
// destroyed twice shows (ASan sees the double destruction too).
struct counted {
    static inline int live = 0;
    int v = 0;
    explicit counted(int x) noexcept : v(x) { ++live; }
    counted(counted&& o) noexcept : v(o.v) {
        o.v = -1;
        ++live;
    }
    counted& operator=(counted&& o) noexcept {
        v = o.v;
        o.v = -1;
        return *this;
    }
    counted(const counted&) = delete;
    counted& operator=(const counted&) = delete;
    ~counted() { --live; }
};

std::string text(const error& e) { return e.message().c_str(); }

using weft::test::fifo_in;
using weft::test::gate_out;

}  // namespace

static_assert(output_bridge<gate_out, int>);
static_assert(input_bridge<fifo_in, int>);

// A receive whose value was handed over keeps it when the task is cancelled
// before it resumes: the sender has already completed, so the cancel can
// only end the task's later awaits. Holds for the first receiver, a queued
// direct receive and a choose, and the channel is left with no receiver.
TEST(review3, a_value_handed_over_before_a_cancel_is_still_received) {
    executor ex{test::virtual_clock()};
    channel<int> ch{"ch"}, other{"other"};
    int got[3] = {0, 0, 0};
    errc later[3] = {errc::ok, errc::ok, errc::ok};
    auto direct = [&](int i) -> task<> {
        auto r = co_await recv(ch);
        got[i] = r ? *r : -1;
        later[i] = (co_await recv(ch)).code();
    };
    auto chooser = [&]() -> task<> {
        auto r = co_await choose(recv(ch), recv(other));
        got[2] = r ? *r : -1;
        later[2] = (co_await recv(ch)).code();
    };
    auto r0 = ex.spawn(direct(0));  // the first receiver
    ASSERT_TRUE(r0) << text(r0.err());
    auto r1 = ex.spawn(direct(1));  // queued behind it
    ASSERT_TRUE(r1) << text(r1.err());
    auto r2 = ex.spawn(chooser());  // a choose's offer, behind both
    ASSERT_TRUE(r2) << text(r2.err());
    auto sender = [&]() -> task<> {
        for (int v = 1; v <= 3; ++v) EXPECT_TRUE(co_await send(ch, v));  // each taken at once
        r0->cancel();
        r1->cancel();
        r2->cancel();
        EXPECT_EQ(ch.try_send(9).code(), errc::full);  // nobody waits any more
        EXPECT_EQ(other.try_send(9).code(), errc::full);  // the choose withdrew its other offer
    };
    auto s = ex.spawn(sender());
    ASSERT_TRUE(s) << text(s.err());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got[0], 1);
    EXPECT_EQ(got[1], 2);
    EXPECT_EQ(got[2], 3);
    for (errc e : later) EXPECT_EQ(e, errc::cancelled);
}

// The mirror image: a first sender whose value a receiver took completes
// with ok even if it is cancelled before it resumes.
TEST(review3, a_first_sender_taken_before_a_cancel_reports_ok) {
    executor ex{test::virtual_clock()};
    channel<int> ch{"ch"};
    errc first = errc::invalid, second = errc::invalid;
    auto sender = [&]() -> task<> {
        first = (co_await send(ch, 5)).code();
        second = (co_await send(ch, 6)).code();
    };
    auto s = ex.spawn(sender());
    ASSERT_TRUE(s) << text(s.err());
    auto receiver = [&]() -> task<> {
        auto v = ch.try_recv();  // takes the first sender's value
        EXPECT_TRUE(v);
        if (v) {
            EXPECT_EQ(*v, 5);
        }
        s->cancel();
        co_return;
    };
    auto r = ex.spawn(receiver());
    ASSERT_TRUE(r) << text(r.err());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(first, errc::ok);
    EXPECT_EQ(second, errc::cancelled);
    EXPECT_EQ(ch.try_recv().code(), errc::empty);  // 6 was never offered
}

// close() ends every kind of waiting receiver with `closed`, naming the
// channel, and wakes them in the order they came (first receiver, then the
// queue). The with_timeout's timer goes with its wait.
TEST(review3, close_ends_every_kind_of_receiver_in_arrival_order) {
    executor ex{test::virtual_clock()};
    channel<int> ch{"ch"}, other{"other"};
    std::vector<int> order;
    std::vector<std::string> texts;
    auto note = [&](int who, const error& e) {
        order.push_back(who);
        texts.push_back(text(e));
    };
    auto direct = [&](int who) -> task<> { note(who, (co_await recv(ch)).err()); };
    auto chooser = [&]() -> task<> { note(2, (co_await choose(recv(ch), recv(other))).err()); };
    auto bounded = [&]() -> task<> { note(3, (co_await weft::with_timeout(sync(recv(ch)), 1s)).err()); };
    auto a = ex.spawn(direct(0));
    ASSERT_TRUE(a) << text(a.err());
    auto b = ex.spawn(direct(1));
    ASSERT_TRUE(b) << text(b.err());
    auto c = ex.spawn(chooser());
    ASSERT_TRUE(c) << text(c.err());
    auto d = ex.spawn(bounded());
    ASSERT_TRUE(d) << text(d.err());
    auto closer = [&]() -> task<> {
        ch.close();
        co_return;
    };
    auto e = ex.spawn(closer());
    ASSERT_TRUE(e) << text(e.err());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3}));
    for (const std::string& t : texts) EXPECT_EQ(t, "channel 'ch': closed");
    EXPECT_EQ(test::ms(ex), 0);  // the 1 s bound was disarmed
    EXPECT_EQ(other.try_send(1).code(), errc::full);  // the choose's other offer is gone
}

// close() ends every kind of waiting sender with `closed`; the values are
// dropped with their events, none delivered, none leaked or destroyed
// twice. On a rendezvous: the first sender, a queued direct send, a
// choose and a bounded sync; on a full ring: queued senders, while the
// buffered values stay receivable.
TEST(review3, close_ends_every_kind_of_sender_and_drops_each_value_once) {
    counted::live = 0;
    {
        executor ex{test::virtual_clock()};
        channel<counted> rv{"rv"};
        channel<counted, 1> buf{"buf"};
        std::vector<std::string> texts;
        auto to_rv = [&](int v) -> task<> { texts.push_back(text((co_await send(rv, counted{v})).err())); };
        auto to_buf = [&](int v) -> task<> { texts.push_back(text((co_await send(buf, counted{v})).err())); };
        auto chooser = [&]() -> task<> {
            texts.push_back(text((co_await choose(send(rv, counted{3}), send(buf, counted{4}))).err()));
        };
        auto bounded = [&]() -> task<> {
            texts.push_back(text((co_await weft::with_timeout(sync(send(rv, counted{5})), 1s)).err()));
        };
        EXPECT_TRUE(buf.try_send(counted{10}));
        auto a = ex.spawn(to_rv(1));   // the first sender
        ASSERT_TRUE(a) << text(a.err());
        auto b = ex.spawn(to_rv(2));   // queued behind it
        ASSERT_TRUE(b) << text(b.err());
        auto c = ex.spawn(chooser());       // on both channels
        ASSERT_TRUE(c) << text(c.err());
        auto d = ex.spawn(bounded());
        ASSERT_TRUE(d) << text(d.err());
        auto f = ex.spawn(to_buf(6));  // behind the full ring
        ASSERT_TRUE(f) << text(f.err());
        auto closer = [&]() -> task<> {
            rv.close();
            buf.close();
            co_return;
        };
        auto e = ex.spawn(closer());
        ASSERT_TRUE(e) << text(e.err());
        EXPECT_EQ(ex.run(), run_outcome::completed);
        EXPECT_EQ(texts, (std::vector<std::string>{"channel 'rv': closed", "channel 'rv': closed",
                                                   "channel 'rv': closed", "channel 'rv': closed",
                                                   "channel 'buf': closed"}));
        EXPECT_EQ(test::ms(ex), 0);
        auto kept = buf.try_recv();
        ASSERT_TRUE(kept);
        EXPECT_EQ(kept->v, 10);
        EXPECT_EQ(buf.try_recv().code(), errc::closed);
        EXPECT_EQ(rv.try_recv().code(), errc::closed);
    }
    EXPECT_EQ(counted::live, 0);
}

// with_timeout(sync(recv(ch)), d) queued behind a first receiver: the
// timeout names the channel, withdraws only its own offer, and the first
// receiver still gets the next value.
TEST(review3, a_bounded_sync_behind_the_first_receiver_times_out_alone) {
    executor ex{test::virtual_clock()};
    channel<int> ch{"ch"};
    int first = 0;
    std::string bounded_text;
    std::int64_t bounded_at = -1;
    auto direct = [&]() -> task<> { first = *co_await recv(ch); };
    auto bounded = [&]() -> task<> {
        auto r = co_await weft::with_timeout(sync(recv(ch)), 5ms);
        bounded_text = text(r.err());
        bounded_at = test::ms(ex);
    };
    auto a = ex.spawn(direct());
    ASSERT_TRUE(a) << text(a.err());
    auto b = ex.spawn(bounded());
    ASSERT_TRUE(b) << text(b.err());
    auto sender = [&]() -> task<> {
        co_await sleep_for(10ms);
        EXPECT_TRUE(ch.try_send(1));                      // to the first receiver
        EXPECT_EQ(ch.try_send(2).code(), errc::full);      // the bounded offer is gone
    };
    auto s = ex.spawn(sender());
    ASSERT_TRUE(s) << text(s.err());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(first, 1);
    EXPECT_EQ(bounded_text, "channel 'ch': timeout");
    EXPECT_EQ(bounded_at, 5);
}

// A partner woken at the very instant a timeout falls due comes too late:
// the executor fires every timer due at an instant before it runs the
// tasks made ready at that instant, so the timeout commits first (and the
// partner then finds nobody).
TEST(review3, a_timeout_due_when_a_partner_wakes_commits_first) {
    executor ex{test::virtual_clock()};
    channel<int> ch{"ch"};
    std::string bounded_text, chose;
    errc late = errc::ok;
    auto bounded = [&]() -> task<> { bounded_text = text((co_await weft::with_timeout(sync(recv(ch)), 10ms)).err()); };
    auto chooser = [&]() -> task<> {
        auto r = co_await choose(wrap(recv(ch), [](int) { return std::string("value"); }),
                                 wrap(timeout(10ms), [] { return std::string("timeout"); }));
        chose = *r;
    };
    auto sender = [&]() -> task<> {
        co_await sleep_for(10ms);  // due with both timeouts, and armed before them
        late = ch.try_send(1).code();
    };
    auto s = ex.spawn(sender());
    ASSERT_TRUE(s) << text(s.err());
    auto a = ex.spawn(bounded());
    ASSERT_TRUE(a) << text(a.err());
    auto b = ex.spawn(chooser());
    ASSERT_TRUE(b) << text(b.err());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(bounded_text, "channel 'ch': timeout");
    EXPECT_EQ(chose, "timeout");
    EXPECT_EQ(late, errc::full);
}

// Between timers due at one instant, arming order decides: a partner's
// window that opens at the instant a with_timeout falls due, armed first,
// still delivers.
TEST(review3, a_partner_timer_armed_first_at_the_deadline_instant_delivers) {
    executor ex{test::virtual_clock()};
    channel<int> ch{"ch"};
    int got = 0;
    auto sender = [&]() -> task<> { EXPECT_TRUE(co_await within(send(ch, 1), 10ms, 20ms)); };
    auto bounded = [&]() -> task<> {
        auto r = co_await weft::with_timeout(sync(recv(ch)), 10ms);
        got = r ? *r : -1;
    };
    auto s = ex.spawn(sender());  // runs first: its window's timer is armed first
    ASSERT_TRUE(s) << text(s.err());
    auto b = ex.spawn(bounded());
    ASSERT_TRUE(b) << text(b.err());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got, 1);
    EXPECT_EQ(test::ms(ex), 10);
}

// Buffered channel, empty ring, receivers of every kind waiting: a burst of
// try_sends serves them in arrival order, then fills the ring, then fails
// with `full` naming the limit.
TEST(review3, a_burst_into_an_empty_ring_serves_waiting_receivers_in_order) {
    executor ex{test::virtual_clock()};
    channel<int, 2> ch{"ch"};
    channel<int> other{"other"};
    std::vector<std::pair<int, int>> got;  // (receiver, value)
    auto direct = [&](int who) -> task<> { got.emplace_back(who, *co_await recv(ch)); };
    auto chooser = [&]() -> task<> { got.emplace_back(1, *co_await choose(recv(other), recv(ch))); };
    auto bounded = [&]() -> task<> { got.emplace_back(3, *co_await weft::with_timeout(sync(recv(ch)), 1s)); };
    auto a = ex.spawn(direct(0));  // the first receiver
    ASSERT_TRUE(a) << text(a.err());
    auto b = ex.spawn(chooser());
    ASSERT_TRUE(b) << text(b.err());
    auto c = ex.spawn(direct(2));
    ASSERT_TRUE(c) << text(c.err());
    auto d = ex.spawn(bounded());
    ASSERT_TRUE(d) << text(d.err());
    std::string refused;
    auto sender = [&]() -> task<> {
        for (int v = 1; v <= 6; ++v) EXPECT_TRUE(ch.try_send(v)) << v;
        auto r = ch.try_send(7);
        refused = text(r.err());
        EXPECT_EQ(r.value(), 7);
        EXPECT_EQ(ch.size(), 2u);
        co_return;
    };
    auto s = ex.spawn(sender());
    ASSERT_TRUE(s) << text(s.err());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got, (std::vector<std::pair<int, int>>{{0, 1}, {1, 2}, {2, 3}, {3, 4}}));
    EXPECT_EQ(refused, "channel 'ch': full (limit 2)");
    EXPECT_EQ(*ch.try_recv(), 5);
    EXPECT_EQ(*ch.try_recv(), 6);
    EXPECT_EQ(test::ms(ex), 0);
}

// Buffered channel, full ring, senders of every kind waiting (one of them
// cancelled while queued): each value taken frees one place, which the
// oldest remaining sender fills, so values come out in the order they were
// offered and the ring stays full until the senders run out.
TEST(review3, a_full_ring_is_refilled_by_waiting_senders_in_order) {
    executor ex{test::virtual_clock()};
    fifo_in drv;
    channel<int, 2> ch{"ch"};
    channel<int> other{"other"};
    EXPECT_TRUE(ch.try_send(1));
    EXPECT_TRUE(ch.try_send(2));
    std::vector<errc> outcomes(5, errc::invalid);
    auto direct = [&](int i, int v) -> task<> { outcomes[i] = (co_await send(ch, v)).code(); };
    auto chooser = [&]() -> task<> { outcomes[1] = (co_await choose(send(other, -1), send(ch, 4))).code(); };
    auto bounded = [&]() -> task<> { outcomes[4] = (co_await weft::with_timeout(sync(send(ch, 6)), 1s)).code(); };
    auto a = ex.spawn(direct(0, 3));
    ASSERT_TRUE(a) << text(a.err());
    auto b = ex.spawn(chooser());
    ASSERT_TRUE(b) << text(b.err());
    auto c = ex.spawn(direct(2, 99));  // cancelled before any room frees
    ASSERT_TRUE(c) << text(c.err());
    auto d = ex.spawn(bounded());
    ASSERT_TRUE(d) << text(d.err());
    auto conn = connect(ex, ch, drv);
    std::vector<int> got;
    std::vector<std::size_t> sizes;
    auto receiver = [&]() -> task<> {
        co_await sleep_for(1ms);
        drv.push(7);  // the connection's offer queues behind the others
        co_await sleep_for(1ms);
        c->cancel();
        co_await sleep_for(1ms);
        for (int i = 0; i < 6; ++i) {
            got.push_back(*ch.try_recv());
            sizes.push_back(ch.size());
        }
        EXPECT_EQ(ch.try_recv().code(), errc::empty);
    };
    auto r = ex.spawn(receiver());
    ASSERT_TRUE(r) << text(r.err());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got, (std::vector<int>{1, 2, 3, 4, 6, 7}));
    EXPECT_EQ(sizes, (std::vector<std::size_t>{2, 2, 2, 2, 1, 0}));
    EXPECT_EQ(outcomes, (std::vector<errc>{errc::ok, errc::ok, errc::cancelled, errc::invalid, errc::ok}));
    EXPECT_EQ(conn.transferred(), 1u);
    EXPECT_EQ(other.try_recv().code(), errc::empty);  // the choose withdrew its other send
}

// Rendezvous: the first sender, then senders of every kind queued behind it
// (a connection's offer among them); receives of every kind take them in
// arrival order.
TEST(review3, waiting_senders_of_every_kind_meet_receivers_in_arrival_order) {
    executor ex{test::virtual_clock()};
    fifo_in drv;
    channel<int> ch{"ch"}, other{"other"};
    auto direct = [&](int v) -> task<> { EXPECT_TRUE(co_await send(ch, v)); };
    auto chooser = [&]() -> task<> { EXPECT_TRUE(co_await choose(send(other, -1), send(ch, 2))); };
    auto bounded = [&]() -> task<> {
        status st = co_await weft::with_timeout(sync(send(ch, 4)), 1s);
        EXPECT_TRUE(st) << text(st.err()) << " at " << test::ms(ex);
    };
    auto a = ex.spawn(direct(1));  // the first sender
    ASSERT_TRUE(a) << text(a.err());
    auto b = ex.spawn(chooser());
    ASSERT_TRUE(b) << text(b.err());
    auto conn = connect(ex, ch, drv);
    auto d = ex.spawn(bounded());
    ASSERT_TRUE(d) << text(d.err());
    auto e = ex.spawn(direct(5));
    ASSERT_TRUE(e) << text(e.err());
    std::vector<int> got;
    auto receiver = [&]() -> task<> {
        co_await sleep_for(1ms);  // every sender waits by now, except the driver's value
        got.push_back(*ch.try_recv());                                   // 1
        got.push_back(*co_await recv(ch));                               // 2
        got.push_back(*co_await choose(recv(other), recv(ch)));          // 4 (the connection has nothing yet)
        drv.push(3);
        co_await sleep_for(1ms);                                         // the connection queues 3 behind 5
        got.push_back(*co_await weft::with_timeout(sync(recv(ch)), 1s)); // 5
        got.push_back(*co_await recv(ch));                               // 3
        EXPECT_EQ(ch.try_recv().code(), errc::empty);
    };
    auto r = ex.spawn(receiver());
    ASSERT_TRUE(r) << text(r.err());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got, (std::vector<int>{1, 2, 4, 5, 3}));
    EXPECT_EQ(conn.transferred(), 1u);
}

// An output connection that holds a value its driver has not accepted does
// not wait on the channel; a task that sends meanwhile waits as the first
// sender, and the connection takes its value when the driver opens.
TEST(review3, an_output_connection_takes_the_first_sender_when_its_driver_opens) {
    executor ex{test::virtual_clock()};
    gate_out drv;
    channel<int> ch{"ch"};
    auto conn = connect(ex, ch, drv);
    std::vector<int> sent_at;
    auto sender = [&]() -> task<> {
        for (int v = 1; v <= 3; ++v) {
            EXPECT_TRUE(co_await send(ch, v));
            sent_at.push_back(int(test::ms(ex)));
        }
    };
    auto s = ex.spawn(sender());
    ASSERT_TRUE(s) << text(s.err());
    auto opener = [&]() -> task<> {
        co_await sleep_for(5ms);
        drv.open();
    };
    auto o = ex.spawn(opener());
    ASSERT_TRUE(o) << text(o.err());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    // 1 goes to the connection waiting first (held: the driver is shut),
    // 2 waits as the first sender until the driver opens; then 2 and 3
    // pass at once.
    EXPECT_EQ(sent_at, (std::vector<int>{0, 5, 5}));
    EXPECT_EQ(drv.written, (std::vector<int>{1, 2, 3}));
    EXPECT_EQ(conn.transferred(), 3u);
    EXPECT_EQ(conn.errors(), 0u);
}

// The output connection waiting as first receiver, a task receive queued
// behind it; closing the connection hands the receive the next value, and a
// cancelled receive after it leaves nobody.
TEST(review3, a_closed_output_connection_leaves_the_next_value_to_the_queued_receiver) {
    executor ex{test::virtual_clock()};
    gate_out drv;
    channel<int> ch{"ch"};
    auto conn = connect(ex, ch, drv);
    int got = 0;
    errc cancelled = errc::ok;
    auto receiver = [&]() -> task<> { got = *co_await recv(ch); };
    auto victim = [&]() -> task<> { cancelled = (co_await recv(ch)).code(); };
    auto r = ex.spawn(receiver());
    ASSERT_TRUE(r) << text(r.err());
    auto v = ex.spawn(victim());
    ASSERT_TRUE(v) << text(v.err());
    auto sender = [&]() -> task<> {
        co_await sleep_for(1ms);
        EXPECT_FALSE(conn.close());  // it held nothing
        v->cancel();
        EXPECT_TRUE(co_await send(ch, 8));
        EXPECT_EQ(ch.try_send(9).code(), errc::full);
    };
    auto s = ex.spawn(sender());
    ASSERT_TRUE(s) << text(s.err());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got, 8);
    EXPECT_EQ(cancelled, errc::cancelled);
    EXPECT_TRUE(drv.written.empty());
}

// A window opening while the other side waits on the direct path: a
// receive window takes the first sender's value at its opening, a send
// window hands its value to the first receiver.
TEST(review3, an_opening_window_meets_the_first_sender_or_receiver) {
    executor ex{test::virtual_clock()};
    channel<int> a{"a"}, b{"b"};
    std::int64_t sent_at = -1, recv_at = -1;
    int got_a = 0, got_b = 0;
    auto first_sender = [&]() -> task<> {
        EXPECT_TRUE(co_await send(a, 11));
        sent_at = test::ms(ex);
    };
    auto first_receiver = [&]() -> task<> {
        got_b = *co_await recv(b);
        recv_at = test::ms(ex);
    };
    auto windows = [&]() -> task<> {
        got_a = *co_await within(recv(a), 3ms, 10ms);
        EXPECT_TRUE(co_await within(send(b, 22), 4ms, 10ms));
    };
    auto s = ex.spawn(first_sender());
    ASSERT_TRUE(s) << text(s.err());
    auto r = ex.spawn(first_receiver());
    ASSERT_TRUE(r) << text(r.err());
    auto w = ex.spawn(windows());
    ASSERT_TRUE(w) << text(w.err());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got_a, 11);
    EXPECT_EQ(sent_at, 3);
    EXPECT_EQ(got_b, 22);
    EXPECT_EQ(recv_at, 7);
}

// when_any over tasks that receive: the loser parked as the first receiver
// is withdrawn, so the next value goes to a later receiver, not to it.
TEST(review3, a_when_any_loser_waiting_first_leaves_the_channel) {
    executor ex{test::virtual_clock()};
    channel<int> ch{"ch"};
    std::size_t winner = 9;
    int later = 0;
    auto receive = [&]() -> task<int> {
        auto r = co_await recv(ch);
        co_return r ? *r : -2;
    };
    auto nap = [&]() -> task<int> {
        co_await sleep_for(1ms);
        co_return -1;
    };
    auto racer = [&]() -> task<> {
        auto r = co_await weft::when_any(receive(), nap());
        winner = r.index;
        later = *co_await recv(ch);
    };
    auto t = ex.spawn(racer());
    ASSERT_TRUE(t) << text(t.err());
    auto sender = [&]() -> task<> {
        co_await sleep_for(2ms);
        EXPECT_TRUE(co_await send(ch, 4));
    };
    auto s = ex.spawn(sender());
    ASSERT_TRUE(s) << text(s.err());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(winner, 1u);
    EXPECT_EQ(later, 4);
}

// when_any over two receiving tasks when both receive in the same step:
// the loser's receive had completed before the cancel (a handed-over value
// is never taken back), so its value ends with the loser's result, which
// when_any drops. The channel itself lost nothing: both values were
// received. (docs/csp.md, "Cancellation after a hand-over".)
TEST(review3, a_when_any_loser_that_received_drops_its_value_with_its_result) {
    executor ex{test::virtual_clock()};
    channel<int> ch{"ch"};
    int loser_got = 0;
    when_any_result<int, int> out{};
    auto receive = [&](bool loser) -> task<int> {
        int v = *co_await recv(ch);
        if (loser) loser_got = v;
        co_return v;
    };
    auto racer = [&]() -> task<> { out = co_await weft::when_any(receive(false), receive(true)); };
    auto t = ex.spawn(racer());
    ASSERT_TRUE(t) << text(t.err());
    auto sender = [&]() -> task<> {
        co_await sleep_for(1ms);
        EXPECT_TRUE(ch.try_send(1));
        EXPECT_TRUE(ch.try_send(2));
        co_return;
    };
    auto s = ex.spawn(sender());
    ASSERT_TRUE(s) << text(s.err());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(out.index, 0u);
    EXPECT_EQ(**std::get<0>(out.values), 1);
    EXPECT_FALSE(std::get<1>(out.values).has_value());
    EXPECT_EQ(loser_got, 2);
}

// Every way a value can travel (to the first receiver, to a queued direct
// receive, to a choose, from the first sender, through a ring refilled by
// a waiting sender, refused by try_send, dropped by a timed-out or
// cancelled send) constructs and destroys it in balance.
TEST(review3, every_path_destroys_each_value_exactly_once) {
    counted::live = 0;
    {
        executor ex{test::virtual_clock()};
        channel<counted> rv{"rv"}, other{"other"};
        channel<counted, 1> buf{"buf"};
        std::vector<int> got;
        auto direct = [&]() -> task<> {
            auto r = co_await recv(rv);
            got.push_back(r ? r->v : -1);
        };
        auto chooser = [&]() -> task<> {
            auto r = co_await choose(recv(other), recv(rv));
            got.push_back(r ? r->v : -1);
        };
        auto cancelled_recv = [&]() -> task<> { EXPECT_EQ((co_await recv(rv)).code(), errc::cancelled); };
        auto first_sender = [&]() -> task<> { EXPECT_TRUE(co_await send(rv, counted{4})); };
        auto full_sender = [&]() -> task<> { EXPECT_TRUE(co_await send(buf, counted{6})); };
        auto timed_out = [&]() -> task<> {
            status st = co_await weft::with_timeout(sync(send(buf, counted{7})), 1ms);
            EXPECT_EQ(st.code(), errc::timeout);
        };
        auto a = ex.spawn(direct());  // the first receiver
        ASSERT_TRUE(a) << text(a.err());
        auto b = ex.spawn(direct());  // a queued direct receive
        ASSERT_TRUE(b) << text(b.err());
        auto c = ex.spawn(chooser());
        ASSERT_TRUE(c) << text(c.err());
        auto d = ex.spawn(cancelled_recv());
        ASSERT_TRUE(d) << text(d.err());
        auto driver = [&]() -> task<> {
            for (int v = 1; v <= 3; ++v) EXPECT_TRUE(rv.try_send(counted{v}));
            d->cancel();
            auto refused = rv.try_send(counted{9});
            EXPECT_EQ(refused.code(), errc::full);
            EXPECT_EQ(refused.value().v, 9);
            co_await sleep_for(1ms);
            auto fs = ex.spawn(first_sender());
            EXPECT_TRUE(fs);
            co_await sleep_for(1ms);
            auto r = rv.try_recv();
            got.push_back(r ? r->v : -1);
            EXPECT_TRUE(buf.try_send(counted{5}));
            auto f = ex.spawn(full_sender());
            EXPECT_TRUE(f);
            auto t = ex.spawn(timed_out());
            EXPECT_TRUE(t);
            co_await sleep_for(2ms);
            for (int i = 0; i < 2; ++i) {
                auto v = co_await recv(buf);
                got.push_back(v ? v->v : -1);
            }
        };
        auto e = ex.spawn(driver());
        ASSERT_TRUE(e) << text(e.err());
        EXPECT_EQ(ex.run(), run_outcome::completed);
        EXPECT_EQ(got, (std::vector<int>{1, 2, 3, 4, 5, 6}));
    }
    EXPECT_EQ(counted::live, 0);
}
