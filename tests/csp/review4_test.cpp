// SPDX-License-Identifier: Apache-2.0
// Review of the Concurrent-ML layer (2026-11-27): choose over one channel
// twice and over both ends of one channel, windows at their exact
// boundaries and empty ones, guards that build a ready event, timeout(0)
// and at() in the past, try_send / try_recv against waiting choose offers,
// close() and cancellation of choose senders, and driver connections
// meeting chooses.
#include <weft/csp.hpp>

#include <gtest/gtest.h>
#include <support/scripted_drivers.hpp>
#include <support/weft_test.hpp>

#include <string>
#include <vector>

using namespace weft;
using namespace weft::csp;

namespace {

// Tasks that await several kinds of event outgrow the shared pools with GCC 12.
frame_pool<4096, 8> review4_frames{"review4"};

std::string text(const error& e) { return e.message().c_str(); }

using weft::test::fifo_in;
using weft::test::gate_out;

}  // namespace

// One choose with two receives on one rendezvous: a sender meets exactly one
// of them (the first offered, FIFO), and the other is withdrawn with it.
TEST(review4, a_choose_over_one_channel_twice_takes_one_value) {
    executor ex{test::virtual_clock()};
    channel<int> ch{"ch"};
    int got = 0;
    auto chooser = [&]() -> task<> {
        auto r = co_await choose(wrap(recv(ch), [](int v) { return v; }),
                                 wrap(recv(ch), [](int v) { return 100 + v; }));
        got = r ? *r : -1;
    };
    auto sender = [&]() -> task<> {
        EXPECT_TRUE(ch.try_send(1));
        auto r = ch.try_send(2);  // the second offer went with the first
        EXPECT_EQ(r.code(), errc::full);
        EXPECT_EQ(r.value(), 2);
        co_return;
    };
    auto c = ex.spawn(chooser());
    ASSERT_TRUE(c) << text(c.err());
    auto s = ex.spawn(sender());
    ASSERT_TRUE(s) << text(s.err());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got, 1);
}

// A choose of a send and a receive on one rendezvous never meets itself: it
// waits with both offers, and whichever partner comes takes exactly one.
TEST(review4, a_choose_sending_and_receiving_on_one_rendezvous_meets_partners_only) {
    executor ex{test::virtual_clock()};
    channel<int> ch{"ch"};
    int first = 0, second = 0;
    auto chooser = [&](int v, int& out, duration delay) -> task<> {
        co_await sleep_for(delay);
        auto r = co_await choose(wrap(send(ch, v), [] { return -1; }), wrap(recv(ch), [](int x) { return x; }));
        out = r ? *r : -2;
    };
    auto partner = [&]() -> task<> {
        co_await sleep_for(1ms);
        auto v = ch.try_recv();  // takes the first chooser's send
        EXPECT_TRUE(v);
        EXPECT_EQ(v ? *v : 0, 10);
        EXPECT_EQ(ch.try_recv().code(), errc::empty);  // its receive went with it
        co_await sleep_for(2ms);
        EXPECT_TRUE(ch.try_send(7));  // meets the second chooser's receive
        EXPECT_EQ(ch.try_recv().code(), errc::empty);  // and its send is gone
    };
    auto a = ex.spawn(chooser(10, first, 0ms));
    ASSERT_TRUE(a) << text(a.err());
    auto b = ex.spawn(chooser(20, second, 2ms));
    ASSERT_TRUE(b) << text(b.err());
    auto p = ex.spawn(partner());
    ASSERT_TRUE(p) << text(p.err());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(first, -1);
    EXPECT_EQ(second, 7);
}

// Two chooses, each of a send and a receive on one rendezvous, meet each
// other: one sends, the other receives, both end.
TEST(review4, two_chooses_of_send_and_recv_on_one_rendezvous_meet) {
    executor ex{test::virtual_clock()};
    channel<int> ch{"ch"};
    int a_out = 0, b_out = 0;
    auto chooser = [&](int v, int& out) -> task<> {
        auto r = co_await choose(wrap(send(ch, v), [] { return -1; }), wrap(recv(ch), [](int x) { return x; }));
        out = r ? *r : -2;
    };
    auto a = ex.spawn(chooser(1, a_out));
    ASSERT_TRUE(a) << text(a.err());
    auto b = ex.spawn(chooser(2, b_out));
    ASSERT_TRUE(b) << text(b.err());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    // a waits with both offers; b's poll meets one of them.
    EXPECT_TRUE((a_out == -1 && b_out == 1) || (a_out == 2 && b_out == -1)) << a_out << " " << b_out;
    EXPECT_EQ(ch.try_recv().code(), errc::empty);
    EXPECT_EQ(ch.try_send(3).code(), errc::full);
}

// A window admits a partner at exactly `earliest` (its opening timer runs
// before the partner's task at that instant) and refuses one at exactly
// `latest` (its closing timer runs first): earliest <= t < latest.
TEST(review4, a_window_admits_its_earliest_instant_and_refuses_its_latest) {
    executor ex{test::virtual_clock()};
    channel<int> early{"early"}, late{"late"};
    std::int64_t early_at = -1, late_at = -1;
    errc late_code = errc::ok, late_send = errc::ok;
    auto rx_early = [&]() -> task<> {
        auto r = co_await within(recv(early), 5ms, 10ms);
        EXPECT_TRUE(r);
        early_at = test::ms(ex);
    };
    auto rx_late = [&]() -> task<> {
        late_code = (co_await within(recv(late), 5ms, 10ms)).code();
        late_at = test::ms(ex);
    };
    auto tx = [&]() -> task<> {
        co_await sleep_for(5ms);
        EXPECT_TRUE(early.try_send(1));
        co_await sleep_for(5ms);
        late_send = late.try_send(2).code();
    };
    auto t = ex.spawn(tx());  // armed first: its timers are due with the windows'
    ASSERT_TRUE(t) << text(t.err());
    auto a = ex.spawn(rx_early());
    ASSERT_TRUE(a) << text(a.err());
    auto b = ex.spawn(rx_late());
    ASSERT_TRUE(b) << text(b.err());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(early_at, 5);
    EXPECT_EQ(late_code, errc::timeout);
    EXPECT_EQ(late_at, 10);
    EXPECT_EQ(late_send, errc::full);
}

// An inverted window (earliest after latest) is empty like earliest ==
// latest: a sync on it alone ends with `timeout` at the window's end, not
// at its (never reached) opening.
TEST(review4, an_inverted_window_ends_the_sync_at_its_end) {
    executor ex{test::virtual_clock()};
    channel<int, 1> ch{"ch"};
    EXPECT_TRUE(ch.try_send(1));  // ready all along: the window alone refuses it
    errc code = errc::ok;
    std::int64_t when = -1;
    auto t = [&]() -> task<> {
        code = (co_await within(recv(ch), 10ms, 5ms)).code();
        when = test::ms(ex);
    };
    auto h = ex.spawn(t());
    ASSERT_TRUE(h) << text(h.err());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(code, errc::timeout);
    EXPECT_EQ(when, 5);
    EXPECT_EQ(ch.size(), 1u);
}

// The same for an absolute window, inside a choose whose other branch is
// later: the window's branch is counted out at its end, the choose keeps
// waiting for the other one.
TEST(review4, an_inverted_absolute_window_in_a_choose_never_commits) {
    executor ex{test::virtual_clock()};
    channel<int, 1> ch{"ch"};
    EXPECT_TRUE(ch.try_send(1));
    int got = 0;
    std::int64_t when = -1;
    auto t = [&]() -> task<> {
        auto r = co_await choose(window(recv(ch), from_ns(8'000'000), from_ns(4'000'000)),
                                 wrap(timeout(20ms), [] { return -1; }));
        got = r ? *r : -2;
        when = test::ms(ex);
    };
    auto h = ex.spawn(t());
    ASSERT_TRUE(h) << text(h.err());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got, -1);
    EXPECT_EQ(when, 20);
    EXPECT_EQ(ch.size(), 1u);
}

// A guard whose event is ready when it is built commits at once, without
// waiting for the other branch; its function runs once per sync, also
// inside a window, where the built event still waits for the opening.
TEST(review4, a_guard_building_a_ready_event_commits_at_once_and_runs_once) {
    executor ex{test::virtual_clock()};
    channel<int, 2> ch{"ch"};
    int calls = 0, got = 0, windowed = 0;
    std::int64_t at_once = -1, opened = -1;
    auto t = [&]() -> task<> {
        auto r = co_await choose(guard([&] {
                                     ++calls;
                                     EXPECT_TRUE(ch.try_send(7));
                                     return recv(ch);
                                 }),
                                 wrap(timeout(1ms), [] { return -1; }));
        got = r ? *r : -2;
        at_once = test::ms(ex);
        auto w = co_await within(guard([&] {
                                     ++calls;
                                     EXPECT_TRUE(ch.try_send(8));
                                     return recv(ch);
                                 }),
                                 3ms, 6ms);
        windowed = w ? *w : -2;
        opened = test::ms(ex);
    };
    auto h = ex.spawn(t());
    ASSERT_TRUE(h) << text(h.err());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got, 7);
    EXPECT_EQ(at_once, 0);
    EXPECT_EQ(windowed, 8);
    EXPECT_EQ(opened, 3);
    EXPECT_EQ(calls, 2);
}

// timeout(0) and at() of the present or the past are ready at the sync's
// start: alone they do not wait, in choose_ordered they win by position,
// and a ready branch before them wins.
TEST(review4, timeout_zero_and_at_in_the_past_are_ready_at_once) {
    executor ex{test::virtual_clock()};
    channel<int, 1> ready{"ready"};
    channel<int> idle{"idle"};
    std::vector<int> picks;
    std::vector<std::int64_t> times;
    auto t = [&]() -> task<> {
        co_await sleep_for(5ms);
        EXPECT_TRUE(co_await timeout(0ms));
        times.push_back(test::ms(ex));
        EXPECT_TRUE(co_await at(from_ns(1'000'000)));  // 1 ms: past
        times.push_back(test::ms(ex));
        EXPECT_TRUE(co_await at(ex.now()));  // the present
        times.push_back(test::ms(ex));
        EXPECT_TRUE(ready.try_send(1));
        auto a = co_await choose_ordered(wrap(timeout(0ms), [] { return 0; }), recv(ready));
        picks.push_back(a ? *a : -1);
        auto b = co_await choose_ordered(recv(ready), wrap(at(from_ns(0)), [] { return 0; }));
        picks.push_back(b ? *b : -1);
        auto c = co_await choose_ordered(recv(idle), wrap(at(from_ns(2'000'000)), [] { return 2; }));
        picks.push_back(c ? *c : -1);
        times.push_back(test::ms(ex));
    };
    auto h = ex.spawn(t());
    ASSERT_TRUE(h) << text(h.err());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(times, (std::vector<std::int64_t>{5, 5, 5, 5}));
    EXPECT_EQ(picks, (std::vector<int>{0, 1, 2}));
    EXPECT_EQ(idle.try_send(9).code(), errc::full);  // no offer left behind
}

// try_recv and try_send meet the offers of a waiting choose: each takes
// exactly one branch, and the choose's other offers are gone at once.
TEST(review4, try_send_and_try_recv_meet_a_waiting_choose_once) {
    executor ex{test::virtual_clock()};
    channel<int> a{"a"}, b{"b"}, c{"c"}, d{"d"};
    int sent = 0, received = 0;
    auto senders = [&]() -> task<> {
        auto r = co_await choose(wrap(send(a, 1), [] { return 1; }), wrap(send(b, 2), [] { return 2; }));
        sent = r ? *r : -1;
    };
    auto receivers = [&]() -> task<> {
        auto r = co_await choose(recv(c), recv(d));
        received = r ? *r : -1;
    };
    std::vector<errc> codes;
    auto partner = [&]() -> task<> {
        auto v = b.try_recv();
        EXPECT_TRUE(v);
        EXPECT_EQ(v ? *v : 0, 2);
        codes.push_back(a.try_recv().code());  // withdrawn
        codes.push_back(b.try_recv().code());
        EXPECT_TRUE(c.try_send(3));
        codes.push_back(d.try_send(4).code());  // withdrawn
        codes.push_back(c.try_send(5).code());
        co_return;
    };
    auto s = ex.spawn(senders());
    ASSERT_TRUE(s) << text(s.err());
    auto r = ex.spawn(receivers());
    ASSERT_TRUE(r) << text(r.err());
    auto p = ex.spawn(partner());
    ASSERT_TRUE(p) << text(p.err());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(sent, 2);
    EXPECT_EQ(received, 3);
    EXPECT_EQ(codes, (std::vector<errc>{errc::empty, errc::empty, errc::full, errc::full}));
}

// close() of a full ring ends a choose waiting to send on it with `closed`,
// naming the channel; its value is not added and the buffered one stays.
TEST(review4, close_ends_a_choose_sending_into_a_full_ring) {
    executor ex{test::virtual_clock()};
    channel<int, 1> full{"full"};
    channel<int> other{"other"};
    EXPECT_TRUE(full.try_send(1));
    std::string outcome;
    auto chooser = [&]() -> task<> {
        status st = co_await choose(send(full, 9), send(other, 8));
        outcome = st ? "ok" : text(st.err());
    };
    auto closer = [&]() -> task<> {
        co_await sleep_for(1ms);
        full.close();
        EXPECT_EQ(other.try_recv().code(), errc::empty);  // withdrawn
    };
    auto c = ex.spawn(chooser());
    ASSERT_TRUE(c) << text(c.err());
    auto k = ex.spawn(closer());
    ASSERT_TRUE(k) << text(k.err());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(outcome, "channel 'full': closed");
    EXPECT_EQ(full.size(), 1u);
    EXPECT_EQ(*full.try_recv(), 1);
    EXPECT_EQ(full.try_recv().code(), errc::closed);
}

// A one-place ring with senders queued behind it, the middle one a choose
// that is cancelled: the others refill the ring in order, and the
// cancelled one's value never arrives.
TEST(review4, a_cancelled_choose_sender_between_others_on_a_one_place_ring) {
    executor ex{test::virtual_clock()};
    channel<int, 1> ch{"ch"};
    channel<int> other{"other"};
    EXPECT_TRUE(ch.try_send(0));
    std::vector<errc> codes(3, errc::invalid);
    auto direct = [&](int i, int v) -> task<> { codes[i] = (co_await send(ch, v)).code(); };
    auto chooser = [&]() -> task<> { codes[1] = (co_await choose(send(other, -1), send(ch, 2))).code(); };
    auto a = ex.spawn(direct(0, 1));
    ASSERT_TRUE(a) << text(a.err());
    auto b = ex.spawn(chooser());
    ASSERT_TRUE(b) << text(b.err());
    auto c = ex.spawn(direct(2, 3));
    ASSERT_TRUE(c) << text(c.err());
    std::vector<int> got;
    auto receiver = [&]() -> task<> {
        co_await sleep_for(1ms);
        b->cancel();
        for (int i = 0; i < 3; ++i) {
            auto r = co_await recv(ch);
            got.push_back(r ? *r : -1);
        }
        EXPECT_EQ(ch.try_recv().code(), errc::empty);
        EXPECT_EQ(other.try_recv().code(), errc::empty);
    };
    auto r = ex.spawn(receiver());
    ASSERT_TRUE(r) << text(r.err());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got, (std::vector<int>{0, 1, 3}));
    EXPECT_EQ(codes, (std::vector<errc>{errc::ok, errc::cancelled, errc::ok}));
}

// An output connection waiting as the first receiver takes exactly one
// branch of a choose of two sends on its channel; the other value is not
// written.
TEST(review4, an_output_connection_takes_one_branch_of_a_choose_of_two_sends) {
    executor ex{test::virtual_clock()};
    gate_out drv;
    drv.open_ = true;
    channel<int> ch{"ch"};
    auto conn = connect(ex, ch, drv);
    int which = 0;
    auto t = [&]() -> task<> {
        auto r = co_await choose(wrap(send(ch, 1), [] { return 1; }), wrap(send(ch, 2), [] { return 2; }));
        which = r ? *r : -1;
        EXPECT_TRUE(co_await send(ch, 3));  // the connection waits again
    };
    auto h = ex.spawn(t());
    ASSERT_TRUE(h) << text(h.err());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    ASSERT_TRUE(which == 1 || which == 2) << which;
    EXPECT_EQ(drv.written, (std::vector<int>{which, 3}));
    EXPECT_EQ(conn.transferred(), 2u);
    EXPECT_FALSE(conn.close().has_value());
}

// An input connection feeding a rendezvous while a choose waits on it and
// on another channel: the first value commits the choose, the second waits
// in the connection, and the choose's offer on the other channel is gone.
TEST(review4, an_input_connection_commits_one_waiting_choose_and_holds_the_next_value) {
    executor ex{test::virtual_clock()};
    fifo_in drv;
    channel<int> ch{"ch"}, other{"other"};
    auto conn = connect(ex, ch, drv);
    int got = 0;
    auto t = [&]() -> task<> {
        auto r = co_await choose(recv(other), recv(ch));
        got = r ? *r : -1;
    };
    auto feeder = [&]() -> task<> {
        co_await sleep_for(1ms);
        drv.push(1);
        drv.push(2);
        co_await sleep_for(1ms);
        EXPECT_EQ(other.try_send(9).code(), errc::full);
    };
    auto h = ex.spawn(t());
    ASSERT_TRUE(h) << text(h.err());
    auto f = ex.spawn(feeder());
    ASSERT_TRUE(f) << text(f.err());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got, 1);
    EXPECT_EQ(conn.transferred(), 1u);
    auto held = conn.close();
    ASSERT_TRUE(held.has_value());
    EXPECT_EQ(*held, 2);
    EXPECT_EQ(ch.try_recv().code(), errc::empty);  // the offer left with close()
}

// A task cancelled before its sync: on_cancel() commits even though the
// send branch could complete at once, and nothing is sent.
TEST(review4, on_cancel_beats_a_ready_send_and_sends_nothing) {
    executor ex{test::virtual_clock()};
    channel<int, 1> ch{"ch"};
    int which = 0;
    auto t = [&]() -> task<> {
        co_await sleep_for(1ms);
        auto r = co_await choose(wrap(send(ch, 1), [] { return 1; }), wrap(on_cancel(), [] { return 2; }));
        which = r ? *r : -1;
    };
    auto h = ex.spawn(t());
    ASSERT_TRUE(h) << text(h.err());
    h->cancel();
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(which, 2);
    EXPECT_EQ(ch.size(), 0u);
}

// A one-place ring freed at the instant a waiting sender's window ends (by
// a receiver's window that opens then, whose timer was armed first): the
// sender's offer is past its window, so its value does not move in.
TEST(review4, a_ring_freed_at_a_senders_window_end_does_not_take_its_value) {
    executor ex{test::virtual_clock()};
    channel<int, 1> ch{"ch"};
    EXPECT_TRUE(ch.try_send(1));
    int got = 0;
    std::int64_t got_at = -1, gave_up_at = -1;
    errc sent = errc::ok;
    auto rx = [&]() -> task<> {
        auto r = co_await within(recv(ch), 6ms, 8ms);  // opening armed at 0 ms
        got = r ? *r : -1;
        got_at = test::ms(ex);
    };
    auto tx = [&]() -> task<> {
        sent = (co_await within(send(ch, 9), 2ms, 6ms)).code();  // its end armed at 2 ms
        gave_up_at = test::ms(ex);
    };
    auto r = ex.spawn(rx());
    ASSERT_TRUE(r) << text(r.err());
    auto t = ex.spawn(tx());
    ASSERT_TRUE(t) << text(t.err());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got, 1);
    EXPECT_EQ(got_at, 6);
    EXPECT_EQ(sent, errc::timeout);
    EXPECT_EQ(gave_up_at, 6);
    EXPECT_EQ(ch.size(), 0u);
}

// A window that opens at the instant its task is cancelled: its timer runs
// before the canceller's task, so the value is handed over and kept; the
// cancellation ends the task's next sync.
TEST(review4, a_window_opening_as_its_task_is_cancelled_keeps_the_value) {
    executor ex{test::virtual_clock()};
    channel<int, 1> ch{"ch"};
    EXPECT_TRUE(ch.try_send(4));
    int got = 0;
    errc next = errc::ok;
    auto t = [&]() -> task<> {
        auto r = co_await within(recv(ch), 5ms, 10ms);
        got = r ? *r : -1;
        next = (co_await choose(recv(ch), wrap(timeout(1ms), [] { return -1; }))).code();
    };
    auto h = ex.spawn(t());
    ASSERT_TRUE(h) << text(h.err());
    test::cancel_after(ex, *h, 5ms);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got, 4);
    EXPECT_EQ(next, errc::cancelled);
    EXPECT_EQ(ch.size(), 0u);
}

// A nested choose and its outer choose wait on the same channel: one value
// commits exactly one of the three leaves; the error of a leaf committed by
// close() names the channel of that leaf, also inside the nested choose.
TEST(review4, a_nested_choose_sharing_a_channel_with_the_outer_commits_one_leaf) {
    executor ex{test::virtual_clock()};
    channel<int> c{"c"}, d{"d"}, e{"e"};
    int got = 0;
    std::string closed_text;
    auto t = [&]() -> task<> {
        auto r = co_await choose(choose(recv(c), recv(d)), recv(c));
        got = r ? *r : -1;
        auto q = co_await choose(recv(e), choose(recv(e), recv(d)));
        closed_text = q ? "value" : text(q.err());
    };
    auto partner = [&]() -> task<> {
        EXPECT_TRUE(c.try_send(1));
        EXPECT_EQ(c.try_send(2).code(), errc::full);
        EXPECT_EQ(d.try_send(3).code(), errc::full);
        co_await sleep_for(1ms);
        d.close();
        EXPECT_EQ(e.try_send(5).code(), errc::full);
    };
    auto h = ex.spawn(t());
    ASSERT_TRUE(h) << text(h.err());
    auto p = ex.spawn(partner());
    ASSERT_TRUE(p) << text(p.err());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got, 1);
    EXPECT_EQ(closed_text, "channel 'd': closed");
}

// A window that ended before the clock's epoch (an absolute instant below
// 0, as `next - d` gives in a periodic loop started at 0) is over, also
// when nested in a window that is open: an outer window's end must not
// stretch it (read as unsigned nanoseconds its end looked like the far
// future, and the outer's end replaced it, so it committed).
TEST(review4, a_window_over_before_the_epoch_stays_over_inside_an_open_window) {
    executor ex{test::virtual_clock()};
    channel<int, 1> ch{"ch"};
    EXPECT_TRUE(ch.try_send(1));
    const time_point epoch{};
    errc alone = errc::ok, nested = errc::ok;
    int chose = 0;
    std::int64_t nested_at = -1;
    auto t = [&]() -> task<> {
        alone = (co_await window(recv(ch), epoch - 10ms, epoch - 5ms)).code();
        nested = (co_await within(window(recv(ch), epoch - 10ms, epoch - 5ms), 0ms, 10ms)).code();
        nested_at = test::ms(ex);
        auto r = co_await choose(within(window(recv(ch), epoch - 10ms, epoch - 5ms), 0ms, 10ms),
                                 wrap(timeout(3ms), [] { return -1; }));
        chose = r ? *r : -2;
    };
    auto h = ex.spawn(t());
    ASSERT_TRUE(h) << text(h.err());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(alone, errc::timeout);
    EXPECT_EQ(nested, errc::timeout);
    EXPECT_EQ(nested_at, 0);
    EXPECT_EQ(chose, -1);
    EXPECT_EQ(ch.size(), 1u);  // never taken
}
