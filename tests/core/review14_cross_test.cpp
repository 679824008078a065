// SPDX-License-Identifier: Apache-2.0
// Cross-layer review (review 14): tasks, csp channels and a reactor
// program sharing one executor, on the virtual clock.
#include <weft/core.hpp>
#include <weft/csp.hpp>
#include <weft/reactor.hpp>

#include <gtest/gtest.h>
#include <support/scripted_drivers.hpp>
#include <support/weft_test.hpp>

#include <string>
#include <vector>

using namespace weft;
using namespace weft::reactors;
using namespace std::chrono_literals;

namespace {

std::string at(const executor& ex, const char* what) { return std::to_string(test::ms(ex)) + "ms " + what; }

// A reaction that hands a value to tasks through a channel every tick.
struct feeder : reactor {
    feeder(basic_environment& e, csp::channel<int>& ch, std::vector<std::string>& log)
        : reactor(e, "feeder"), ch_(ch), log_(log) {}
    csp::channel<int>& ch_;
    std::vector<std::string>& log_;
    int n_ = 0;
    timer t{*this, "t", 1ms, 1ms};
    reaction r{*this, "r", on(t), [this] {
        ++n_;
        auto s = ch_.try_send(n_);
        log_.push_back(std::to_string(logical_time().count() / 1'000'000) + "ms sent " + std::to_string(n_) +
                       (s ? " ok" : " refused"));
    }};
};

}  // namespace

// A reaction sends to a task parked in a choose; another task cancels the
// receiver at the same instant. Whatever the order, a value the reaction
// was told was taken is received, and none is taken after the cancel.
TEST(review14_cross, a_reaction_sending_to_a_choose_cancelled_at_the_same_instant_loses_nothing) {
    for (bool cancel_first : {false, true}) {
        environment<4, 4> env{{.name = "env", .timeout = 3ms}};
        std::vector<std::string> log;
        csp::channel<int> ch{"ch"};
        feeder f{env, ch, log};
        executor ex{test::virtual_clock()};
        std::vector<int> got;
        int cancelled = 0;
        auto receiver = [&]() -> task<> {
            for (;;) {
                auto r = co_await csp::choose(csp::recv(ch), csp::wrap(csp::on_cancel(), [] { return result<int>{errc::cancelled}; }));
                if (!r) { ++cancelled; co_return; }
                got.push_back(*r);
            }
        };
        auto canceller = [&](join_handle<void>& h) -> task<> {
            co_await sleep_until(from_ns(2'000'000));
            h.cancel();
        };
        auto rh = ex.spawn(receiver());
        ASSERT_TRUE(rh);
        // The canceller's timer is armed before the program's alarm for
        // 2 ms when it starts first (cancel_first), after it otherwise.
        if (cancel_first) {
            auto ch2 = ex.spawn(canceller(*rh));
            ASSERT_TRUE(ch2);
            ASSERT_TRUE(env.start(ex));
        } else {
            ASSERT_TRUE(env.start(ex));
            auto ch2 = ex.spawn(canceller(*rh));
            ASSERT_TRUE(ch2);
        }
        EXPECT_EQ(ex.run(), run_outcome::completed);
        ASSERT_TRUE(env.finished());
        EXPECT_EQ(cancelled, 1);
        int accepted = 0;
        for (auto& l : log) accepted += l.ends_with(" ok");
        EXPECT_EQ(int(got.size()), accepted) << cancel_first;
    }
}

// A bound on a receive that falls due at the instant a reaction sends:
// the program's alarm, armed first, runs first, so the value is handed
// over, and the bounded await reports it (not the timeout).
TEST(review14_cross, a_bound_due_when_a_reaction_sends_reports_the_value_handed_over) {
    environment<4, 4> env{{.name = "env", .timeout = 1ms}};
    std::vector<std::string> log;
    csp::channel<int> ch{"ch"};
    feeder f{env, ch, log};
    executor ex{test::virtual_clock()};
    ASSERT_TRUE(env.start(ex));
    std::string outcome;
    auto receiver = [&]() -> task<> {
        auto r = co_await with_timeout(csp::sync(csp::recv(ch)), 1ms);
        outcome = r ? "got " + std::to_string(*r) : test::text(r);
    };
    auto h = ex.spawn(receiver());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(log, (std::vector<std::string>{"1ms sent 1 ok"}));
    EXPECT_EQ(outcome, "got 1");
}

namespace {
struct stopper_app : reactor {
    stopper_app(basic_environment& e, executor& ex, std::vector<std::string>& log)
        : reactor(e, "app"), ex_(ex), log_(log) {}
    executor& ex_;
    std::vector<std::string>& log_;
    int n_ = 0;
    timer t{*this, "t", 0ms, 1ms};
    reaction r{*this, "r", on(t), [this] {
        log_.push_back(at(ex_, "tick"));
        if (++n_ == 2) ex_.request_stop();  // the executor's stop, from a reaction
    }};
    reaction s{*this, "s", on(shutdown()), [this] { log_.push_back(at(ex_, "shutdown")); }};
};
}  // namespace

// The executor stopped from a reaction while a task sleeps: run() returns
// stopped; run again, the program and the task go on where they were.
TEST(review14_cross, an_executor_stopped_by_a_reaction_runs_on_from_where_it_was) {
    environment<4, 4> env{{.name = "env", .timeout = 4ms}};
    std::vector<std::string> log;
    executor ex{test::virtual_clock()};
    stopper_app app{env, ex, log};
    ASSERT_TRUE(env.start(ex));
    auto sleeper = [&]() -> task<> {
        co_await sleep_for(3ms);
        log.push_back(at(ex, "task"));
    };
    auto h = ex.spawn(sleeper());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::stopped);
    EXPECT_FALSE(env.finished());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_TRUE(env.finished());
    EXPECT_EQ(log, (std::vector<std::string>{"0ms tick", "1ms tick", "2ms tick", "3ms tick", "3ms task", "4ms tick",
                                             "4ms shutdown"}));
}

// env.run() tells a stop asked of the executor from a stall: the program
// is not broken, and ex.run() again finishes it.
TEST(review14_cross, env_run_reports_an_executor_stopped_first_as_a_stop_not_a_stall) {
    environment<4, 4> env{{.name = "env", .timeout = 2ms}};
    std::vector<std::string> log;
    executor ex{test::virtual_clock()};
    stopper_app app{env, ex, log};
    status s = env.run(ex);
    EXPECT_TRUE(test::failed_with(s, errc::cancelled, "environment 'env': executor stopped first (its request_stop())"));
    EXPECT_FALSE(env.finished());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_TRUE(env.finished());
    EXPECT_EQ(log, (std::vector<std::string>{"0ms tick", "1ms tick", "2ms tick", "2ms shutdown"}));
}

namespace {
struct sink : reactor {
    sink(basic_environment& e, std::vector<int>& got) : reactor(e, "sink"), got_(got) {}
    std::vector<int>& got_;
    physical_action<int, 2> p{*this, "p"};
    reaction r{*this, "r", on(p), [this] { got_.push_back(p.get()); }};
};
}  // namespace

// An interrupt-fed driver -> channel -> task -> physical action -> reaction
// chain, with bursts that overflow the physical action's buffer and a stop
// in the middle: every value the driver gave is accounted for (received by
// the reaction, refused as full, or refused as closed after the end).
TEST(review14_cross, a_driver_feeding_a_physical_action_through_a_channel_accounts_for_every_value) {
    environment<8, 4> env{{.name = "env"}};
    std::vector<int> got;
    sink s{env, got};
    executor ex{test::virtual_clock()};
    test::fifo_in drv;
    csp::channel<int, 2> ch{"ch"};
    auto conn = csp::connect(ex, ch, drv);
    ASSERT_TRUE(env.start(ex));
    int full = 0, closed = 0, other = 0, forwarded = 0;
    auto pump = [&]() -> task<> {
        for (;;) {
            auto v = co_await csp::recv(ch);
            if (!v) co_return;
            status st = s.p.schedule(*v);
            if (st) ++forwarded;
            else if (st.code() == errc::full) ++full;
            else if (st.code() == errc::closed) ++closed;
            else ++other;
        }
    };
    auto script = [&]() -> task<> {
        int k = 0;
        for (int round = 0; round < 4; ++round) {
            for (int i = 0; i < 5; ++i) drv.push(++k);
            co_await sleep_for(1ms);
            if (round == 2) env.request_stop();
        }
        ch.close();
    };
    auto hp = ex.spawn(pump());
    auto hs = ex.spawn(script());
    ASSERT_TRUE(hp && hs);
    EXPECT_EQ(ex.run(), run_outcome::completed) << conn.errors();
    (void)conn.close();
    EXPECT_TRUE(env.finished());
    EXPECT_EQ(other, 0);
    EXPECT_EQ(int(got.size()), forwarded);
    EXPECT_EQ(forwarded + full + closed, 20);
    EXPECT_GT(closed, 0);
    EXPECT_EQ(int(s.p.dropped()), full + closed);
}

namespace {
frame_pool<512, 2> tiny{"tiny"};

task<> short_job(std::vector<std::string>& log, executor& ex) {
    co_await sleep_for(1ms);
    log.push_back(at(ex, "job"));
}

struct spawner : reactor {
    spawner(basic_environment& e, executor& ex, std::vector<std::string>& log)
        : reactor(e, "spawner"), ex_(ex), log_(log) {}
    executor& ex_;
    std::vector<std::string>& log_;
    timer t{*this, "t", 0ms, 2ms};
    reaction r{*this, "r", on(t), [this] {
        for (int i = 0; i < 3; ++i) {
            task<> j;
            {
                use_frames scope{tiny};
                j = short_job(log_, ex_);
            }
            auto h = ex_.spawn(std::move(j));
            log_.push_back(at(ex_, h ? "spawned" : h.err().message().c_str()));
        }
    }};
};
}  // namespace

// Reactions spawning tasks into a small pool: the third spawn of each tag
// fails naming the pool and its limit, the program runs on, and the slots
// come back each time.
TEST(review14_cross, a_reaction_spawning_into_a_full_pool_is_refused_by_name_and_runs_on) {
    environment<4, 4> env{{.name = "env", .timeout = 2ms}};
    std::vector<std::string> log;
    executor ex{test::virtual_clock()};
    spawner sp{env, ex, log};
    ASSERT_TRUE(env.run(ex));
    EXPECT_EQ(tiny.in_use(), 0u);
    EXPECT_EQ(log, (std::vector<std::string>{
                       "0ms spawned", "0ms spawned", "0ms frame pool 'tiny': all slots in use (limit 2)", "1ms job",
                       "1ms job", "2ms spawned", "2ms spawned", "2ms frame pool 'tiny': all slots in use (limit 2)",
                       "3ms job", "3ms job"}));
}

// Property: seeded random programs in which a reactor program and tasks
// exchange values over channels (reactions with try_send / try_recv,
// tasks with direct sends and receives, choose with timeouts and
// on_cancel, bounded syncs, windows), cancel each other, feed a physical
// action, and stop the executor now and then. Every value a sender was
// told was taken is received exactly once (or is still buffered at the
// end), everything ends, and every frame goes back to its pool.
namespace {

frame_pool<4096, 16> mix_frames{"mix14"};

struct mix_world {
    test::seeded_rng rng{1};
    csp::channel<int> rv{"rv"};         // rendezvous, reaction -> tasks and tasks -> tasks
    csp::channel<int, 2> buf{"buf"};    // buffered, tasks -> reaction and tasks
    long long sent_sum = 0, recv_sum = 0;
    int sent = 0, received = 0;
    int next_value = 1;
    std::vector<result<join_handle<void>>> handles;
    int pick(int n) { return rng(n); }
    duration some_time() { return std::chrono::microseconds(100 * pick(6)); }
    void got(int v) { ++received; recv_sum += v; }
    void gave(int v) { ++sent; sent_sum += v; }
};

struct mix_app : reactor {
    mix_app(basic_environment& e, mix_world& w) : reactor(e, "mix"), w_(w) {}
    mix_world& w_;
    timer t{*this, "t", 0ms, 300us};
    physical_action<int, 3> p{*this, "p"};
    int physical_seen = 0;
    reaction r{*this, "r", on(t), [this] {
        switch (w_.pick(4)) {
            case 0: {
                int v = w_.next_value++;
                if (w_.rv.try_send(v)) w_.gave(v);
                break;
            }
            case 1: {
                int v = w_.next_value++;
                if (w_.buf.try_send(v)) w_.gave(v);
                break;
            }
            case 2:
                if (auto v = w_.buf.try_recv()) w_.got(*v);
                break;
            default:
                if (auto v = w_.rv.try_recv()) w_.got(*v);
                break;
        }
    }};
    reaction q{*this, "q", on(p), [this] { ++physical_seen; }};
};

task<> mixer(mix_world& w, mix_app& app, int steps) {
    for (int i = 0; i < steps; ++i) {
        switch (w.pick(11)) {
            case 0: {
                auto r = co_await csp::recv(w.rv);
                if (r) w.got(*r);
                break;
            }
            case 1: {
                int v = w.next_value++;
                auto s = co_await csp::send(w.buf, v);
                if (s) w.gave(v);
                break;
            }
            case 2: {
                int v = w.next_value++;
                auto s = co_await with_timeout(csp::sync(csp::send(w.rv, v)), w.some_time());
                if (s) w.gave(v);
                break;
            }
            case 3: {
                auto r = co_await csp::choose(csp::recv(w.rv), csp::recv(w.buf),
                                              csp::wrap(csp::timeout(w.some_time()),
                                                        [] { return result<int>{errc::timeout}; }),
                                              csp::wrap(csp::on_cancel(), [] { return result<int>{errc::cancelled}; }));
                if (r) w.got(*r);
                break;
            }
            case 4: {
                auto r = co_await with_timeout(csp::sync(csp::recv(w.buf)), w.some_time());
                if (r) w.got(*r);
                break;
            }
            case 5: {
                auto r = co_await csp::sync(csp::within(csp::recv(w.rv), w.some_time(), 1ms));
                if (r) w.got(*r);
                break;
            }
            case 6: {
                auto& h = w.handles[std::size_t(w.pick(int(w.handles.size())))];
                if (h) h->cancel();
                break;
            }
            case 7: (void)app.p.schedule(i); break;
            case 8: (void)co_await sleep_for(w.some_time()); break;
            case 9: (void)co_await yield(); break;
            default: {
                int v = w.next_value++;
                auto r = co_await csp::choose(csp::wrap(csp::send(w.rv, v), [v] { return v; }),
                                              csp::wrap(csp::send(w.buf, v), [v] { return v; }),
                                              csp::wrap(csp::timeout(w.some_time()), [] { return -1; }));
                if (r && *r > 0) w.gave(*r);
                break;
            }
        }
    }
}

task<> stop_after(executor& ex, duration d) {
    co_await sleep_for(d);
    ex.request_stop();
}

}  // namespace

TEST(review14_cross, random_programs_across_layers_lose_no_value_and_leak_no_frame) {
    for (std::uint32_t seed = 1; seed <= 300; ++seed) {
        mix_world w;
        w.rng.state = seed;
        environment<8, 4> env{{.name = "env", .timeout = 20ms}};
        mix_app app{env, w};
        executor ex{test::virtual_clock()};
        ASSERT_TRUE(env.start(ex));
        constexpr int n = 5;
        w.handles.reserve(n);
        for (int k = 0; k < n; ++k) {
            task<> t;
            {
                use_frames scope{mix_frames};
                t = mixer(w, app, 40);
            }
            w.handles.push_back(ex.spawn(std::move(t), unsigned(w.pick(3))));
            ASSERT_TRUE(w.handles.back()) << w.handles.back().err().message().c_str();
        }
        int stops = 0;
        for (;;) {
            if (w.pick(3) == 0) {
                // The executor's stop, from a task, now and then.
                auto h = ex.spawn(stop_after(ex, w.some_time() * 7));
                ASSERT_TRUE(h);
            }
            run_outcome o = ex.run();
            if (o == run_outcome::completed) break;
            ASSERT_EQ(o, run_outcome::stopped) << "seed " << seed;
            ASSERT_LT(++stops, 1000) << "seed " << seed;
        }
        ASSERT_TRUE(env.finished()) << "seed " << seed;
        ASSERT_TRUE(env.outcome()) << "seed " << seed << ": " << env.outcome().err().message().c_str();
        while (auto v = w.buf.try_recv()) w.got(*v);
        EXPECT_EQ(w.sent, w.received) << "seed " << seed;
        EXPECT_EQ(w.sent_sum, w.recv_sum) << "seed " << seed;
        w.handles.clear();
        EXPECT_EQ(mix_frames.in_use(), 0u) << "seed " << seed;
    }
}

namespace {
struct ticking : reactor {
    ticking(basic_environment& e, std::vector<std::string>& log) : reactor(e, "ticking"), log_(log) {}
    std::vector<std::string>& log_;
    timer t{*this, "t", 0ms, 1ms};
    physical_action<> p{*this, "p"};
    reaction r{*this, "r", on(t), [this] { log_.push_back("tick"); }};
    reaction q{*this, "q", on(p), [this] { log_.push_back("p"); }};
};
}  // namespace

// A program whose executor was stopped before it ended, destroyed while
// the executor lives on: the executor must not keep the program's alarm
// (a timer node inside the destroyed environment) nor count it as live.
TEST(review14_cross, an_unfinished_program_destroyed_before_its_executor_leaves_nothing_behind) {
    executor ex{test::virtual_clock()};
    std::vector<std::string> log;
    {
        environment<4, 4> env{{.name = "env"}};
        ticking app{env, log};
        ASSERT_TRUE(env.start(ex));
        env.request_stop();  // posts its wake-up too
        ex.request_stop();
        EXPECT_EQ(ex.run(), run_outcome::stopped);
        EXPECT_FALSE(env.finished());
        EXPECT_EQ(ex.live_tasks(), 1u);
    }
    EXPECT_EQ(ex.live_tasks(), 0u);
    auto later_task = [&]() -> task<> {
        co_await sleep_for(5ms);
        log.push_back("task");
    };
    auto h = ex.spawn(later_task());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(log, (std::vector<std::string>{"task"}));
}

// The other order: the executor goes first (it returned `stopped` with the
// program waiting), then the program. The program's destructor must not
// touch the destroyed executor (the usual order in main: the environment
// and its reactors declared before the executor).
TEST(review14_cross, an_unfinished_program_outliving_its_executor_touches_nothing_of_it) {
    std::vector<std::string> log;
    environment<4, 4> env{{.name = "env"}};
    ticking app{env, log};
    {
        executor ex{test::virtual_clock()};
        ASSERT_TRUE(env.start(ex));
        ex.request_stop();
        EXPECT_EQ(ex.run(), run_outcome::stopped);
        env.request_stop();  // queued in the executor, which is destroyed with it
    }
    EXPECT_FALSE(env.finished());
    EXPECT_TRUE(env.ended());        // nothing posts to the executor any more:
    EXPECT_EQ(env.exec(), nullptr);  // it was forgotten when the executor went
    env.request_stop();
    // Refused as after any end, and counted as dropped.
    EXPECT_TRUE(test::failed_with(app.p.schedule(), errc::closed, "physical action 'p': program finished"));
    EXPECT_EQ(app.p.dropped(), 1u);
}
