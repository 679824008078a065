// SPDX-License-Identifier: Apache-2.0
// Property test of issue 4 over thousands of seeded random schedules.
//
// Five agents and one late actor send and receive on two rendezvous and two
// buffered channels with every kind of event: plain send/recv (first sender,
// first receiver, queued), choose of two sends, of receives, of a send and a
// receive, guard, wrap, timeout, on_cancel, within/window (relative,
// absolute, nested, empty, already over; around send, recv, timeout and
// on_cancel), try_send/try_recv. A chaos task cancels agents wherever they
// are (blocked in a send, a receive or a choose, or ready).
//
// The order is random at three levels, all from the seed:
//  - the executor's ready queues: before each step an agent moves itself
//    and another agent (queued or not) to a random priority level
//    (executor::reprioritise: a queued task goes to the back of a raised
//    level or the front of a lowered one), then yields 0-2 times;
//  - time: the late actor, below every agent, moves the virtual clock
//    forward by random amounts while timers are due (executor::advance), as
//    a slow task on the real clock would, then acts on the channels before
//    those timers have run (so it meets offers whose window has closed);
//  - the workload: which step, which channels, which delays.
// Because only the late actor moves the clock and it runs only when no
// agent is ready, a task woken by a commit runs at the very instant of the
// commit: a wrap function's ex.now() is the commit time, exactly.
//
// Checked after each run (every checker fails on a wrong runtime: see the
// mutations listed in docs/csp.md, "Tests"):
//  - exactly once: the attempts reported sent (by send, a choose's send
//    branch, try_send) are exactly the attempts received (each attempt has
//    its own id, so an attempt that was withdrawn, timed out or cancelled
//    and still delivered is named), on the channel the sender was told;
//  - per-sender order: in each receiver's log, each sender's messages on a
//    channel come in the order sent (on r1 and b1, received only by agent
//    0, that is the channel's whole order), and across the rendezvous
//    channels too;
//  - windows: a windowed branch commits only inside its window (nested
//    windows: inside both); a timeout never commits before its delay;
//  - every frame came back.
// Coverage is counted over all seeds and asserted, so that the test cannot
// quietly stop exercising a clause.
#include <weft/csp.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>

#include <algorithm>
#include <coroutine>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

using namespace weft;
using namespace weft::csp;

namespace {

frame_pool<4096, 32> schedule_frames{"schedule"};

constexpr int agents = 5;            // agent 0 is the only receiver of r1 and b1
constexpr int late = agents;         // the late actor, as a sender and as a receiver
constexpr int drained = agents + 1;  // b0's values left at the end
constexpr int logs = agents + 2;
constexpr std::uint64_t quarter = 250'000;  // ns: delays are multiples of 0.25 ms

enum chan : int { r0, r1, b0, b1 };
constexpr const char* chan_name[] = {"r0", "r1", "b0", "b1"};
bool rendezvous(int c) { return c == r0 || c == r1; }

struct msg {
    std::int16_t sender;
    std::int16_t seq;      // per sender, counts sends that succeeded
    std::int32_t attempt;  // unique per send attempt
};

struct entry {
    msg m;
    int chan;
};

enum class step { sent, not_sent, received, nothing, cancelled };

// Where an agent waits, for the cancellation coverage.
enum class waiting : int { other, direct_send_first, direct_send_queued, direct_recv, choose_on_cancel, choose, count };

struct coverage {
    long cancel_blocked[int(waiting::count)] = {};
    long cancel_ready = 0;
    long two_sends = 0, mixed_send = 0, mixed_recv = 0, guarded = 0, recv_choose = 0, timed_out = 0;
    long window_recv = 0, window_abs = 0, window_nested = 0, window_timeout = 0, window_cancel = 0, window_send = 0;
    long window_recv_beside_send = 0, windows_closed = 0;  // syncs of windows only that ended with timeout
    long stalls = 0, late_sent = 0, late_received = 0, reorders = 0;
};
coverage cov;

duration quarters(int n) { return std::chrono::nanoseconds(quarter * std::uint64_t(n)); }

struct world {
    world(unsigned seed, executor& e) : rng(seed), ex(e) {}
    std::mt19937 rng;
    executor& ex;
    channel<msg> r0_{"r0"}, r1_{"r1"};
    channel<msg, 2> b0_{"b0"};
    channel<msg, 3> b1_{"b1"};
    std::vector<entry> sent;
    std::vector<entry> log[logs];  // each receiver's, in its commit order
    task_control* ctl[agents] = {};
    waiting where[agents] = {};
    std::int32_t attempts = 0;
    std::uint64_t trace = 1469598103934665603ull;  // FNV-1a of every outcome and its time
    std::string violation;                         // the first one

    int rnd(int n) { return int(rng() % unsigned(n)); }
    std::uint64_t now() const { return to_ns(ex.now()); }
    void mix(std::uint64_t v) { trace = (trace ^ v) * 1099511628211ull; }
    void fail(const std::string& what) {
        if (violation.empty()) violation = what + " at " + std::to_string(now()) + " ns";
    }
    step delivered(msg m, int c) {
        sent.push_back({m, c});
        mix(std::uint64_t(m.attempt) << 8 | std::uint64_t(c));
        mix(now());
        return step::sent;
    }
    step received(int who, msg m, int c) {
        log[who].push_back({m, c});
        mix(std::uint64_t(m.attempt) << 16 | std::uint64_t(who) << 8 | std::uint64_t(c));
        mix(now());
        return step::received;
    }
    // An outcome other than a commit: cancelled, timeout (windows only), or a bug.
    step other(errc code, const char* what) {
        if (code == errc::cancelled) return step::cancelled;
        if (code == errc::timeout) { ++cov.windows_closed; return step::nothing; }
        fail(std::string(what) + ": unexpected error " + std::to_string(int(code)));
        return step::nothing;
    }
    void in_window(const char* what, std::uint64_t lo, std::uint64_t hi) {
        std::uint64_t t = now();
        if (t < lo || t >= hi)
            fail(std::string(what) + " committed outside [" + std::to_string(lo) + ", " + std::to_string(hi) + ")");
    }
    void not_before(const char* what, std::uint64_t due) {
        if (now() < due) fail(std::string(what) + " committed before " + std::to_string(due));
    }
    int send_chan(int id) { return id == 0 ? (rnd(2) ? r0 : b0) : rnd(4); }
    int recv_chan(int id) { return id == 0 ? rnd(4) : (rnd(2) ? r0 : b0); }
};

// Calls f with the channel numbered c.
template <class F>
auto on(world& w, int c, F f) {
    if (c == r0) return f(w.r0_);
    if (c == r1) return f(w.r1_);
    if (c == b0) return f(w.b0_);
    return f(w.b1_);
}
template <class F>
auto on(world& w, int cx, int cy, F f) {
    return on(w, cx, [&](auto& x) { return on(w, cy, [&](auto& y) { return f(x, y); }); });
}

// --- the steps; if/else rather than `?:` around co_await (GCC 12 bug, docs/csp.md)

template <class C>
task<step> direct_send(world& w, int id, C& ch, int c, msg m) {
    w.where[id] = ch.send_must_wait() && ch.can_wait_first_send() ? waiting::direct_send_first
                                                                   : waiting::direct_send_queued;
    status s = co_await send(ch, m);
    w.where[id] = waiting::other;
    if (s) co_return w.delivered(m, c);
    co_return w.other(s.code(), "send");
}

template <class C>
task<step> direct_recv(world& w, int id, C& ch, int c) {
    w.where[id] = waiting::direct_recv;
    result<msg> r = co_await recv(ch);
    w.where[id] = waiting::other;
    if (r) co_return w.received(id, *r, c);
    co_return w.other(r.code(), "recv");
}

// One message offered on two channels (possibly the same one twice): one
// branch commits, the other offer must never deliver.
template <class X, class Y>
task<step> send_either(world& w, int id, X& x, int cx, Y& y, int cy, msg m) {
    const std::uint64_t due = w.now() + quarter * std::uint64_t(w.rnd(8));
    auto timed_out = [&w, due] { w.not_before("timeout", due); return 2; };
    result<int> r{errc::invalid};
    if (w.rnd(2)) {
        w.where[id] = waiting::choose_on_cancel;
        r = co_await choose(wrap(send(x, m), [] { return 0; }), wrap(send(y, m), [] { return 1; }),
                            wrap(timeout(std::chrono::nanoseconds(due - w.now())), timed_out),
                            wrap(on_cancel(), [] { return 3; }));
    } else {
        w.where[id] = waiting::choose;
        r = co_await choose(wrap(send(x, m), [] { return 0; }), wrap(send(y, m), [] { return 1; }),
                            wrap(timeout(std::chrono::nanoseconds(due - w.now())), timed_out));
    }
    w.where[id] = waiting::other;
    if (!r) co_return w.other(r.code(), "send_either");
    if (*r == 0 || *r == 1) ++cov.two_sends;
    if (*r == 0) co_return w.delivered(m, cx);
    if (*r == 1) co_return w.delivered(m, cy);
    if (*r == 2) { ++cov.timed_out; co_return step::not_sent; }
    co_return step::cancelled;
}

// A send and a receive in one choose.
template <class X, class Y>
task<step> send_or_recv(world& w, int id, X& x, int cx, Y& y, int cy, msg m) {
    w.where[id] = waiting::choose_on_cancel;
    auto r = co_await choose(wrap(send(x, m), [] { return 0; }),
                             wrap(recv(y), [&w, id, cy](msg got) { w.received(id, got, cy); return 1; }),
                             wrap(timeout(quarters(w.rnd(8))), [] { return 2; }),
                             wrap(on_cancel(), [] { return 3; }));
    w.where[id] = waiting::other;
    if (!r) co_return w.other(r.code(), "send_or_recv");
    if (*r == 0) { ++cov.mixed_send; co_return w.delivered(m, cx); }
    if (*r == 1) { ++cov.mixed_recv; co_return step::received; }
    if (*r == 2) { ++cov.timed_out; co_return step::not_sent; }
    co_return step::cancelled;
}

// A windowed send (relative or absolute window, possibly empty or over),
// against a windowed receive, on the same channel when this agent may
// receive from it: a window that opens must not match its own sync's offer.
template <class X, class Y>
task<step> send_windowed(world& w, int id, X& x, int cx, Y& y, int cy, msg m) {
    const std::uint64_t start = w.now();
    const int ar = w.rnd(6), br = ar + w.rnd(6);
    auto got = [&w, id, cy, lo = start + quarter * std::uint64_t(ar), hi = start + quarter * std::uint64_t(br)](msg g) {
        w.in_window("within(recv) beside a send", lo, hi);
        w.received(id, g, cy);
        return 2;
    };
    std::uint64_t lo = 0, hi = 0;
    result<int> r{errc::invalid};
    w.where[id] = waiting::choose;
    if (w.rnd(2)) {
        const int a = w.rnd(6), b = a + w.rnd(6);
        lo = start + quarter * std::uint64_t(a);
        hi = start + quarter * std::uint64_t(b);
        r = co_await choose(wrap(within(send(x, m), quarters(a), quarters(b)),
                                 [&w, lo, hi] { w.in_window("within(send)", lo, hi); return 0; }),
                            wrap(within(recv(y), quarters(ar), quarters(br)), got),
                            wrap(timeout(quarters(w.rnd(12))), [] { return 1; }));
    } else {
        lo = start - std::min<std::uint64_t>(start, quarter * std::uint64_t(w.rnd(6)));
        hi = lo + quarter * std::uint64_t(w.rnd(8));
        r = co_await choose(wrap(window(send(x, m), from_ns(lo), from_ns(hi)),
                                 [&w, lo, hi] { w.in_window("window(send)", lo, hi); return 0; }),
                            wrap(within(recv(y), quarters(ar), quarters(br)), got),
                            wrap(timeout(quarters(w.rnd(12))), [] { return 1; }));
    }
    w.where[id] = waiting::other;
    if (!r) co_return w.other(r.code(), "send_windowed");
    if (*r == 0) { ++cov.window_send; co_return w.delivered(m, cx); }
    if (*r == 2) { ++cov.window_recv_beside_send; co_return step::received; }
    ++cov.timed_out;
    co_return step::not_sent;
}

// guard picks the channel when the sync starts.
inline task<step> send_guarded(world& w, int id, msg m) {
    int picked = r0;
    w.where[id] = waiting::choose;
    auto r = co_await choose(wrap(guard([&] {
                                      if (id != 0 && w.rnd(2)) { picked = r1; return send(w.r1_, m); }
                                      picked = r0;
                                      return send(w.r0_, m);
                                  }),
                                  [] { return 0; }),
                             wrap(timeout(quarters(w.rnd(8))), [] { return 1; }));
    w.where[id] = waiting::other;
    if (!r) co_return w.other(r.code(), "send_guarded");
    if (*r == 0) { ++cov.guarded; co_return w.delivered(m, picked); }
    ++cov.timed_out;
    co_return step::not_sent;
}

// Receives from two channels (possibly the same) and, through guard, a
// rendezvous picked at sync time.
template <class X, class Y>
task<step> recv_choose(world& w, int id, X& x, int cx, Y& y, int cy) {
    int picked = r0;
    auto keep = [&w, id](int c) { return [&w, id, c](msg m) { w.received(id, m, c); return 0; }; };
    w.where[id] = waiting::choose_on_cancel;
    auto r = co_await choose(wrap(recv(x), keep(cx)), wrap(recv(y), keep(cy)),
                             wrap(guard([&] {
                                      if (id == 0 && w.rnd(2)) { picked = r1; return recv(w.r1_); }
                                      picked = r0;
                                      return recv(w.r0_);
                                  }),
                                  [&w, id, &picked](msg m) { w.received(id, m, picked); return 0; }),
                             wrap(timeout(quarters(w.rnd(8))), [] { return 1; }),
                             wrap(on_cancel(), [] { return 2; }));
    w.where[id] = waiting::other;
    if (!r) co_return w.other(r.code(), "recv_choose");
    if (*r == 0) { ++cov.recv_choose; co_return step::received; }
    if (*r == 1) { ++cov.timed_out; co_return step::nothing; }
    co_return step::cancelled;
}

// Windows only: relative, absolute, nested, around a timeout and around
// on_cancel. When every window has closed the sync ends with timeout.
template <class X, class Y>
task<step> recv_windowed(world& w, int id, X& x, int cx, Y& y, int cy) {
    const std::uint64_t start = w.now();
    auto q = [&w] { return w.rnd(8); };
    auto at = [start](int n) { return start + quarter * std::uint64_t(n); };
    const int a1 = q(), b1 = a1 + q();
    const std::uint64_t lo2 = start - std::min<std::uint64_t>(start, quarter * std::uint64_t(q())) + quarter * std::uint64_t(q());
    const std::uint64_t hi2 = lo2 + quarter * std::uint64_t(q());
    const int a3 = q(), b3 = a3 + q(), a4 = q(), b4 = a4 + q();
    const int d5 = q(), a5 = q(), b5 = a5 + q();
    const int a6 = q(), b6 = a6 + q();
    w.where[id] = waiting::choose;
    auto r = co_await choose(
        wrap(within(recv(x), quarters(a1), quarters(b1)),
             [&w, id, cx, lo = at(a1), hi = at(b1)](msg m) {
                 w.in_window("within(recv)", lo, hi);
                 w.received(id, m, cx);
                 return 0;
             }),
        wrap(window(recv(y), from_ns(lo2), from_ns(hi2)),
             [&w, id, cy, lo2, hi2](msg m) {
                 w.in_window("window(recv)", lo2, hi2);
                 w.received(id, m, cy);
                 return 1;
             }),
        wrap(within(within(recv(x), quarters(a3), quarters(b3)), quarters(a4), quarters(b4)),
             [&w, id, cx, lo = at(std::max(a3, a4)), hi = at(std::min(b3, b4))](msg m) {
                 w.in_window("nested window", lo, hi);
                 w.received(id, m, cx);
                 return 2;
             }),
        wrap(within(timeout(quarters(d5)), quarters(a5), quarters(b5)),
             [&w, due = at(d5), lo = at(a5), hi = at(b5)] {
                 w.in_window("within(timeout)", lo, hi);
                 w.not_before("within(timeout)", due);
                 return 3;
             }),
        wrap(within(on_cancel(), quarters(a6), quarters(b6)),
             [&w, lo = at(a6), hi = at(b6)] {
                 w.in_window("within(on_cancel)", lo, hi);
                 return 4;
             }));
    w.where[id] = waiting::other;
    if (!r) co_return w.other(r.code(), "recv_windowed");
    if (*r == 0) ++cov.window_recv;
    if (*r == 1) ++cov.window_abs;
    if (*r == 2) ++cov.window_nested;
    if (*r == 3) { ++cov.window_timeout; co_return step::nothing; }
    if (*r == 4) { ++cov.window_cancel; co_return step::cancelled; }
    co_return step::received;
}

template <class C>
step try_send_on(world& w, C& ch, int c, msg m) {
    auto r = ch.try_send(m);
    if (r) return w.delivered(m, c);
    if (r.value().attempt != m.attempt) w.fail("try_send handed back another value");
    return step::not_sent;
}

template <class C>
step try_recv_on(world& w, int who, C& ch, int c) {
    auto r = ch.try_recv();
    if (r) return w.received(who, *r, c);
    return step::nothing;
}

inline task<step> one_step(world& w, int id, msg m) {
    const int kind = w.rnd(9);
    const int cs = w.send_chan(id), cs2 = w.send_chan(id), cr = w.recv_chan(id), cr2 = w.recv_chan(id);
    if (kind == 0) return on(w, cs, [&](auto& x) { return direct_send(w, id, x, cs, m); });
    if (kind == 1) return on(w, cr, [&](auto& x) { return direct_recv(w, id, x, cr); });
    if (kind == 2) return on(w, cs, cs2, [&](auto& x, auto& y) { return send_either(w, id, x, cs, y, cs2, m); });
    if (kind == 3) return on(w, cs, cr, [&](auto& x, auto& y) { return send_or_recv(w, id, x, cs, y, cr, m); });
    if (kind == 4) {
        const int same = id == 0 || cs == r0 || cs == b0 ? cs : cr;
        return on(w, cs, same, [&](auto& x, auto& y) { return send_windowed(w, id, x, cs, y, same, m); });
    }
    if (kind == 5) return send_guarded(w, id, m);
    if (kind == 6) return on(w, cr, cr2, [&](auto& x, auto& y) { return recv_choose(w, id, x, cr, y, cr2); });
    return on(w, cr, cr2, [&](auto& x, auto& y) { return recv_windowed(w, id, x, cr, y, cr2); });
}

// A random priority level, never 0 (the late actor's).
priority agent_level(world& w) { return priority(1 + w.rnd(3)); }

task<> agent(world& w, int id, int steps) {
    w.ctl[id] = co_await test::running_control{};
    int seq = 0;
    for (int i = 0; i < steps; ++i) {
        // Reorder the executor: this agent and another one (ready, blocked
        // or running) change levels; a ready one moves in the queues.
        if (w.rnd(2)) w.ex.reprioritise(*w.ctl[id], agent_level(w));
        if (int o = w.rnd(agents); w.rnd(2) && w.ctl[o]) {
            w.ex.reprioritise(*w.ctl[o], agent_level(w));
            ++cov.reorders;
        }
        for (int k = w.rnd(3); k > 0; --k) (void)co_await yield();
        msg m{std::int16_t(id), std::int16_t(seq), ++w.attempts};
        step s = step::nothing;
        if (w.rnd(12) == 0) {
            const int c = w.send_chan(id);
            s = on(w, c, [&](auto& ch) { return try_send_on(w, ch, c, m); });
        } else {
            result<step> r = co_await one_step(w, id, m);
            if (!r) { w.fail("no frame for a step"); break; }
            s = *r;
        }
        if (s == step::sent) ++seq;
        if (s == step::cancelled) break;
    }
    w.ctl[id] = nullptr;
}

// Lowest priority: runs only when no agent is ready. Moves the clock past
// due timers, then acts before they run.
task<> late_actor(world& w, int steps) {
    int seq = 0;
    for (int i = 0; i < steps; ++i) {
        w.ex.advance(quarters(w.rnd(12)));
        msg m{std::int16_t(late), std::int16_t(seq), ++w.attempts};
        const int c = w.send_chan(1), cr = w.recv_chan(1), kind = w.rnd(3);
        step s = step::nothing;
        if (kind == 0) {
            s = on(w, c, [&](auto& ch) { return try_send_on(w, ch, c, m); });
        } else if (kind == 1) {
            s = on(w, cr, [&](auto& ch) { return try_recv_on(w, late, ch, cr); });
        } else {
            // Polled at once (timeout(0) is ready): never waits.
            const int lc = c == r0 && cr == r0 ? r0 : b0;
            result<int> r{errc::invalid};
            if (lc == r0) {
                r = co_await choose(wrap(send(w.r0_, m), [] { return 0; }),
                                    wrap(recv(w.r0_), [&w](msg g) { w.received(late, g, r0); return 1; }),
                                    wrap(timeout(duration::zero()), [] { return 2; }));
            } else {
                r = co_await choose(wrap(send(w.b0_, m), [] { return 0; }),
                                    wrap(recv(w.b0_), [&w](msg g) { w.received(late, g, b0); return 1; }),
                                    wrap(timeout(duration::zero()), [] { return 2; }));
            }
            if (!r) s = w.other(r.code(), "late choose");
            else if (*r == 0) s = w.delivered(m, lc);
            else if (*r == 1) s = step::received;
        }
        if (s == step::sent) { ++seq; ++cov.late_sent; }
        if (s == step::received) ++cov.late_received;
        // Always suspend (a sleep of 0 would not): agents it woke run at
        // the instant it woke them, before it moves the clock again.
        (void)co_await yield();
        if (w.rnd(2)) (void)co_await sleep_for(quarters(1 + w.rnd(8)));
    }
}

task<> chaos(world& w, int cancels) {
    for (int i = 0; i < cancels; ++i) {
        (void)co_await sleep_for(quarters(w.rnd(40)));
        const int v = w.rnd(agents);
        if (task_control* c = w.ctl[v]) {
            if (c->current_wait()) ++cov.cancel_blocked[int(w.where[v])];
            else ++cov.cancel_ready;
            c->cancel();
        }
    }
}

bool same(const entry& a, const entry& b) {
    return a.m.attempt == b.m.attempt && a.m.sender == b.m.sender && a.m.seq == b.m.seq && a.chan == b.chan;
}
std::string show(const entry& e) {
    return "attempt " + std::to_string(e.m.attempt) + " (sender " + std::to_string(e.m.sender) + ", seq " +
           std::to_string(e.m.seq) + ") on " + chan_name[e.chan];
}

// Exactly once, on the channel the sender was told.
void check_exactly_once(world& w) {
    std::vector<entry> got;
    for (auto& l : w.log) got.insert(got.end(), l.begin(), l.end());
    auto by_attempt = [](const entry& a, const entry& b) { return a.m.attempt < b.m.attempt; };
    std::vector<entry> sent = w.sent;
    std::sort(sent.begin(), sent.end(), by_attempt);
    std::sort(got.begin(), got.end(), by_attempt);
    std::size_t i = 0, j = 0;
    while (w.violation.empty() && (i < sent.size() || j < got.size())) {
        if (i < sent.size() && j < got.size() && same(sent[i], got[j])) { ++i; ++j; continue; }
        if (j < got.size() && (i == sent.size() || got[j].m.attempt <= sent[i].m.attempt))
            w.fail("received but not reported sent (or twice, or on another channel): " + show(got[j]));
        else
            w.fail("reported sent but never received: " + show(sent[i]));
    }
}

// Per-sender order in each receiver's log.
void check_order(world& w) {
    for (int who = 0; who < logs; ++who) {
        int last[logs][4], last_rendezvous[logs];
        std::fill(&last[0][0], &last[0][0] + logs * 4, -1);
        std::fill(last_rendezvous, last_rendezvous + logs, -1);
        for (const entry& e : w.log[who]) {
            if (who != 0 && (e.chan == r1 || e.chan == b1)) w.fail("test bug: only agent 0 receives r1 and b1");
            int& l = last[e.m.sender][e.chan];
            if (e.m.seq <= l) w.fail("receiver " + std::to_string(who) + " got " + show(e) + " after seq " + std::to_string(l));
            l = e.m.seq;
            if (rendezvous(e.chan)) {
                int& lr = last_rendezvous[e.m.sender];
                if (e.m.seq <= lr) w.fail("receiver " + std::to_string(who) + " got " + show(e) + " after rendezvous seq " + std::to_string(lr));
                lr = e.m.seq;
            }
        }
    }
}

// When nothing can run any more (no timer is armed, so no window is
// pending either): no sender waits while a receiver waits or while its
// buffer has room.
template <class C>
void check_quiescent(world& w, C& ch, int c) {
    bool stuck = false;
    if constexpr (C::capacity == 0) stuck = !ch.recv_must_wait() && !ch.send_must_wait();
    else stuck = ch.size() > 0 && ch.size() < C::capacity && !ch.can_take();
    if (stuck) w.fail(std::string("stalled with a sender waiting on ") + chan_name[c] + " that could have gone");
}

std::uint64_t run_one(unsigned seed) {
    use_frames scope{schedule_frames};
    executor ex{test::virtual_clock("schedule")};
    world w{seed, ex};
    std::vector<join_handle<void>> hs;
    hs.reserve(agents + 2);
    // One draw per statement: the order of a call's arguments is the
    // compiler's, and a seed should give the same run with GCC and Clang.
    for (int i = 0; i < agents; ++i) {
        const priority p = agent_level(w);
        hs.push_back(std::move(*ex.spawn(agent(w, i, 24), p)));
    }
    hs.push_back(std::move(*ex.spawn(late_actor(w, 16), 0)));
    const int cancels = 1 + w.rnd(3);
    const priority p = agent_level(w);
    hs.push_back(std::move(*ex.spawn(chaos(w, cancels), p)));
    if (ex.run() == run_outcome::stalled) {
        ++cov.stalls;
        check_quiescent(w, w.r0_, r0);
        check_quiescent(w, w.r1_, r1);
        check_quiescent(w, w.b0_, b0);
        check_quiescent(w, w.b1_, b1);
        // Legitimate (a plain send or receive nobody will match): cancel
        // the rest, which must unwind.
        for (auto* c : w.ctl)
            if (c) c->cancel();
        EXPECT_EQ(ex.run(), run_outcome::completed) << "seed " << seed;
    }
    // What is still buffered was not lost: b1's values are the end of
    // agent 0's order; b0's are anyone's.
    while (auto m = w.b1_.try_recv()) w.log[0].push_back({*m, b1});
    while (auto m = w.b0_.try_recv()) w.log[drained].push_back({*m, b0});
    check_exactly_once(w);
    check_order(w);
    EXPECT_EQ(w.violation, "") << "seed " << seed;
    hs.clear();
    EXPECT_EQ(schedule_frames.in_use(), 0u) << "seed " << seed;
    return w.trace;
}

}  // namespace

TEST(property, random_executor_orders_keep_every_csp_guarantee) {
    constexpr unsigned seeds = 20000;
    std::vector<std::uint64_t> traces;
    for (unsigned seed = 1; seed <= seeds; ++seed) {
        traces.push_back(run_one(seed));
        if (::testing::Test::HasFailure()) return;
    }
    // Thousands of different interleavings, not one repeated.
    std::sort(traces.begin(), traces.end());
    const auto distinct = std::size_t(std::unique(traces.begin(), traces.end()) - traces.begin());
    EXPECT_GE(distinct, seeds * 99 / 100);
    // Every clause was exercised, many times.
    const long floor = 50;
    const char* where_name[] = {"other", "direct send (first sender)", "direct send (queued)", "direct recv",
                                "choose with on_cancel", "choose"};
    for (int k = 1; k < int(waiting::count); ++k)  // 0: not in a csp wait
        EXPECT_GE(cov.cancel_blocked[k], floor) << "cancellations while blocked in " << where_name[k];
    EXPECT_GE(cov.cancel_ready, floor);
    EXPECT_GE(cov.two_sends, floor);
    EXPECT_GE(cov.mixed_send, floor);
    EXPECT_GE(cov.mixed_recv, floor);
    EXPECT_GE(cov.guarded, floor);
    EXPECT_GE(cov.recv_choose, floor);
    EXPECT_GE(cov.timed_out, floor);
    EXPECT_GE(cov.window_recv, floor);
    EXPECT_GE(cov.window_abs, floor);
    EXPECT_GE(cov.window_nested, floor);
    EXPECT_GE(cov.window_timeout, floor);
    EXPECT_GE(cov.window_cancel, 10);
    EXPECT_GE(cov.window_send, floor);
    EXPECT_GE(cov.window_recv_beside_send, floor);
    EXPECT_GE(cov.windows_closed, floor);
    EXPECT_GE(cov.stalls, floor);
    EXPECT_GE(cov.late_sent, floor);
    EXPECT_GE(cov.late_received, floor);
    std::printf("distinct traces %zu of %u; cancelled while blocked in", distinct, seeds);
    for (int k = 0; k < int(waiting::count); ++k) std::printf(" %s %ld,", where_name[k], cov.cancel_blocked[k]);
    std::printf(" ready %ld\ncommits: two sends %ld, send|recv %ld/%ld, guard %ld, recv choose %ld, timeouts %ld, "
                "within(recv) %ld, window(recv) %ld, nested %ld, within(timeout) %ld, within(on_cancel) %ld, "
                "within(send) %ld, within(recv) beside it %ld, all windows closed %ld, stalls %ld, late sent %ld received %ld, reorders %ld\n",
                cov.cancel_ready, cov.two_sends, cov.mixed_send, cov.mixed_recv, cov.guarded, cov.recv_choose,
                cov.timed_out, cov.window_recv, cov.window_abs, cov.window_nested, cov.window_timeout,
                cov.window_cancel, cov.window_send, cov.window_recv_beside_send, cov.windows_closed, cov.stalls, cov.late_sent, cov.late_received,
                cov.reorders);
}
