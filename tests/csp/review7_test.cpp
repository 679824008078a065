// SPDX-License-Identifier: Apache-2.0
// Review 7 of the Concurrent-ML layer: choose over shared channels,
// commit and withdrawal between racing chooses, windows at one instant,
// cancellation in wide chooses, fairness, and values with destructors.
#include <weft/csp.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>

#include <algorithm>
#include <array>
#include <memory>
#include <string>
#include <vector>

using namespace weft;
using namespace weft::csp;
using namespace std::chrono_literals;

namespace {

frame_pool<4096, 16> review7_frames{"csp_review7"};
// The random schedules' operations await many kinds of event: GCC 12 gives
// each await its own frame slots.
frame_pool<16384, 16> fuzz_frames{"csp_review7_fuzz"};

using test::counted;

// Keeps two values ready in each of three buffered channels (0 in a, 1 in
// b, 2 in c) and syncs `rounds` times on the event `pick(a, b, c)` builds:
// `wins` counts how often each channel's branch won.
template <class Pick>
void sync_with_all_ready(int rounds, Pick pick, std::array<int, 3>& wins) {
    executor ex{test::virtual_clock()};
    channel<int, 4> a{"a"}, b{"b"}, c{"c"};
    auto t = [&]() -> task<> {
        for (int i = 0; i < rounds; ++i) {
            if (a.size() < 2) (void)a.try_send(0);
            if (b.size() < 2) (void)b.try_send(1);
            if (c.size() < 2) (void)c.try_send(2);
            auto r = co_await pick(a, b, c);
            ++wins[*r];
        }
    };
    auto h = ex.spawn(t());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
}

}  // namespace

// A chooses send(c1)/recv(c2) while B chooses send(c2)/recv(c1): exactly one
// exchange happens per pair of syncs, in whichever direction, and no value
// is duplicated or lost. Run with both arrival orders.
TEST(csp_review7, racing_chooses_on_each_others_channels_exchange_one_value) {
    for (int order = 0; order < 2; ++order) {
        executor ex{test::virtual_clock()};
        channel<int> c1{"c1"}, c2{"c2"};
        std::vector<int> a_got, b_got;
        int a_sent = 0, b_sent = 0;
        auto a = [&]() -> task<> {
            for (int i = 0; i < 20; ++i) {
                auto r = co_await choose(wrap(send(c1, 100 + i), [&] { ++a_sent; return -1; }),
                                         wrap(recv(c2), [](int v) { return v; }));
                EXPECT_TRUE(r);
                if (r && *r >= 0) a_got.push_back(*r);
            }
        };
        auto b = [&]() -> task<> {
            for (int i = 0; i < 20; ++i) {
                auto r = co_await choose(wrap(send(c2, 200 + i), [&] { ++b_sent; return -1; }),
                                         wrap(recv(c1), [](int v) { return v; }));
                EXPECT_TRUE(r);
                if (r && *r >= 0) b_got.push_back(*r);
            }
        };
        use_frames s{review7_frames};
        auto ha = order == 0 ? ex.spawn(a()) : ex.spawn(b());
        auto hb = order == 0 ? ex.spawn(b()) : ex.spawn(a());
        ASSERT_TRUE(ha && hb);
        EXPECT_EQ(ex.run(), run_outcome::completed);
        // Every sync is one exchange: a send on one side, a receive on the other.
        EXPECT_EQ(a_sent, int(b_got.size()));
        EXPECT_EQ(b_sent, int(a_got.size()));
        EXPECT_EQ(a_sent + b_sent, 20);
        for (int v : a_got) EXPECT_GE(v, 200);
        for (int v : b_got) EXPECT_LT(v, 200);
        EXPECT_EQ(c1.try_send(0).code(), errc::full);
        EXPECT_EQ(c2.try_send(0).code(), errc::full);
    }
}

// A ring with waiting senders keeps their order when one of them (a
// choose) is withdrawn because its other branch committed.
TEST(csp_review7, waiting_senders_keep_fifo_order_after_a_withdrawal) {
    counted::live = 0;
    {
        executor ex{test::virtual_clock()};
        channel<counted, 1> b{"b"};
        channel<int> x{"x"};
        std::vector<int> got;
        errc s2 = errc::invalid, s3 = errc::invalid;
        auto chooser = [&]() -> task<> {
            auto r = co_await choose(wrap(send(b, counted{1}), [] { return 0; }),
                                     wrap(recv(x), [](int v) { return v; }));
            EXPECT_TRUE(r);
            if (r) {
                EXPECT_EQ(*r, 7);
            }
        };
        auto direct = [&]() -> task<> { s2 = (co_await send(b, counted{2})).code(); };
        auto chooser3 = [&]() -> task<> {
            auto r = co_await choose(send(b, counted{3}), wrap(timeout(50ms), [] {}));
            s3 = r.code();
        };
        auto script = [&]() -> task<> {
            EXPECT_TRUE(b.try_send(counted{0}));
            use_frames s{review7_frames};
            auto h1 = ex.spawn(chooser());
            auto h2 = ex.spawn(direct());
            auto h3 = ex.spawn(chooser3());
            EXPECT_TRUE(h1 && h2 && h3);
            co_await sleep_for(1ms);
            EXPECT_TRUE(x.try_send(7));  // the first sender withdraws
            co_await sleep_for(1ms);
            for (int i = 0; i < 3; ++i) {
                auto r = co_await recv(b);
                got.push_back(r ? r->v : -99);
            }
        };
        use_frames s{review7_frames};
        auto h = ex.spawn(script());
        ASSERT_TRUE(h);
        EXPECT_EQ(ex.run(), run_outcome::completed);
        EXPECT_EQ(got, (std::vector<int>{0, 2, 3}));
        EXPECT_EQ(s2, errc::ok);
        EXPECT_EQ(s3, errc::ok);
    }
    EXPECT_EQ(counted::live, 0);
}

// Move-only values through choose, wrap (returning a move-only value),
// buffered rings and close.
TEST(csp_review7, move_only_values_pass_through_choose_and_wrap) {
    executor ex{test::virtual_clock()};
    channel<std::unique_ptr<int>, 2> b{"b"};
    channel<std::unique_ptr<int>> r{"r"};
    std::vector<int> got;
    auto consumer = [&]() -> task<> {
        for (;;) {
            auto v = co_await choose(wrap(recv(b), [](std::unique_ptr<int> p) { return p; }),
                                     wrap(recv(r), [](std::unique_ptr<int> p) {
                                         *p += 1000;
                                         return p;
                                     }));
            if (!v) {
                EXPECT_EQ(v.code(), errc::closed);
                break;
            }
            got.push_back(**v);
        }
    };
    auto producer = [&]() -> task<> {
        EXPECT_TRUE(co_await send(b, std::make_unique<int>(1)));
        EXPECT_TRUE(co_await send(r, std::make_unique<int>(2)));
        co_await sleep_for(1ms);
        EXPECT_TRUE(b.try_send(std::make_unique<int>(3)));
        b.close();
    };
    use_frames s{review7_frames};
    auto c = ex.spawn(consumer());
    auto p = ex.spawn(producer());
    ASSERT_TRUE(c && p);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got, (std::vector<int>{1, 1002, 3}));
}

// Values with destructors: withdrawn offers, cancelled chooses, close with
// values buffered, and a close that ends choose senders: each value is
// destroyed exactly once.
TEST(csp_review7, each_value_is_destroyed_once_through_withdrawal_cancel_and_close) {
    counted::live = 0;
    {
        executor ex{test::virtual_clock()};
        channel<counted> rv{"rv"};
        channel<counted, 2> buf{"buf"};
        std::vector<int> got;
        auto send_either = [&](int v) -> task<> {
            auto r = co_await choose(send(rv, counted{v}), send(buf, counted{v + 100}));
            (void)r;
        };
        auto recv_either = [&]() -> task<> {
            auto r = co_await choose(recv(rv), recv(buf));
            got.push_back(r ? r->v : -1);
        };
        auto script = [&]() -> task<> {
            use_frames s{review7_frames};
            EXPECT_TRUE(buf.try_send(counted{1}));
            EXPECT_TRUE(buf.try_send(counted{2}));
            auto a = ex.spawn(send_either(10));  // both branches wait (buf full)
            auto b = ex.spawn(send_either(20));
            auto c = ex.spawn(send_either(30));
            EXPECT_TRUE(a && b && c);
            co_await sleep_for(1ms);
            b->cancel();  // withdrawn from both channels
            auto r = rv.try_recv();  // a's rendezvous branch
            got.push_back(r ? r->v : -1);
            auto d = ex.spawn(recv_either());
            EXPECT_TRUE(d);
            co_await sleep_for(1ms);
            buf.close();  // c's send to buf ends with closed (so does c)
            rv.close();
            co_await sleep_for(1ms);
            for (;;) {
                auto v = buf.try_recv();
                if (!v) break;
                got.push_back(v->v);
            }
        };
        use_frames s{review7_frames};
        auto h = ex.spawn(script());
        ASSERT_TRUE(h);
        EXPECT_EQ(ex.run(), run_outcome::completed);
        ASSERT_EQ(got.size(), 4u);
        EXPECT_EQ(got[0], 10);
        // d took c's 30 (rendezvous) or the ring's 1, which moved c's 130 in.
        EXPECT_TRUE(got[1] == 30 || got[1] == 1) << got[1];
    }
    EXPECT_EQ(counted::live, 0);
}

// A wrap function that itself sends (try_send) on a channel: it runs after
// the sync is over, so it meets a task waiting there.
TEST(csp_review7, a_wrap_that_sends_reaches_a_waiting_receiver) {
    executor ex{test::virtual_clock()};
    channel<int> in{"in"}, out{"out"};
    int relayed = 0;
    auto relay = [&]() -> task<> {
        auto r = co_await choose(wrap(recv(in), [&](int v) { return out.try_send(v * 2) ? 1 : 0; }),
                                 wrap(recv(out), [](int) { return -1; }));
        EXPECT_TRUE(r);
        if (r) {
            EXPECT_EQ(*r, 1);
        }
    };
    auto sink = [&]() -> task<> {
        auto v = co_await recv(out);
        relayed = v ? *v : -1;
    };
    auto src = [&]() -> task<> { EXPECT_TRUE(co_await send(in, 21)); };
    use_frames s{review7_frames};
    auto h1 = ex.spawn(sink());
    auto h2 = ex.spawn(relay());
    auto h3 = ex.spawn(src());
    ASSERT_TRUE(h1 && h2 && h3);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(relayed, 42);
}

// A guard that builds its event from state another branch's wrap changed:
// the event kept in a variable, synchronised again, sees the new state.
TEST(csp_review7, a_guard_sees_state_set_by_the_previous_syncs_wrap) {
    executor ex{test::virtual_clock()};
    channel<int, 4> ctl{"ctl"};
    channel<int, 4> data[2] = {channel<int, 4>{"d0"}, channel<int, 4>{"d1"}};
    int sel = 0;
    std::vector<int> got;
    auto t = [&]() -> task<> {
        auto ev = choose_ordered(wrap(recv(ctl), [&](int v) {
                                     sel = v;
                                     return -v - 1;
                                 }),
                                 guard([&] { return recv(data[sel]); }));
        for (int i = 0; i < 3; ++i) {
            auto r = co_await ev;
            got.push_back(r ? *r : -99);
        }
    };
    EXPECT_TRUE(data[0].try_send(10));
    EXPECT_TRUE(data[1].try_send(11));
    EXPECT_TRUE(data[1].try_send(12));
    EXPECT_TRUE(ctl.try_send(1));
    use_frames s{review7_frames};
    auto h = ex.spawn(t());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got, (std::vector<int>{-2, 11, 12}));
    EXPECT_EQ(data[0].size(), 1u);
}

// A 3-way choose over always-ready branches: each branch wins its share.
TEST(csp_review7, a_three_way_choose_shares_ready_branches) {
    std::array<int, 3> wins{};
    sync_with_all_ready(300, [](auto& a, auto& b, auto& c) { return choose(recv(a), recv(b), recv(c)); }, wins);
    for (int w : wins) EXPECT_GT(w, 70);
}

// Two windows on one rendezvous that touch at one instant: [0, 5ms) on the
// send side and [5ms, 10ms) on the receive side never meet.
TEST(csp_review7, windows_that_touch_at_one_instant_never_meet) {
    executor ex{test::virtual_clock()};
    channel<int> ch{"ch"};
    errc s_code = errc::invalid, r_code = errc::invalid;
    std::int64_t s_at = -1, r_at = -1;
    auto sender = [&]() -> task<> {
        auto st = co_await within(send(ch, 1), 0ms, 5ms);
        s_code = st.code();
        s_at = test::ms(ex);
    };
    auto receiver = [&]() -> task<> {
        auto r = co_await within(recv(ch), 5ms, 10ms);
        r_code = r.code();
        r_at = test::ms(ex);
    };
    use_frames s{review7_frames};
    auto h1 = ex.spawn(receiver());  // its opening timer is armed first
    auto h2 = ex.spawn(sender());
    ASSERT_TRUE(h1 && h2);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(s_code, errc::timeout);
    EXPECT_EQ(s_at, 5);
    EXPECT_EQ(r_code, errc::timeout);
    EXPECT_EQ(r_at, 10);
}

// Cancelling a task blocked in a wide choose withdraws every offer and
// disarms every timer: the run ends at the cancel, and no channel keeps an
// offer of it.
TEST(csp_review7, cancelling_a_wide_choose_withdraws_every_branch) {
    executor ex{test::virtual_clock()};
    channel<int> a{"a"}, b{"b"};
    channel<int, 1> c{"c"};
    errc got = errc::invalid;
    auto chooser = [&]() -> task<> {
        EXPECT_TRUE(c.try_send(0));
        auto r = co_await choose(wrap(recv(a), [](int v) { return v; }), wrap(send(b, 1), [] { return 1; }),
                                 wrap(send(c, 2), [] { return 2; }), wrap(timeout(100ms), [] { return 3; }),
                                 wrap(within(recv(b), 1ms, 200ms), [](int v) { return v; }),
                                 wrap(at(time_point{} + 300ms), [] { return 4; }));
        got = r.code();
    };
    use_frames s{review7_frames};
    auto h = ex.spawn(chooser());
    ASSERT_TRUE(h);
    test::cancel_after(ex, *h, 5ms);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got, errc::cancelled);
    EXPECT_EQ(test::ms(ex), 5);
    EXPECT_EQ(a.try_send(1).code(), errc::full);
    EXPECT_EQ(b.try_recv().code(), errc::empty);
    EXPECT_EQ(b.try_send(1).code(), errc::full);
    auto v = c.try_recv();
    ASSERT_TRUE(v);
    EXPECT_EQ(*v, 0);
    EXPECT_EQ(c.try_recv().code(), errc::empty);
}

// A choose sender whose value a receiver has taken is over: a cancel before
// it resumes changes nothing, and the value is received exactly once.
TEST(csp_review7, a_choose_send_taken_before_a_cancel_reports_its_branch) {
    counted::live = 0;
    {
        executor ex{test::virtual_clock()};
        channel<counted> ch{"ch"}, other{"other"};
        int branch = -1;
        errc next = errc::invalid;
        auto sender = [&]() -> task<> {
            auto r = co_await choose(wrap(send(ch, counted{5}), [] { return 0; }),
                                     wrap(recv(other), [](counted) { return 1; }), wrap(on_cancel(), [] { return 2; }));
            branch = r ? *r : -1;
            next = (co_await send(ch, counted{6})).code();
        };
        use_frames s{review7_frames};
        auto hs = ex.spawn(sender());
        ASSERT_TRUE(hs);
        std::vector<int> got;
        auto receiver = [&]() -> task<> {
            auto v = ch.try_recv();
            got.push_back(v ? v->v : -1);
            hs->cancel();
            co_return;
        };
        auto hr = ex.spawn(receiver());
        ASSERT_TRUE(hr);
        EXPECT_EQ(ex.run(), run_outcome::completed);
        EXPECT_EQ(got, (std::vector<int>{5}));
        EXPECT_EQ(branch, 0);
        EXPECT_EQ(next, errc::cancelled);
        EXPECT_EQ(ch.try_recv().code(), errc::empty);
    }
    EXPECT_EQ(counted::live, 0);
}

// Seeded random schedules with values that count themselves: agents send
// and receive through every kind of event (direct, choose of sends and
// receives on shared channels, nested choose, windows, guard, timeout,
// on_cancel, try_send / try_recv) while a chaos task cancels some of them
// and finally closes every channel. Every value sent is received exactly
// once (buffered leftovers drained), none is received that was not sent,
// and every value constructed is destroyed exactly once.
namespace {
struct fuzz_world {
    explicit fuzz_world(unsigned seed) : rnd{seed} {}
    test::seeded_rng rnd;
    channel<counted> rv[2] = {channel<counted>{"rv0"}, channel<counted>{"rv1"}};
    channel<counted, 1> bf[2] = {channel<counted, 1>{"bf0"}, channel<counted, 1>{"bf1"}};
    std::vector<int> sent, received;
    int next_id = 0;
};

template <class C>
auto fz_send(fuzz_world& w, C& ch) {
    int id = w.next_id++;
    return wrap(send(ch, counted{id}), [&w, id] {
        w.sent.push_back(id);
        return -1;
    });
}
template <class C>
auto fz_recv(fuzz_world& w, C& ch) {
    return wrap(recv(ch), [&w](counted t) {
        w.received.push_back(t.v);
        return t.v;
    });
}

template <class C1, class C2>
task<int> fuzz_op(fuzz_world& w, C1& a, C2& b, int shape, int d) {
    const auto ms = std::chrono::milliseconds(d);
    switch (shape) {
        case 0: {
            int id = w.next_id++;
            auto s = co_await send(a, counted{id});
            if (s) w.sent.push_back(id);
            co_return s ? -1 : -10 - int(s.code());
        }
        case 1: {
            auto r = co_await recv(a);
            if (r) w.received.push_back(r->v);
            co_return r ? r->v : -10 - int(r.code());
        }
        case 2: {
            auto r = co_await choose(fz_send(w, a), fz_recv(w, b), wrap(timeout(ms), [] { return -2; }));
            co_return r ? *r : -10 - int(r.code());
        }
        case 3: {
            auto r = co_await choose(fz_recv(w, a), fz_recv(w, b), fz_send(w, a), fz_send(w, b),
                                     wrap(on_cancel(), [] { return -3; }));
            co_return r ? *r : -10 - int(r.code());
        }
        case 4: {
            auto r = co_await choose(choose(fz_send(w, a), within(fz_recv(w, b), ms, 2 * ms + 1ms)),
                                     within(fz_send(w, b), 0ms, ms + 1ms), fz_recv(w, a));
            co_return r ? *r : -10 - int(r.code());
        }
        case 5: {
            auto r = co_await choose_ordered(guard([&w, &a] { return fz_recv(w, a); }),
                                             guard([&w, &b] { return fz_send(w, b); }),
                                             wrap(timeout(ms), [] { return -2; }));
            co_return r ? *r : -10 - int(r.code());
        }
        case 6: {
            int id = w.next_id++;
            auto s = a.try_send(counted{id});
            if (s) w.sent.push_back(id);
            auto r = b.try_recv();
            if (r) w.received.push_back(r->v);
            co_return 0;
        }
        default: {
            auto r = co_await weft::with_timeout(sync(choose(fz_recv(w, a), fz_send(w, b))), ms);
            co_return r ? *r : -10 - int(r.code());
        }
    }
}

task<> fuzz_agent(fuzz_world& w, int ops) {
    for (int i = 0; i < ops; ++i) {
        if (w.rnd(4) == 0) co_await sleep_for(std::chrono::milliseconds(w.rnd(3)));
        const int shape = w.rnd(8), d = w.rnd(4);
        const int ia = w.rnd(2), ib = w.rnd(2);
        switch (w.rnd(4)) {
            case 0: (void)co_await fuzz_op(w, w.rv[ia], w.rv[ib], shape, d); break;
            case 1: (void)co_await fuzz_op(w, w.rv[ia], w.bf[ib], shape, d); break;
            case 2: (void)co_await fuzz_op(w, w.bf[ia], w.rv[ib], shape, d); break;
            default: (void)co_await fuzz_op(w, w.bf[ia], w.bf[ib], shape, d); break;
        }
    }
}
}  // namespace

TEST(csp_review7, random_schedules_deliver_and_destroy_each_counted_value_once) {
    std::size_t total = 0;
    for (unsigned seed = 1; seed <= 3000; ++seed) {
        counted::live = 0;
        std::vector<int> sent, received;
        {
            fuzz_world w{seed};
            executor ex{test::virtual_clock()};
            use_frames f{fuzz_frames};
            std::vector<join_handle<void>> agents;
            for (int i = 0; i < 5; ++i) {
                auto h = ex.spawn(fuzz_agent(w, 25), std::uint8_t(w.rnd(3)));
                ASSERT_TRUE(h);
                agents.push_back(std::move(*h));
            }
            auto chaos = [&]() -> task<> {
                for (int k = 0; k < 3; ++k) {
                    co_await sleep_for(std::chrono::milliseconds(1 + w.rnd(8)));
                    agents[std::size_t(w.rnd(5))].cancel();
                }
                co_await sleep_for(20ms);
                for (auto& c : w.rv) c.close();
                for (auto& c : w.bf) c.close();
            };
            auto c = ex.spawn(chaos(), 3);
            ASSERT_TRUE(c);
            ASSERT_EQ(ex.run(), run_outcome::completed) << "seed " << seed;
            for (auto& ch : w.bf)
                while (auto r = ch.try_recv()) w.received.push_back(r->v);
            sent = w.sent;
            received = w.received;
        }
        std::sort(sent.begin(), sent.end());
        std::sort(received.begin(), received.end());
        ASSERT_EQ(sent, received) << "seed " << seed;
        ASSERT_EQ(counted::live, 0) << "seed " << seed;
        total += sent.size();
    }
    EXPECT_GT(total, 3000u);
}

// docs/csp.md: with every leaf of choose(choose(a, b), c) ready, c wins
// about a third and a and b share the rest unevenly, none starved.
TEST(csp_review7, a_nested_choose_starves_no_leaf) {
    std::array<int, 3> wins{};
    auto pick = [](auto& a, auto& b, auto& c) { return choose(choose(recv(a), recv(b)), recv(c)); };
    sync_with_all_ready(3000, pick, wins);
    for (int w : wins) EXPECT_GT(w, 300);
}

// Receivers waiting on a ring keep their order when one of them (a choose)
// is withdrawn because its other branch committed.
TEST(csp_review7, waiting_receivers_keep_fifo_order_after_a_withdrawal) {
    executor ex{test::virtual_clock()};
    channel<int, 2> b{"b"};
    channel<int> x{"x"};
    std::vector<int> order;
    auto r1 = [&]() -> task<> {
        auto r = co_await choose(wrap(recv(b), [](int v) { return v; }), wrap(recv(x), [](int v) { return 100 + v; }));
        order.push_back(r ? *r : -1);
    };
    auto r2 = [&]() -> task<> {
        auto r = co_await recv(b);
        order.push_back(r ? 200 + *r : -1);
    };
    auto r3 = [&]() -> task<> {
        auto r = co_await choose(wrap(recv(b), [](int v) { return 300 + v; }), wrap(timeout(50ms), [] { return -3; }));
        order.push_back(r ? *r : -1);
    };
    auto script = [&]() -> task<> {
        co_await sleep_for(1ms);
        EXPECT_TRUE(x.try_send(1));
        co_await sleep_for(1ms);
        EXPECT_TRUE(b.try_send(2));
        EXPECT_TRUE(b.try_send(3));
        EXPECT_TRUE(b.try_send(4));
    };
    use_frames s{review7_frames};
    auto h1 = ex.spawn(r1());
    auto h2 = ex.spawn(r2());
    auto h3 = ex.spawn(r3());
    auto h4 = ex.spawn(script());
    ASSERT_TRUE(h1 && h2 && h3 && h4);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(order, (std::vector<int>{101, 202, 303}));
    EXPECT_EQ(b.size(), 1u);
}
