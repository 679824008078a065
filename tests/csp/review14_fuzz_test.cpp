// SPDX-License-Identifier: Apache-2.0
// Model-based differential fuzzing of the channel layer (fourteenth review).
//
// Random programs: 4-7 agents at random priorities run random mixes of
// direct send/recv, general syncs, choose (send/send, send/recv, recv/recv,
// on one channel or two, with timeout and on_cancel), windows (relative,
// absolute, nested, empty) with a windowed on_cancel, guard, with_timeout
// over a sync and over a child task, try_send/try_recv, close, sleeps,
// yields and reprioritisation, on two rendezvous and two buffered channels
// of counted values; a chaos task cancels agents and reprioritises them.
// Every outcome is compared to what docs/csp.md allows:
//  - exactly once: the send attempts reported ok are exactly the ones
//    received (by a task or left buffered at the end), on their channel;
//    an attempt that failed (closed, cancelled, timed out, a choose branch
//    that lost) never arrives;
//  - per-sender order on each channel as each receiver sees it, and across
//    the rendezvous channels;
//  - close: a send started after close never succeeds, a receive started
//    after close succeeds only with a value buffered at the close, a
//    `closed` outcome names a closed channel;
//  - cancellation: sticky, a sync started cancelled never succeeds (an
//    on_cancel() branch commits instead, if it counts), an on_cancel()
//    commits only when the task was cancelled, inside its window;
//  - time: a timeout branch commits exactly at its delay, a windowed branch
//    only inside its window, a sync whose windows all closed ends exactly
//    when the last one closed, with_timeout exactly at its bound;
//  - try_send/try_recv outcomes agree with the channel's state;
//  - at a stall, no two distinct agents wait on one channel as sender and
//    receiver, nobody waits on a closed channel, no receiver waits on a
//    non-empty ring and no sender on a ring with room;
//  - every counted value is destroyed exactly once (live count 0 at the
//    end, no destroyed value used or destroyed again), every frame returns.
// WEFT_FUZZ_SEEDS=n runs n seeds (default: a CI-sized count);
// WEFT_FUZZ_FIRST=s starts at seed s.
#include <weft/csp.hpp>

#include <gtest/gtest.h>
#include <support/scripted_drivers.hpp>
#include <support/weft_test.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace weft;
using namespace weft::csp;
using namespace std::chrono_literals;

namespace {

frame_pool<4096, 160> fuzz_frames{"review14_fuzz"};

constexpr std::uint32_t alive_magic = 0xa11ce5u;
constexpr std::uint32_t dead_magic = 0xdeadu;
int bad_items = 0;  // a value used or destroyed after its destruction

// Coverage over all seeds, printed (and floors asserted) at the end.
struct coverage {
    long delivered = 0, failed_sends = 0, closed = 0, cancelled = 0, timeouts = 0, on_cancel = 0,
         windowed = 0, stalls = 0, closes = 0, conn_in = 0, conn_out = 0;
} cov;

/// A counted value (test::counted) that also notices use after destruction.
struct item {
    test::counted c;
    std::uint32_t magic = alive_magic;
    explicit item(int id) noexcept : c(id) {}
    item(item&& o) noexcept : c(std::move(o.c)), magic(o.magic) { check(o); }
    item(const item& o) noexcept : c(o.c), magic(o.magic) { check(o); }
    item& operator=(item&& o) noexcept {
        check(o);
        c = std::move(o.c);
        return *this;
    }
    item& operator=(const item& o) noexcept {
        check(o);
        c = o.c;
        return *this;
    }
    ~item() {
        if (magic != alive_magic) ++bad_items;
        magic = dead_magic;
    }
    int id() const noexcept { return c.v; }
    static void check(const item& o) noexcept {
        if (o.magic != alive_magic) ++bad_items;
    }
};

constexpr int channels = 4;  // r0, r1: rendezvous; b1: 1 slot; b3: 3 slots
constexpr std::size_t cap[channels] = {0, 0, 1, 3};
constexpr int max_agents = 7;
constexpr int conn_id = max_agents;  // the connections' sender / receiver number

struct attempt {
    int sender;
    int chan;
    enum state : unsigned char { pending, ok, failed } st = pending;
    bool after_close = false;  // the send started after its channel closed
    int received = 0;
};

struct delivery {
    int receiver;
    int chan;
    int id;
    bool after_close;  // the receive started after the channel closed
};

struct agent_state {
    task_control* ctl = nullptr;
    bool done = false;
    bool cancel_requested = false;  // set just before cancel()
    std::uint64_t cancel_ns = 0;
    bool in_child = false;  // in a child task under with_timeout (cancelled by the bound)
    unsigned send_wait = 0, recv_wait = 0;  // channels waited on (stall check)
};

struct world {
    world(unsigned s, executor& e) : seed(s), rng{s * 2654435761u + 17u}, ex(e) {}
    unsigned seed;
    test::seeded_rng rng;
    executor& ex;
    channel<item> r0{"r0"};
    channel<item> r1{"r1"};
    channel<item, 1> b1{"b1"};
    channel<item, 3> b3{"b3"};
    std::vector<attempt> attempts;
    std::vector<delivery> deliveries;
    bool closed[channels] = {};
    std::size_t size_at_close[channels] = {};
    agent_state agents[max_agents + 1];  // the last: the connections' controller
    int n_agents = 0;
    std::vector<std::string> errors;
    std::vector<int> fed_back;  // attempts fed to the input driver and never sent

    int rnd(int n) { return rng(n); }
    std::uint64_t now() const { return to_ns(ex.now()); }
    unsigned closed_mask() const {
        unsigned m = 0;
        for (int k = 0; k < channels; ++k)
            if (closed[k]) m |= 1u << k;
        return m;
    }
    std::size_t size_of(int k) const {
        switch (k) {
            case 2: return b1.size();
            case 3: return b3.size();
            default: return 0;
        }
    }
    bool is_closed(int k) const {
        switch (k) {
            case 0: return r0.closed();
            case 1: return r1.closed();
            case 2: return b1.closed();
            default: return b3.closed();
        }
    }
    void fail(const char* what, int a, int detail = 0) {
        if (errors.size() < 8) {
            char buf[200];
            std::snprintf(buf, sizeof buf, "seed %u: agent %d: %s (%d) at %llu ns", seed, a, what, detail,
                          static_cast<unsigned long long>(now()));
            errors.emplace_back(buf);
        }
    }
};

template <class C> constexpr bool is_rendezvous = C::capacity == 0;

struct op_context {
    world& w;
    int a;
    std::uint64_t start;
    unsigned closed_at_start;
    bool cancelled_at_start;
    op_context(world& wr, int ag)
        : w(wr), a(ag), start(wr.now()), closed_at_start(wr.closed_mask()),
          cancelled_at_start(wr.agents[ag].cancel_requested && !wr.agents[ag].in_child) {}
    agent_state& me() { return w.agents[a]; }

    int new_attempt(int k) {
        attempt at{a, k};
        at.after_close = (closed_at_start >> k) & 1u;
        w.attempts.push_back(at);
        return int(w.attempts.size() - 1);
    }
    void sent(int id, bool ok) {
        attempt& at = w.attempts[std::size_t(id)];
        if (at.st != attempt::pending) w.fail("attempt resolved twice", a, id);
        at.st = ok ? attempt::ok : attempt::failed;
        ++(ok ? cov.delivered : cov.failed_sends);
        if (ok && at.after_close) w.fail("a send started after close succeeded", a, at.chan);
        if (ok && cancelled_at_start) w.fail("a send started cancelled succeeded", a, at.chan);
    }
    void got(int k, const item& v, bool rendezvous) {
        item::check(v);
        const bool after = (closed_at_start >> k) & 1u;
        w.deliveries.push_back({a, k, v.id(), after});
        if (cancelled_at_start) w.fail("a receive started cancelled succeeded", a, k);
        if (after && rendezvous) w.fail("a rendezvous receive started after close succeeded", a, k);
    }
    // A failed outcome is one the semantics allow for this operation.
    void failed(errc code, unsigned chans, bool may_time_out) {
        ++(code == errc::closed ? cov.closed : code == errc::cancelled ? cov.cancelled : cov.timeouts);
        switch (code) {
            case errc::closed: {
                bool any = false;
                for (int k = 0; k < channels; ++k)
                    if (((chans >> k) & 1u) && w.is_closed(k)) any = true;
                if (!any) w.fail("closed, but no channel of the op is closed", a, int(chans));
                break;
            }
            case errc::cancelled:
                if (!me().cancel_requested && !me().in_child) w.fail("cancelled without a cancel", a);
                break;
            case errc::timeout:
                if (!may_time_out) w.fail("timeout from an op without a bound", a);
                break;
            default: w.fail("unexpected error code", a, int(code));
        }
    }
    void waits(unsigned s, unsigned r) {
        me().send_wait = s;
        me().recv_wait = r;
    }
    void done_waiting() { waits(0, 0); }
    void on_cancel_won(std::uint64_t lo = 0, std::uint64_t hi = ~std::uint64_t{0}) {
        ++cov.on_cancel;
        if (!me().cancel_requested) w.fail("on_cancel committed without a cancel", a);
        const std::uint64_t t = cancelled_at_start ? start : me().cancel_ns;
        if (t < lo || t >= hi) w.fail("on_cancel committed outside its window", a, int((t - start) / 1'000'000));
    }
};

// ---- scripted drivers of items (connect) -------------------------------

// The node connect() attaches, posted on each change (support/scripted_drivers.hpp).
using item_driver = weft::test::scripted_driver;

struct item_in : item_driver {
    std::vector<item> q;  // front first
    std::size_t head = 0;
    std::size_t readable() const noexcept { return q.size() - head; }
    result<item> read() noexcept { return result<item>{std::in_place, std::move(q[head++])}; }
    void push(int id) noexcept {
        q.emplace_back(id);
        changed();
    }
};

struct item_out : item_driver {
    world* w = nullptr;
    int chan = 0;
    bool open_ = true;
    std::size_t writable() const noexcept { return open_ ? 1 : 0; }
    status write(item v) noexcept {
        item::check(v);
        w->deliveries.push_back({conn_id, chan, v.id(), false});
        return {};
    }
    void set(bool o) noexcept {
        open_ = o;
        if (o) changed();
    }
};

// ---- channel dispatch ----------------------------------------------------

template <class F>
task<> on1(world& w, int k, F f) {
    status s{};
    switch (k) {
        case 0: s = co_await f(w.r0, 0); break;
        case 1: s = co_await f(w.r1, 1); break;
        case 2: s = co_await f(w.b1, 2); break;
        default: s = co_await f(w.b3, 3); break;
    }
    if (!s) w.fail("sub-task failed to start (frame pool)", -1);
}

template <class F>
task<> on2(world& w, int k1, int k2, F f) {
    auto outer = [&w, k2, f](auto& c1, int j1) {
        return on1(w, k2, [f, &c1, j1](auto& c2, int j2) { return f(c1, j1, c2, j2); });
    };
    status s = co_await on1(w, k1, outer);
    if (!s) w.fail("sub-task failed to start (frame pool)", -1);
}

// ---- operations ----------------------------------------------------------

template <class C>
task<> op_send(world& w, int a, C& c, int k, bool general) {
    op_context x{w, a};
    const int id = x.new_attempt(k);
    x.waits(1u << k, 0);
    status s;
    if (general) {
        auto ev = send(c, item(id));  // kept in a variable: a copy is sent
        s = co_await ev;
    } else {
        s = co_await send(c, item(id));
    }
    x.done_waiting();
    x.sent(id, bool(s));
    if (!s) x.failed(s.code(), 1u << k, false);
}

template <class C>
task<> op_recv(world& w, int a, C& c, int k, bool general) {
    op_context x{w, a};
    x.waits(0, 1u << k);
    result<item> r{errc::invalid};
    if (general) {
        r = co_await sync(recv(c));
    } else {
        r = co_await recv(c);
    }
    x.done_waiting();
    if (r) x.got(k, *r, is_rendezvous<C>);
    else x.failed(r.code(), 1u << k, false);
}

// A branch of a choose: a send (yields its tag) or a receive (yields the
// value's id, recorded), both as int codes: tag | branch.
constexpr int tag_shift = 3;

template <bool Send, class C>
auto branch(op_context& x, C& c, int k, int b, int& id) {
    if constexpr (Send) {
        id = x.new_attempt(k);
        return wrap(send(c, item(id)), [b] { return b; });
    } else {
        id = -1;
        return wrap(recv(c), [&x, k, b](item v) {
            x.got(k, v, is_rendezvous<C>);
            return (v.id() << tag_shift) | b;
        });
    }
}

// Resolves the send attempts of a choose after it ended: only the winner's
// can have been delivered.
inline void settle(op_context& x, int id0, int id1, int winner) {
    if (id0 >= 0) x.sent(id0, winner == 0);
    if (id1 >= 0) x.sent(id1, winner == 1);
}

template <bool S1, bool S2, bool Extra, class C1, class C2>
task<> op_choose(world& w, int a, C1& c1, int k1, C2& c2, int k2, int d_ms) {
    op_context x{w, a};
    int id0 = -1, id1 = -1;
    auto e0 = branch<S1>(x, c1, k1, 0, id0);
    auto e1 = branch<S2>(x, c2, k2, 1, id1);
    x.waits((S1 ? 1u << k1 : 0) | (S2 ? 1u << k2 : 0), (S1 ? 0 : 1u << k1) | (S2 ? 0 : 1u << k2));
    result<int> r{errc::invalid};
    if constexpr (Extra) {
        r = co_await choose(std::move(e0), std::move(e1),
                            wrap(timeout(std::chrono::milliseconds(d_ms)), [] { return 2; }),
                            wrap(on_cancel(), [] { return 3; }));
    } else {
        if (d_ms & 1) r = co_await choose_ordered(std::move(e0), std::move(e1));
        else r = co_await choose(std::move(e0), std::move(e1));
    }
    x.done_waiting();
    const std::uint64_t t = w.now();
    const int winner = r ? (*r & ((1 << tag_shift) - 1)) : -1;
    settle(x, id0, id1, winner);
    if (!r) {
        x.failed(r.code(), (1u << k1) | (1u << k2), false);
        if (Extra && r.code() == errc::cancelled) w.fail("cancelled with an on_cancel branch", a);
        co_return;
    }
    if (Extra && x.cancelled_at_start && winner != 3) w.fail("started cancelled, on_cancel did not commit", a, winner);
    if (winner == 2 && t != x.start + std::uint64_t(d_ms) * 1'000'000)
        w.fail("timeout branch committed at the wrong time", a, int(t - x.start));
    if (winner < 2 && Extra && t > x.start + std::uint64_t(d_ms) * 1'000'000)
        w.fail("a branch committed after the timeout was due", a, int(t - x.start));
    if (winner == 3) x.on_cancel_won();
}

struct span {
    std::uint64_t lo, hi;  // absolute, ns
};
inline bool inside(std::uint64_t t, span s) { return t >= s.lo && t < s.hi; }

// choose(window(B1), window(B2), window(on_cancel())): the first relative,
// the second absolute and sometimes nested, the third relative.
template <bool S1, bool S2, class C1, class C2>
task<> op_windows(world& w, int a, C1& c1, int k1, C2& c2, int k2, int bits) {
    op_context x{w, a};
    auto ms = [](int v) { return std::uint64_t(v) * 1'000'000; };
    const int a0 = w.rnd(4), e0 = w.rnd(6);
    const int a1 = w.rnd(4), e1 = w.rnd(6);
    const int a1n = w.rnd(4), e1n = w.rnd(7);  // the outer window of branch 1
    const int a2 = w.rnd(3), e2 = w.rnd(5);
    const bool nested = bits & 1;
    int id0 = -1, id1 = -1;
    auto b0 = branch<S1>(x, c1, k1, 0, id0);
    auto b1 = branch<S2>(x, c2, k2, 1, id1);
    const span s0{x.start + ms(a0), x.start + ms(e0)};
    span s1{x.start + ms(a1), x.start + ms(e1)};
    // When each branch is counted out (its last window closes).
    std::uint64_t end0 = x.start + ms(e0), end1 = x.start + ms(e1);
    const std::uint64_t end2 = x.start + ms(e2);
    if (nested) {
        const std::uint64_t lo = x.start + ms(a1n), hi = x.start + ms(e1n);
        if (hi <= lo) end1 = hi;
        else end1 = std::max(lo, std::min(end1, hi));
        s1 = {std::max(s1.lo, lo), std::min(s1.hi, hi)};
    }
    x.waits((S1 ? 1u << k1 : 0) | (S2 ? 1u << k2 : 0), (S1 ? 0 : 1u << k1) | (S2 ? 0 : 1u << k2));
    auto w0 = within(std::move(b0), std::chrono::milliseconds(a0), std::chrono::milliseconds(e0));
    auto w2 = within(wrap(on_cancel(), [] { return 2; }), std::chrono::milliseconds(a2), std::chrono::milliseconds(e2));
    auto w1 = window(std::move(b1), from_ns(x.start + ms(a1)), from_ns(x.start + ms(e1)));
    result<int> r{errc::invalid};
    if (nested) {
        r = co_await choose(std::move(w0),
                            within(std::move(w1), std::chrono::milliseconds(a1n), std::chrono::milliseconds(e1n)),
                            std::move(w2));
    } else {
        r = co_await choose(std::move(w0), std::move(w1), std::move(w2));
    }
    x.done_waiting();
    const std::uint64_t t = w.now();
    const int winner = r ? (*r & ((1 << tag_shift) - 1)) : -1;
    settle(x, id0, id1, winner);
    const span s2{x.start + ms(a2), x.start + ms(e2)};
    if (!r) {
        x.failed(r.code(), (1u << k1) | (1u << k2), true);
        if (r.code() == errc::timeout) {
            const std::uint64_t last = std::max({end0, end1, end2, x.start});
            if (t != last) w.fail("windows over: the sync ended at the wrong time", a, int(t - x.start));
        }
        if (r.code() == errc::cancelled) {
            const std::uint64_t tc = x.cancelled_at_start ? x.start : x.me().cancel_ns;
            if (inside(tc, s2)) w.fail("cancelled inside the on_cancel window", a, int(tc - x.start));
        }
        co_return;
    }
    if (winner == 0 || winner == 1) ++cov.windowed;
    if (winner == 0 && !inside(t, s0)) w.fail("window 0 committed outside", a, int(t - x.start));
    if (winner == 1 && !inside(t, s1)) w.fail("window 1 committed outside", a, int(t - x.start));
    if (winner == 2) x.on_cancel_won(s2.lo, s2.hi);
}

// A lone window around a send or a receive.
template <bool Send, class C>
task<> op_within(world& w, int a, C& c, int k) {
    op_context x{w, a};
    const int lo = w.rnd(4), hi = w.rnd(6);
    int id = -1;
    auto b = branch<Send>(x, c, k, 0, id);
    x.waits(Send ? 1u << k : 0, Send ? 0 : 1u << k);
    auto r = co_await within(std::move(b), std::chrono::milliseconds(lo), std::chrono::milliseconds(hi));
    x.done_waiting();
    const std::uint64_t t = w.now();
    if (id >= 0) x.sent(id, bool(r));
    if (!r) {
        x.failed(r.code(), 1u << k, true);
        if (r.code() == errc::timeout && t != x.start + std::uint64_t(hi) * 1'000'000)
            w.fail("lone window over at the wrong time", a, int(t - x.start));
        co_return;
    }
    if (!inside(t, {x.start + std::uint64_t(lo) * 1'000'000, x.start + std::uint64_t(hi) * 1'000'000}))
        w.fail("lone window committed outside", a, int(t - x.start));
}

// with_timeout(sync(choose(send/recv, recv/send)), d).
template <bool S1, class C1, class C2>
task<> op_bounded(world& w, int a, C1& c1, int k1, C2& c2, int k2, int d_ms) {
    op_context x{w, a};
    int id0 = -1, id1 = -1;
    auto b0 = branch<S1>(x, c1, k1, 0, id0);
    auto b1 = branch<!S1>(x, c2, k2, 1, id1);
    x.waits(1u << (S1 ? k1 : k2), 1u << (S1 ? k2 : k1));
    auto r = co_await with_timeout(sync(choose(std::move(b0), std::move(b1))), std::chrono::milliseconds(d_ms));
    x.done_waiting();
    const std::uint64_t t = w.now();
    const int winner = r ? (*r & ((1 << tag_shift) - 1)) : -1;
    settle(x, id0, id1, winner);
    const std::uint64_t due = x.start + std::uint64_t(d_ms) * 1'000'000;
    if (!r) {
        x.failed(r.code(), (1u << k1) | (1u << k2), true);
        if (r.code() == errc::timeout && t != due) w.fail("with_timeout ended at the wrong time", a, int(t - x.start));
        co_return;
    }
    if (t > due) w.fail("with_timeout: committed after the bound", a, int(t - x.start));
}

// A child task doing one direct send or receive, under with_timeout: the
// child records its own outcome (a value it got is logged, not lost).
template <class C>
task<> child_direct(world& w, int a, C& c, int k, bool do_send) {
    if (do_send) {
        status s = co_await on1(w, k, [&w, a](auto& ch, int j) { return op_send(w, a, ch, j, false); });
        (void)s;
    } else {
        status s = co_await on1(w, k, [&w, a](auto& ch, int j) { return op_recv(w, a, ch, j, false); });
        (void)s;
    }
    (void)c;
}

template <class C>
task<> op_child_bounded(world& w, int a, C& c, int k, int d_ms, bool do_send) {
    op_context x{w, a};
    w.agents[a].in_child = true;
    status s = co_await with_timeout(child_direct(w, a, c, k, do_send), std::chrono::milliseconds(d_ms));
    w.agents[a].in_child = false;
    x.done_waiting();
    if (!s && s.code() == errc::timeout && w.now() != x.start + std::uint64_t(d_ms) * 1'000'000)
        w.fail("with_timeout(task) ended at the wrong time", a, int(w.now() - x.start));
    if (!s && s.code() != errc::timeout && s.code() != errc::cancelled)
        w.fail("with_timeout(task): unexpected error", a, int(s.code()));
}

// guard: the event is built when the sync starts (a send or a receive on
// the channel picked then).
template <class C1, class C2>
task<> op_guard(world& w, int a, C1& c1, int k1, C2& c2, int k2) {
    op_context x{w, a};
    int id0 = -1, id1 = -1, built = 0;
    x.waits(1u << k1, 1u << k2);
    auto r = co_await choose(guard([&] {
                                 ++built;
                                 return branch<true>(x, c1, k1, 0, id0);
                             }),
                             guard([&] {
                                 ++built;
                                 return branch<false>(x, c2, k2, 1, id1);
                             }));
    x.done_waiting();
    if (built != 2) w.fail("guard functions ran the wrong number of times", a, built);
    const int winner = r ? (*r & ((1 << tag_shift) - 1)) : -1;
    settle(x, id0, id1, winner);
    if (!r) x.failed(r.code(), (1u << k1) | (1u << k2), false);
}

template <class C>
void op_try(op_context& x, C& c, int k, bool do_send) {
    world& w = x.w;
    x.cancelled_at_start = false;  // try_send / try_recv do not look at cancellation
    if (do_send) {
        const int id = x.new_attempt(k);
        const std::size_t before = c.size();
        auto r = c.try_send(item(id));
        x.sent(id, bool(r));
        if (r) {
            if (c.closed()) w.fail("try_send on a closed channel succeeded", x.a, k);
            return;
        }
        item::check(r.value());
        if (r.value().id() != id) w.fail("try_send handed back another value", x.a, r.value().id());
        if (r.code() == errc::closed && !c.closed()) w.fail("try_send: closed on an open channel", x.a, k);
        if (r.code() == errc::full && (c.closed() || (C::capacity > 0 && before < C::capacity)))
            w.fail("try_send: full with room", x.a, int(before));
        if (r.code() != errc::closed && r.code() != errc::full) w.fail("try_send: unexpected code", x.a, int(r.code()));
    } else {
        const std::size_t before = c.size();
        auto r = c.try_recv();
        if (r) {
            x.got(k, *r, is_rendezvous<C>);
            return;
        }
        if (r.code() == errc::empty && before > 0) w.fail("try_recv: empty with values buffered", x.a, int(before));
        if (r.code() == errc::closed && (!c.closed() || before > 0))
            w.fail("try_recv: closed while open or not drained", x.a, k);
        if (r.code() != errc::closed && r.code() != errc::empty) w.fail("try_recv: unexpected code", x.a, int(r.code()));
    }
}

template <class C>
void close_channel(world& w, C& c, int k) {
    if (!w.closed[k]) { w.size_at_close[k] = c.size(); ++cov.closes; }
    w.closed[k] = true;
    c.close();
}

void close_any(world& w, int k) {
    switch (k) {
        case 0: close_channel(w, w.r0, 0); break;
        case 1: close_channel(w, w.r1, 1); break;
        case 2: close_channel(w, w.b1, 2); break;
        default: close_channel(w, w.b3, 3); break;
    }
}

// An input connection on one channel and an output connection on another
// (or the same), fed and opened at random, closed at a random time: what
// close() hands back, and what the input driver still holds, was never sent.
template <class C1, class C2>
task<> controller(world& w, C1& cin, int kin, C2& cout, int kout) {
    item_in din;
    item_out dout;
    dout.w = &w;
    dout.chan = kout;
    dout.open_ = w.rnd(2);
    din.q.reserve(64);
    auto ic = connect(w.ex, cin, din);
    auto oc = connect(w.ex, cout, dout);
    const int rounds = w.rnd(20);
    for (int i = 0; i < rounds; ++i) {
        auto z = co_await sleep_for(std::chrono::milliseconds(w.rnd(4)));
        (void)z;
        const int what = w.rnd(3);
        if (what == 0 && din.q.size() < 60) {
            attempt at{conn_id, kin};
            at.st = attempt::ok;  // unless handed back at the end
            w.attempts.push_back(at);
            din.push(int(w.attempts.size() - 1));
        } else if (what == 1) {
            dout.set(!dout.open_);
        }
    }
    if (std::optional<item> held = ic.close()) w.fed_back.push_back(held->id());
    for (std::size_t i = din.head; i < din.q.size(); ++i) w.fed_back.push_back(din.q[i].id());
    if (std::optional<item> held = oc.close()) w.deliveries.push_back({conn_id, kout, held->id(), false});
    w.agents[max_agents].done = true;
}

// ---- agents --------------------------------------------------------------

task<> agent(world& w, int a, int steps) {
    task_control* me = co_await test::running_control{};
    w.agents[a].ctl = me;
    for (int i = 0; i < steps; ++i) {
        const int k1 = w.rnd(channels), k2 = w.rnd(channels);
        const int op = w.rnd(100);
        const int d = w.rnd(5);
        status s{};
        if (op < 14) {
            const bool general = w.rnd(3) == 0;
            s = co_await on1(w, k1, [&w, a, general](auto& c, int k) { return op_send(w, a, c, k, general); });
        } else if (op < 28) {
            const bool general = w.rnd(3) == 0;
            s = co_await on1(w, k1, [&w, a, general](auto& c, int k) { return op_recv(w, a, c, k, general); });
        } else if (op < 34) {
            s = co_await on2(w, k1, k2, [&w, a, d](auto& c1, int j1, auto& c2, int j2) {
                return op_choose<true, true, false>(w, a, c1, j1, c2, j2, d);
            });
        } else if (op < 40) {
            s = co_await on2(w, k1, k2, [&w, a, d](auto& c1, int j1, auto& c2, int j2) {
                return op_choose<true, false, false>(w, a, c1, j1, c2, j2, d);
            });
        } else if (op < 46) {
            s = co_await on2(w, k1, k2, [&w, a, d](auto& c1, int j1, auto& c2, int j2) {
                return op_choose<false, false, false>(w, a, c1, j1, c2, j2, d);
            });
        } else if (op < 50) {
            s = co_await on2(w, k1, k2, [&w, a, d](auto& c1, int j1, auto& c2, int j2) {
                return op_choose<true, false, true>(w, a, c1, j1, c2, j2, d);
            });
        } else if (op < 53) {
            s = co_await on2(w, k1, k2, [&w, a, d](auto& c1, int j1, auto& c2, int j2) {
                return op_choose<false, false, true>(w, a, c1, j1, c2, j2, d);
            });
        } else if (op < 55) {
            s = co_await on2(w, k1, k2, [&w, a, d](auto& c1, int j1, auto& c2, int j2) {
                return op_choose<true, true, true>(w, a, c1, j1, c2, j2, d);
            });
        } else if (op < 59) {
            const int bits = w.rnd(4);
            s = co_await on2(w, k1, k2, [&w, a, bits](auto& c1, int j1, auto& c2, int j2) {
                return op_windows<true, false>(w, a, c1, j1, c2, j2, bits);
            });
        } else if (op < 61) {
            const int bits = w.rnd(4);
            s = co_await on2(w, k1, k2, [&w, a, bits](auto& c1, int j1, auto& c2, int j2) {
                return op_windows<false, true>(w, a, c1, j1, c2, j2, bits);
            });
        } else if (op < 64) {
            const bool snd = w.rnd(2);
            if (snd) s = co_await on1(w, k1, [&w, a](auto& c, int k) { return op_within<true>(w, a, c, k); });
            else s = co_await on1(w, k1, [&w, a](auto& c, int k) { return op_within<false>(w, a, c, k); });
        } else if (op < 68) {
            const bool snd = w.rnd(2);
            if (snd) {
                s = co_await on2(w, k1, k2, [&w, a, d](auto& c1, int j1, auto& c2, int j2) {
                    return op_bounded<true>(w, a, c1, j1, c2, j2, d + 1);
                });
            } else {
                s = co_await on2(w, k1, k2, [&w, a, d](auto& c1, int j1, auto& c2, int j2) {
                    return op_bounded<false>(w, a, c1, j1, c2, j2, d + 1);
                });
            }
        } else if (op < 71) {
            const bool snd = w.rnd(2);
            s = co_await on1(w, k1, [&w, a, d, snd](auto& c, int k) { return op_child_bounded(w, a, c, k, d + 1, snd); });
        } else if (op < 74) {
            s = co_await on2(w, k1, k2, [&w, a](auto& c1, int j1, auto& c2, int j2) {
                return op_guard(w, a, c1, j1, c2, j2);
            });
        } else if (op < 84) {
            op_context x{w, a};
            const bool snd = w.rnd(2);
            switch (k1) {
                case 0: op_try(x, w.r0, 0, snd); break;
                case 1: op_try(x, w.r1, 1, snd); break;
                case 2: op_try(x, w.b1, 2, snd); break;
                default: op_try(x, w.b3, 3, snd); break;
            }
        } else if (op < 85) {
            if (w.rnd(3) == 0) close_any(w, k1);
        } else if (op < 91) {
            auto z = co_await sleep_for(std::chrono::milliseconds(d));
            (void)z;
        } else if (op < 96) {
            co_await yield();
        } else {
            w.ex.reprioritise(*me, priority(w.rnd(4)));
        }
        if (!s) w.fail("op sub-task failed", a, int(s.code()));
    }
    w.agents[a].done = true;
}

task<> chaos(world& w, int rounds) {
    for (int i = 0; i < rounds; ++i) {
        auto z = co_await sleep_for(std::chrono::milliseconds(w.rnd(5)));
        (void)z;
        const int v = w.rnd(w.n_agents);
        agent_state& t = w.agents[v];
        if (t.done || !t.ctl) continue;
        const int what = w.rnd(4);
        if (what == 0 && !t.cancel_requested) {
            t.cancel_requested = true;
            t.cancel_ns = w.now();
            t.ctl->cancel();
        } else if (what == 1) {
            w.ex.reprioritise(*t.ctl, priority(w.rnd(4)));
        } else if (what == 2 && w.rnd(8) == 0) {
            close_any(w, w.rnd(channels));
        } else {
            co_await yield();
        }
    }
}

// At a stall nothing is ready and no timer is armed: every wait must be
// one the semantics leave waiting.
void check_stall(world& w) {
    for (int k = 0; k < channels; ++k) {
        const unsigned bit = 1u << k;
        int senders = 0, receivers = 0, sender = -1, receiver = -1;
        for (int a = 0; a < w.n_agents; ++a) {
            if (w.agents[a].done) continue;
            if (w.agents[a].send_wait & bit) { ++senders; sender = a; }
            if (w.agents[a].recv_wait & bit) { ++receivers; receiver = a; }
        }
        if ((senders || receivers) && w.is_closed(k)) w.fail("stalled waiting on a closed channel", sender, k);
        if (senders && receivers && (senders > 1 || receivers > 1 || sender != receiver))
            w.fail("stalled with a sender and a receiver on one channel", sender, k);
        if (receivers && w.size_of(k) > 0) w.fail("stalled: a receiver waits on a non-empty ring", receiver, k);
        if (senders && cap[k] > 0 && w.size_of(k) < cap[k]) w.fail("stalled: a sender waits with room", sender, k);
    }
}

void run_one(unsigned seed, long& programs) {
    use_frames scope{fuzz_frames};
    test::counted::live = 0;
    bad_items = 0;
    {
        executor ex{test::virtual_clock("fuzz")};
        world w{seed, ex};
        w.attempts.reserve(512);
        w.n_agents = 4 + w.rnd(max_agents - 3);
        std::vector<join_handle<void>> hs;
        hs.reserve(max_agents + 2);
        for (int a = 0; a < w.n_agents; ++a) {
            // One draw per statement: the order in which a compiler
            // evaluates arguments differs, and a seed runs the same program
            // with GCC and Clang.
            const int steps = 10 + w.rnd(25);
            const unsigned prio = unsigned(w.rnd(4));
            auto h = ex.spawn(agent(w, a, steps), prio);
            ASSERT_TRUE(h) << "seed " << seed;
            hs.push_back(std::move(*h));
        }
        if (w.rnd(2)) {
            const int kin = w.rnd(channels);
            const int kout = w.rnd(channels);
            const unsigned prio = unsigned(w.rnd(4));
            auto c = ex.spawn(
                on2(w, kin, kout, [&w](auto& c1, int j1, auto& c2, int j2) { return controller(w, c1, j1, c2, j2); }),
                prio);
            ASSERT_TRUE(c);
            hs.push_back(std::move(*c));
        }
        const int rounds = w.rnd(8);
        const unsigned chaos_prio = unsigned(w.rnd(4));
        auto k = ex.spawn(chaos(w, rounds), chaos_prio);
        ASSERT_TRUE(k);
        hs.push_back(std::move(*k));
        run_outcome o = ex.run();
        // A stall is legitimate for a random program (nobody left to meet a
        // waiting send): check it is one, then close a channel still open
        // (every wait on it must end) and run on, then cancel the rest.
        while (o == run_outcome::stalled) {
            ++cov.stalls;
            check_stall(w);
            int open[channels], n = 0;
            for (int c = 0; c < channels; ++c)
                if (!w.closed[c]) open[n++] = c;
            if (n == 0) break;
            close_any(w, open[w.rnd(n)]);
            o = ex.run();
        }
        if (o == run_outcome::stalled) {
            for (int a = 0; a < w.n_agents; ++a)
                if (!w.agents[a].done && !w.agents[a].cancel_requested) {
                    w.agents[a].cancel_requested = true;
                    w.agents[a].cancel_ns = w.now();
                }
            for (auto& h : hs) h.cancel();
            EXPECT_EQ(ex.run(), run_outcome::completed) << "seed " << seed;
        }
        hs.clear();
        EXPECT_EQ(fuzz_frames.in_use(), 0u) << "seed " << seed;
        // Only buffered values are left alive.
        const std::size_t buffered = w.b1.size() + w.b3.size();
        if (std::size_t(test::counted::live) != buffered) w.fail("live values are not the buffered ones", -1, test::counted::live);
        // What is left buffered counts as received.
        while (auto m = w.b1.try_recv()) w.deliveries.push_back({-1, 2, m->id(), false});
        while (auto m = w.b3.try_recv()) w.deliveries.push_back({-1, 3, m->id(), false});

        for (int id : w.fed_back) {
            if (id < 0 || std::size_t(id) >= w.attempts.size()) { w.fail("fed back a value never fed", -1, id); continue; }
            w.attempts[std::size_t(id)].st = attempt::failed;
        }
        // Exactly once, on the channel sent.
        for (const delivery& d : w.deliveries) {
            if (d.id < 0 || std::size_t(d.id) >= w.attempts.size()) {
                w.fail("received a value never sent", d.receiver, d.id);
                continue;
            }
            attempt& at = w.attempts[std::size_t(d.id)];
            ++at.received;
            if (at.sender == conn_id) ++cov.conn_in;
            if (d.receiver == conn_id) ++cov.conn_out;
            if (at.chan != d.chan) w.fail("received on another channel", d.receiver, d.id);
            if (at.st != attempt::ok) w.fail("received a value whose send failed", d.receiver, d.id);
        }
        for (std::size_t i = 0; i < w.attempts.size(); ++i) {
            const attempt& at = w.attempts[i];
            if (at.st == attempt::pending) w.fail("attempt never resolved", at.sender, int(i));
            if (at.st == attempt::ok && at.received != 1) w.fail("sent value received != once", at.sender, int(i));
            if (at.received > 1) w.fail("value received twice", at.sender, int(i));
        }
        // Close: a receive started after close takes only what was buffered then.
        int after[channels] = {};
        for (const delivery& d : w.deliveries)
            if (d.after_close) ++after[d.chan];
        for (int c = 0; c < channels; ++c)
            if (std::size_t(after[c]) > w.size_at_close[c]) w.fail("more received after close than buffered", -1, c);
        // Per-sender order: per receiver and channel; across rendezvous channels.
        for (int r = 0; r <= conn_id; ++r) {
            int last[max_agents + 1][channels + 1];
            for (auto& row : last)
                for (int& v : row) v = -1;
            for (const delivery& d : w.deliveries) {
                if (d.receiver != r || d.id < 0 || std::size_t(d.id) >= w.attempts.size()) continue;
                const int s = w.attempts[std::size_t(d.id)].sender;
                if (d.id <= last[s][d.chan]) w.fail("per-sender order broken on a channel", r, d.id);
                last[s][d.chan] = d.id;
                if (cap[d.chan] == 0) {
                    if (d.id <= last[s][channels]) w.fail("per-sender order broken across rendezvous", r, d.id);
                    last[s][channels] = d.id;
                }
            }
        }
        for (const std::string& e : w.errors) ADD_FAILURE() << e;
        ++programs;
    }
    EXPECT_EQ(test::counted::live, 0) << "seed " << seed;
    EXPECT_EQ(bad_items, 0) << "seed " << seed;
}

long env_or(const char* name, long dflt) {
    const char* v = std::getenv(name);
    return v && *v ? std::strtol(v, nullptr, 10) : dflt;
}

}  // namespace

TEST(review14_fuzz, random_programs_keep_every_channel_guarantee) {
    const long seeds = env_or("WEFT_FUZZ_SEEDS", 2000);
    const long first = env_or("WEFT_FUZZ_FIRST", 1);
    long programs = 0;
    for (long s = first; s < first + seeds; ++s) {
        run_one(unsigned(s), programs);
        if (::testing::Test::HasFailure()) {
            std::printf("first failing seed: %ld\n", s);
            return;
        }
    }
    std::printf("review14_fuzz: %ld programs; sends delivered %ld, failed %ld; errors closed %ld, cancelled %ld, "
                "timeout %ld; on_cancel %ld, windowed commits %ld, stalls %ld, closes %ld; through connections in %ld, out %ld\n",
                programs, cov.delivered, cov.failed_sends, cov.closed, cov.cancelled, cov.timeouts, cov.on_cancel,
                cov.windowed, cov.stalls, cov.closes, cov.conn_in, cov.conn_out);
    // Floors, so that the fuzzer cannot quietly stop exercising a clause.
    EXPECT_GT(cov.delivered, programs * 5);
    EXPECT_GT(cov.closed, programs / 4);
    EXPECT_GT(cov.cancelled, programs / 4);
    EXPECT_GT(cov.timeouts, programs / 4);
    EXPECT_GT(cov.on_cancel, programs / 50);
    EXPECT_GT(cov.windowed, programs / 20);
    EXPECT_GT(cov.stalls, programs / 50);
    EXPECT_GT(cov.conn_in, programs / 2);
    EXPECT_GT(cov.conn_out, programs / 2);
}
