// SPDX-License-Identifier: Apache-2.0
// Multi-environment review (review 15): two or more reactor programs
// sharing one executor, with tasks and channels, on the virtual clock.
#include <weft/core.hpp>
#include <weft/csp.hpp>
#include <weft/reactor.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>

#include <memory>
#include <string>
#include <thread>
#include <vector>

using namespace weft;
using namespace weft::reactors;
using namespace std::chrono_literals;

namespace {

using log_t = std::vector<std::string>;

// "10ms" if whole, else "10500us".
std::string time_text(std::int64_t ns) {
    return ns % 1'000'000 == 0 ? std::to_string(ns / 1'000'000) + "ms" : std::to_string(ns / 1'000) + "us";
}

// "A 2ms/0 t (ex 2ms)": program, logical tag, what, executor time.
void note(log_t& log, const reactor& r, const std::string& what) {
    const tag t = r.current_tag();
    const basic_environment& e = r.env();
    log.push_back(std::string(e.name()) + " " + time_text(t.time) + "/" + std::to_string(t.microstep) + " " + what +
                  " (ex " + (e.exec() ? time_text(std::int64_t(to_ns(e.exec()->now()))) : "-") + ")");
}

// A periodic timer, a shutdown reaction; stops itself after `stop_at` ticks.
struct ticking : reactor {
    ticking(basic_environment& e, log_t& log, duration period, int stop_at = -1)
        : reactor(e, "tick"), log_(log), period_(period), stop_at_(stop_at) {}
    log_t& log_;
    duration period_;
    int stop_at_;
    int n_ = 0;
    timer t{*this, "t", 0ms, period_};
    reaction r{*this, "r", on(t), [this] {
        note(log_, *this, std::string("t").append(std::to_string(++n_)));
        if (n_ == stop_at_) request_stop();
    }};
    reaction s{*this, "s", on(shutdown()), [this] { note(log_, *this, "shutdown"); }};
};

}  // namespace

// Two programs started at different executor times: each has its own
// logical time from 0, they interleave by executor time, each ends on its
// own timeout, and ex.run() returns once both have.
TEST(review15_multi, two_programs_keep_their_own_logical_time) {
    log_t log;
    environment<4, 4> a{{.name = "A", .timeout = 4ms}};
    environment<4, 4> b{{.name = "B", .timeout = 2ms}};
    ticking ta{a, log, 2ms};
    ticking tb{b, log, 1ms};
    executor ex{test::virtual_clock()};
    ASSERT_TRUE(a.start(ex));
    auto late = [&]() -> task<> {
        co_await sleep_for(1ms);
        status s = b.start(ex);
        log.push_back(std::string("start B: ") + test::text(s));
    };
    auto h = ex.spawn(late());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_TRUE(a.finished() && b.finished());
    EXPECT_EQ(log, (log_t{"A 0ms/0 t1 (ex 0ms)", "start B: ok", "B 0ms/0 t1 (ex 1ms)", "A 2ms/0 t2 (ex 2ms)",
                          "B 1ms/0 t2 (ex 2ms)", "B 2ms/0 t3 (ex 3ms)", "B 2ms/0 shutdown (ex 3ms)",
                          "A 4ms/0 t3 (ex 4ms)", "A 4ms/0 shutdown (ex 4ms)"}));
}

namespace {
// Schedules two zero-delay events per tag into a queue of 1: overflows.
struct flooding : reactor {
    flooding(basic_environment& e, log_t& log) : reactor(e, "flood"), log_(log) {}
    log_t& log_;
    timer t{*this, "t", 1ms};
    logical_action<int> a{*this, "a"};
    logical_action<int> b{*this, "b"};
    reaction r{*this, "r", on(t), writes(a, b), [this] {
        note(log_, *this, "flood");
        (void)a.schedule(1);
        (void)b.schedule(2);
    }};
    reaction s{*this, "s", on(shutdown()), [this] { note(log_, *this, "shutdown"); }};
};

struct loop_half : reactor {
    loop_half(basic_environment& e, const char* n) : reactor(e, n) {}
    input<int> in{*this, "in"};
    output<int> out{*this, "out"};
    reaction fwd{*this, "fwd", on(in), writes(out), [this] { out.set(in.get()); }};
};
}  // namespace

// One program overflows its queue (stops at once, no shutdown), another
// fails to assemble; the third runs to its timeout untouched.
TEST(review15_multi, a_program_that_fails_leaves_the_others_running) {
    log_t log;
    environment<1, 4> a{{.name = "A", .timeout = 5ms}};
    environment<4, 4> b{{.name = "B", .timeout = 3ms}};
    environment<4, 4> c{{.name = "C"}};
    flooding fa{a, log};
    ticking tb{b, log, 1ms};
    loop_half x{c, "x"}, y{c, "y"};
    connect(x.out, y.in);
    connect(y.out, x.in);
    executor ex{test::virtual_clock()};
    ASSERT_TRUE(a.start(ex));
    ASSERT_TRUE(b.start(ex));
    EXPECT_EQ(test::text(c.start(ex)), "environment 'C': causality cycle: x.fwd -> y.fwd -> x.fwd");
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(test::text(a.outcome()), "action 'b': event queue full (limit 1)");
    EXPECT_TRUE(b.outcome());
    EXPECT_EQ(log, (log_t{"B 0ms/0 t1 (ex 0ms)", "A 1ms/0 flood (ex 1ms)", "B 1ms/0 t2 (ex 1ms)",
                          "B 2ms/0 t3 (ex 2ms)", "B 3ms/0 t4 (ex 3ms)", "B 3ms/0 shutdown (ex 3ms)"}));
}

namespace {
// Triggered by another reactor's output (of whichever program).
struct watcher : reactor {
    watcher(basic_environment& e, output<int>& o) : reactor(e, "watcher"), o_(o) {}
    output<int>& o_;
    reaction r{*this, "r", on(o_), [] {}};
};
// An `after` from `from` to `to`, declared in `e`.
struct delayer : reactor {
    delayer(basic_environment& e, output<int>& from, input<int>& to) : reactor(e, "delayer"), d{*this, "d", from, to, 1ms} {}
    after<int> d;
};
}  // namespace

// Ports, reactions and `after`s tie only the reactors of one program:
// each program has its own tags, queue and ready set. A connection
// between two programs used to crash the first assembly (the writer's
// program ranked the other's reader past the end of its rank table); a
// reaction depending on another program's element, or an `after` across
// them, did the same. Now a declaration error, reported by both.
TEST(review15_multi, a_connection_between_two_programs_is_a_declaration_error) {
    const char* port_error = "port 'in': connected to a port of another environment";
    const char* reaction_error = "reaction 'r': depends on an element of another environment";
    const char* after_error = "port 'd': connected to a port of another environment";  // its entry port
    for (int kind = 0; kind < 3; ++kind) {
        environment<4, 4> a{{.name = "A", .timeout = 1ms}};
        environment<4, 4> b{{.name = "B", .timeout = 1ms}};
        loop_half x{a, "x"};
        loop_half y{b, "y"};
        std::unique_ptr<watcher> w;
        std::unique_ptr<delayer> d;
        if (kind == 0) connect(x.out, y.in);
        if (kind == 1) w = std::make_unique<watcher>(b, x.out);
        if (kind == 2) d = std::make_unique<delayer>(b, x.out, y.in);
        executor ex{test::virtual_clock()};
        const char* expected = kind == 0 ? port_error : kind == 1 ? reaction_error : after_error;
        EXPECT_EQ(test::text(a.start(ex)), expected) << kind;
        EXPECT_EQ(test::text(b.start(ex)), expected) << kind;
        EXPECT_EQ(ex.live_tasks(), 0u);
        EXPECT_EQ(ex.run(), run_outcome::completed);
    }
}

namespace {
// A reaction of one program triggered by another program's startup or
// shutdown (reached through a reactor of that program).
struct borrowed_trigger : reactor {
    borrowed_trigger(basic_environment& e, reactor& other, bool at_start)
        : reactor(e, "borrower"), t_(at_start ? other.startup() : other.shutdown()) {}
    weft::reactors::detail::element& t_;
    reaction r{*this, "r", on(t_), [] {}};
};
}  // namespace

// Startup and shutdown belong to their environment: a reaction of another
// program triggered by them would be marked in that program's ready set by
// this one's tags. Both programs refuse it, whichever starts first.
TEST(review15_multi, another_programs_startup_or_shutdown_is_a_declaration_error) {
    const char* expected = "reaction 'r': depends on an element of another environment";
    for (int kind = 0; kind < 4; ++kind) {
        environment<4, 4> a{{.name = "A", .timeout = 1ms}};
        environment<4, 4> b{{.name = "B", .timeout = 1ms}};
        loop_half x{a, "x"};
        borrowed_trigger w{b, x, kind % 2 == 0};
        executor ex{test::virtual_clock()};
        basic_environment& first = kind < 2 ? static_cast<basic_environment&>(a) : b;
        basic_environment& second = kind < 2 ? static_cast<basic_environment&>(b) : a;
        EXPECT_EQ(test::text(first.start(ex)), expected) << kind;
        EXPECT_EQ(test::text(second.start(ex)), expected) << kind;
        EXPECT_EQ(ex.live_tasks(), 0u);
        EXPECT_EQ(ex.run(), run_outcome::completed);
    }
    // Its own program's startup and shutdown are fine.
    environment<4, 4> a{{.name = "A", .timeout = 1ms}};
    loop_half x{a, "x"};
    borrowed_trigger w{a, x, true};
    borrowed_trigger v{a, x, false};
    executor ex{test::virtual_clock()};
    EXPECT_TRUE(a.start(ex));
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_TRUE(a.finished());
}

namespace {
// At 1 ms, a reaction takes 3 ms of executor time (executor::advance).
struct slow : reactor {
    slow(basic_environment& e, log_t& log, executor& ex) : reactor(e, "slow"), log_(log), ex_(ex) {}
    log_t& log_;
    executor& ex_;
    timer t{*this, "t", 1ms};
    reaction r{*this, "r", on(t), [this] {
        note(log_, *this, "busy");
        ex_.advance(3ms);
    }};
};
// A reaction with a 1 ms deadline every millisecond.
struct strict : reactor {
    strict(basic_environment& e, log_t& log) : reactor(e, "strict"), log_(log) {}
    log_t& log_;
    timer t{*this, "t", 0ms, 1ms};
    reaction r{*this, "r", on(t), [this] { note(log_, *this, "on time"); },
               deadline(1ms, [this] { note(log_, *this, "late"); })};
};
}  // namespace

// executor::advance() in a reaction of one program is execution time the
// other program sees as lag: its tags due meanwhile run late, in order,
// and miss their deadlines; its logical time is unchanged.
TEST(review15_multi, time_taken_by_one_program_is_lag_for_the_other) {
    for (int run = 0; run < 3; ++run) {
        log_t log;
        environment<4, 4> a{{.name = "A", .timeout = 1ms}};
        environment<4, 4> b{{.name = "B", .timeout = 5ms}};
        executor ex{test::virtual_clock()};
        slow sa{a, log, ex};
        strict sb{b, log};
        ASSERT_TRUE(a.start(ex));
        ASSERT_TRUE(b.start(ex));
        EXPECT_EQ(ex.run(), run_outcome::completed);
        EXPECT_EQ(log, (log_t{"B 0ms/0 on time (ex 0ms)", "A 1ms/0 busy (ex 1ms)", "B 1ms/0 late (ex 4ms)",
                              "B 2ms/0 late (ex 4ms)", "B 3ms/0 on time (ex 4ms)", "B 4ms/0 on time (ex 4ms)",
                              "B 5ms/0 on time (ex 5ms)"}))
            << run;
        EXPECT_EQ(b.stats().deadline_misses, 2u);
    }
}

namespace {
// Sends its tick count to a channel every millisecond.
struct sender : reactor {
    sender(basic_environment& e, log_t& log, csp::channel<int, 4>& ch) : reactor(e, "sender"), log_(log), ch_(ch) {}
    log_t& log_;
    csp::channel<int, 4>& ch_;
    int n_ = 0;
    timer t{*this, "t", 0ms, 1ms};
    reaction r{*this, "r", on(t), [this] {
        ++n_;
        note(log_, *this, (ch_.try_send(n_) ? "sent " : "refused ") + std::to_string(n_));
    }};
};
// Receives from a physical action; keeps alive.
struct receiver : reactor {
    receiver(basic_environment& e, log_t& log) : reactor(e, "receiver"), log_(log) {}
    log_t& log_;
    physical_action<int, 2> p{*this, "p", 500us};
    reaction r{*this, "r", on(p), [this] { note(log_, *this, "got " + std::to_string(p.get())); }};
    reaction s{*this, "s", on(shutdown()), [this] { note(log_, *this, "shutdown"); }};
};
}  // namespace

// A reaction of A -> channel -> task -> physical action of B (keepalive).
// A ends on its timeout, the task closes nothing; B is stopped by the task
// once the channel is closed, and the executor completes.
TEST(review15_multi, a_channel_from_one_program_feeds_a_physical_action_of_another) {
    for (int run = 0; run < 3; ++run) {
        log_t log;
        environment<4, 4> a{{.name = "A", .timeout = 3ms}};
        environment<4, 4> b{{.name = "B"}};
        csp::channel<int, 4> ch{"ch"};
        sender sa{a, log, ch};
        receiver rb{b, log};
        executor ex{test::virtual_clock()};
        ASSERT_TRUE(b.start(ex));
        auto pump = [&]() -> task<> {
            for (int i = 0; i < 4; ++i) {
                auto v = co_await csp::recv(ch);
                if (!v) co_return;
                status s = rb.p.schedule(*v * 10);
                log.push_back("pump " + std::to_string(*v) + " " + test::text(s));
            }
            co_await sleep_for(2ms);
            b.request_stop();
        };
        auto h = ex.spawn(pump());
        ASSERT_TRUE(h);
        status sa_run = a.run(ex);  // runs B and the task too
        EXPECT_TRUE(sa_run) << test::text(sa_run);
        EXPECT_TRUE(b.finished());
        EXPECT_EQ(log, (log_t{"A 0ms/0 sent 1 (ex 0ms)", "pump 1 ok", "B 500us/0 got 10 (ex 500us)", "A 1ms/0 sent 2 (ex 1ms)",
                              "pump 2 ok", "B 1500us/0 got 20 (ex 1500us)", "A 2ms/0 sent 3 (ex 2ms)", "pump 3 ok",
                              "B 2500us/0 got 30 (ex 2500us)", "A 3ms/0 sent 4 (ex 3ms)", "pump 4 ok",
                              "B 3500us/0 got 40 (ex 3500us)", "B 3500us/1 shutdown (ex 5ms)"}))
            << run;
    }
}

namespace {
// A program on the heap, so that a task or a reaction can destroy it.
struct owned {
    environment<4, 4> env;
    ticking app;
    owned(log_t& log, const char* name, duration period) : env{{.name = name}}, app{env, log, period} {}
};
// Destroys `victim` from a reaction at 2 ms.
struct destroyer : reactor {
    destroyer(basic_environment& e, log_t& log, std::unique_ptr<owned>& victim)
        : reactor(e, "destroyer"), log_(log), victim_(victim) {}
    log_t& log_;
    std::unique_ptr<owned>& victim_;
    timer t{*this, "t", 2ms};
    reaction r{*this, "r", on(t), [this] {
        note(log_, *this, "destroys A");
        victim_.reset();
    }};
};
}  // namespace

// An unfinished program destroyed by a task, then one destroyed by a
// reaction of another program, while the executor runs: each leaves
// nothing behind, and the last program runs to its timeout.
TEST(review15_multi, programs_destroyed_while_the_executor_runs_leave_the_others_running) {
    log_t log;
    auto a = std::make_unique<owned>(log, "A", 1ms);
    auto c = std::make_unique<owned>(log, "C", 1500us);
    environment<4, 4> b{{.name = "B", .timeout = 3ms}};
    destroyer d{b, log, a};
    ticking tb{b, log, 1ms};
    executor ex{test::virtual_clock()};
    ASSERT_TRUE(a->env.start(ex));
    ASSERT_TRUE(b.start(ex));
    ASSERT_TRUE(c->env.start(ex));
    EXPECT_EQ(ex.live_tasks(), 3u);
    auto killer = [&]() -> task<> {
        co_await sleep_for(1500us);
        log.push_back("task destroys C");
        c.reset();
    };
    auto h = ex.spawn(killer());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(ex.live_tasks(), 0u);
    EXPECT_TRUE(b.finished());
    EXPECT_EQ(log, (log_t{"A 0ms/0 t1 (ex 0ms)", "B 0ms/0 t1 (ex 0ms)", "C 0ms/0 t1 (ex 0ms)", "A 1ms/0 t2 (ex 1ms)",
                          "B 1ms/0 t2 (ex 1ms)", "C 1500us/0 t2 (ex 1500us)", "task destroys C",
                          "A 2ms/0 t3 (ex 2ms)", "B 2ms/0 destroys A (ex 2ms)", "B 2ms/0 t3 (ex 2ms)",
                          "B 3ms/0 t4 (ex 3ms)", "B 3ms/0 shutdown (ex 3ms)"}));
}

// Two unfinished programs, the executor stopped: destroying one lets the
// other finish on the next ex.run() (the live count drops by one only).
TEST(review15_multi, destroying_one_unfinished_program_leaves_the_other_counted) {
    log_t log;
    environment<4, 4> b{{.name = "B", .timeout = 3ms}};
    ticking tb{b, log, 1ms};
    executor ex{test::virtual_clock()};
    auto a = std::make_unique<owned>(log, "A", 1ms);
    ASSERT_TRUE(a->env.start(ex));
    ASSERT_TRUE(b.start(ex));
    auto stopper = [&]() -> task<> {
        co_await sleep_for(1500us);
        ex.request_stop();
    };
    auto h = ex.spawn(stopper());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::stopped);
    EXPECT_EQ(ex.live_tasks(), 2u);
    a.reset();
    EXPECT_EQ(ex.live_tasks(), 1u);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_TRUE(b.finished());
    EXPECT_EQ(log, (log_t{"A 0ms/0 t1 (ex 0ms)", "B 0ms/0 t1 (ex 0ms)", "A 1ms/0 t2 (ex 1ms)", "B 1ms/0 t2 (ex 1ms)",
                          "B 2ms/0 t3 (ex 2ms)", "B 3ms/0 t4 (ex 3ms)", "B 3ms/0 shutdown (ex 3ms)"}));
}

namespace {
// Eight reactions of one level (shared with a worker: threshold 4), then
// a sum that logs. Reactions of one reactor are ordered, so each of the
// eight has a reactor of its own.
struct fan_leaf : reactor {
    fan_leaf(place p, long long k) : reactor(p, "leaf"), k_(k) {}
    long long k_;
    long long v_ = 0;
    input<int> in{*this, "in"};
    reaction r{*this, "r", on(in), [this] { v_ = v_ * 5 + in.get() * k_; }};
};
struct fan : reactor {
    fan(basic_environment& e, log_t& log, duration period)
        : reactor(e, "fan"), log_(log), period_(period),
          leaves{{*this, 1}, {*this, 2}, {*this, 3}, {*this, 4}, {*this, 5}, {*this, 6}, {*this, 7}, {*this, 8}} {
        for (auto& l : leaves) connect(src, l.in);
    }
    log_t& log_;
    duration period_;
    timer t{*this, "t", 0ms, period_};
    output<int> src{*this, "src"};
    int n_ = 0;
    reaction emit{*this, "emit", on(t), writes(src), [this] { src.set(++n_); }};
    fan_leaf leaves[8];
};
// The sum in a reactor of its own, declared after the fan: a later level.
struct fan_sum : reactor {
    fan_sum(basic_environment& e, log_t& log, fan& f) : reactor(e, "sum"), log_(log), f_(f) {}
    log_t& log_;
    fan& f_;
    reaction r{*this, "r", on(f_.t), [this] {
        long long s = 0;
        for (auto& l : f_.leaves) s = s * 3 + l.v_;
        note(log_, *this, std::to_string(s));
    }};
};

log_t run_two_fans(bool workers) {
    log_t log;
    environment<4, 16> a{{.name = "A", .timeout = 20ms, .parallel_threshold = 4}};
    environment<4, 16> b{{.name = "B", .timeout = 30ms, .parallel_threshold = 4}};
    fan fa{a, log, 1ms};
    fan fb{b, log, 1500us};
    fan_sum sa{a, log, fa};
    fan_sum sb{b, log, fb};
    worker wa{"wa"}, wb{"wb"};
    std::thread ta, tb;
    if (workers) {
        a.add_worker(wa);
        b.add_worker(wb);
        ta = std::thread([&] { wa.run(); });
        tb = std::thread([&] { wb.run(); });
    }
    executor ex{test::virtual_clock()};
    EXPECT_TRUE(a.start(ex));
    EXPECT_TRUE(b.run(ex));
    EXPECT_TRUE(a.finished() && a.outcome());
    if (workers) {
        ta.join();
        tb.join();
        EXPECT_GT(a.stats().parallel_levels + b.stats().parallel_levels, 0u);
    }
    return log;
}
}  // namespace

// Two programs on one executor, each with a worker of its own: the same
// trace on every run, with and without the workers; each worker returns
// when its program ends.
TEST(review15_multi, two_programs_with_a_worker_each_give_one_trace) {
    const log_t ref = run_two_fans(false);
    ASSERT_EQ(ref.size(), 21u + 21u);
    for (int i = 0; i < 5; ++i) EXPECT_EQ(run_two_fans(false), ref);
    for (int i = 0; i < 10; ++i) EXPECT_EQ(run_two_fans(true), ref);
}

namespace {
// At its shutdown, stops another program.
struct closer : reactor {
    closer(basic_environment& e, log_t& log, basic_environment& other)
        : reactor(e, "closer"), log_(log), other_(other) {}
    log_t& log_;
    basic_environment& other_;
    reaction s{*this, "s", on(shutdown()), [this] {
        note(log_, *this, "stops A");
        other_.request_stop();
    }};
};
}  // namespace

// A keeps alive waiting for a physical action that a task schedules once;
// B, started first, stops A from its shutdown reaction. A.run() runs both.
TEST(review15_multi, one_program_stops_another_that_keeps_alive) {
    log_t log;
    environment<4, 4> a{{.name = "A"}};
    environment<4, 4> b{{.name = "B", .timeout = 3ms, .keepalive = true}};  // no event until its timeout
    receiver ra{a, log};
    closer cb{b, log, a};
    executor ex{test::virtual_clock()};
    ASSERT_TRUE(b.start(ex));
    auto once = [&]() -> task<> {
        co_await sleep_for(1ms);
        log.push_back("task " + test::text(ra.p.schedule(7)));
        co_await sleep_for(5ms);
        log.push_back("task " + test::text(ra.p.schedule(8)));
    };
    auto h = ex.spawn(once());
    ASSERT_TRUE(h);
    EXPECT_TRUE(a.run(ex));
    EXPECT_TRUE(b.finished());
    EXPECT_EQ(log, (log_t{"task ok", "A 1500us/0 got 7 (ex 1500us)", "B 3ms/0 stops A (ex 3ms)",
                          "A 1500us/1 shutdown (ex 3ms)",
                          "task physical action 'p': program finished"}));
}
