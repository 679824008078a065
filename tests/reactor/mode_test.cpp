// SPDX-License-Identifier: Apache-2.0
#include <weft/reactor/mode.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>
#include "trace.hpp"

using namespace weft;
using namespace weft::reactors;

namespace {

// An inner modal reactor: blinks with a 3 ms timer in mode `on`.
struct inner : reactor {
    inner(place p, test::trace& tr) : reactor(p, "inner"), tr_(tr) {}
    test::trace& tr_;
    mode idle{*this, "idle", initial};
    mode busy{*this, "busy"};
    timer go{idle, "go", 1ms};
    reaction start{idle, "start", on(go), [this] { tr_.add(*this, "inner->busy"); set_mode(busy); }};
    reaction hello{busy, "hello", on(busy.on_reset()), [this] { tr_.add(*this, "inner busy reset"); }};
};

// Outer: mode A has a 4 ms periodic timer, a counter marked reset, and a
// nested modal reactor; toggles to B at 6 ms, comes back at 10 ms with
// `how`, which decides what A looks like again.
struct outer : reactor {
    outer(basic_environment& e, test::trace& tr, transition how) : reactor(e, "outer"), tr_(tr), how_(how) {}
    test::trace& tr_;
    transition how_;
    mode a{*this, "A", initial};
    mode b{*this, "B"};
    timer tick{a, "tick", 0ms, 4ms};
    reset_state<int> count{a, 0};
    inner nested{a, tr_};
    timer leave{*this, "leave", 6ms};
    timer back{*this, "back", 10ms};
    reaction on_tick{a, "tick", on(tick), [this] { tr_.add(*this, "tick", ++count.get()); }};
    reaction go_b{*this, "go_b", on(leave), [this] { set_mode(b); }};
    reaction go_a{*this, "go_a", on(back), [this] { set_mode(a, how_); }};
    reaction in_b{b, "in_b", on(b.on_reset()), [this] { tr_.add(*this, "entered B"); }};
};

std::vector<std::string> run_modes(transition how) {
    environment<8, 16> env{{.timeout = 17ms}};
    test::trace tr;
    outer o{env, tr, how};
    executor ex{test::virtual_clock()};
    EXPECT_TRUE(env.run(ex));
    return tr.lines;
}

TEST(mode, reset_restarts_timers_state_and_nested_modes) {
    // Left at 6 ms (tick pending at 8 ms is dropped). Reset at 10 ms: tick
    // restarts at 10 ms (offset 0: next microstep) with period 4 ms, count
    // from 0, inner back to idle with its 1 ms timer again (11 ms).
    EXPECT_EQ(run_modes(transition::reset),
              (std::vector<std::string>{"0ms/0 tick 1", "1ms/0 inner->busy", "1ms/1 inner busy reset", "4ms/0 tick 2",
                                        "6ms/1 entered B", "10ms/1 tick 1", "11ms/0 inner->busy",
                                        "11ms/1 inner busy reset", "14ms/0 tick 2"}));
}

TEST(mode, history_resumes_with_remaining_delays) {
    // Left at 6 ms with the tick due at 8 ms (2 ms remaining): resumes at
    // 12 ms, count continues, inner stays busy (no reset reactions).
    EXPECT_EQ(run_modes(transition::history),
              (std::vector<std::string>{"0ms/0 tick 1", "1ms/0 inner->busy", "1ms/1 inner busy reset", "4ms/0 tick 2",
                                        "6ms/1 entered B", "12ms/0 tick 3", "16ms/0 tick 4"}));
}

struct bad : reactor {
    using reactor::reactor;
    mode m{*this, "m"};
};

TEST(mode, modal_reactor_without_initial_mode_is_rejected) {
    environment<8, 8> env;
    bad r{env, "bad"};
    status s = env.assemble();
    ASSERT_FALSE(s);
    EXPECT_STREQ(s.err().message().c_str(), "reactor 'bad': has modes but no initial mode");
}

}  // namespace

// Regression of a review (2026-11-25): an event of a physical action in a
// mode that is not active went to the live queue, so a reset entry did not
// drop it (and with no delay it fired into the inactive mode, unseen).
namespace {

struct late_mode : reactor {
    late_mode(basic_environment& e, test::trace& tr, transition k) : reactor(e, "app"), tr_(tr), k_(k) {}
    test::trace& tr_;
    transition k_;
    mode A{*this, "A", initial};
    mode B{*this, "B"};
    timer t1{*this, "t1", 1ms};
    timer t2{*this, "t2", 2ms};
    timer t3{*this, "t3", 10ms};
    physical_action<int> p{B, "p", 20ms};  // scheduled at 5 ms: tag 25 ms
    reaction to_b{*this, "to_b", on(t1), [this] { set_mode(B, transition::reset); }};
    reaction to_a{*this, "to_a", on(t2), [this] { set_mode(A, transition::reset); }};
    reaction back{*this, "back", on(t3), [this] { tr_.add(*this, "enter B"); set_mode(B, k_); }};
    reaction got{B, "got", on(p), [this] { tr_.add(*this, "got", p.get()); }};
};

task<> schedule_at_5ms(late_mode& a) {
    co_await sleep_until(from_ns(5'000'000u));
    (void)a.p.schedule(1);
}

}  // namespace

// B is entered at 1 ms and left at 2 ms. The event scheduled at 5 ms,
// while B is inactive, waits as B's suspended events do: a reset entry
// into B at 10 ms drops it; a history entry delivers it with the delay it
// had left when it was scheduled (23 ms after the last tag, 2 ms), at 33.
TEST(mode, an_event_for_an_inactive_mode_is_suspended_with_it) {
    for (transition k : {transition::reset, transition::history}) {
        environment<8, 8> env{{.name = "e", .timeout = 50ms}};
        test::trace tr;
        late_mode a{env, tr, k};
        executor ex{test::virtual_clock()};
        ASSERT_TRUE(env.start(ex));
        auto h = ex.spawn(schedule_at_5ms(a));
        ASSERT_TRUE(h);
        ex.run();
        if (k == transition::reset) EXPECT_EQ(tr.lines, (std::vector<std::string>{"10ms/0 enter B"}));
        else EXPECT_EQ(tr.lines, (std::vector<std::string>{"10ms/0 enter B", "33ms/0 got 1"}));
    }
}

namespace {
// The trace of program App (built with `args`) run until `timeout`.
template <class App, class... Args>
std::vector<std::string> traced(duration timeout, Args... args) {
    environment<8, 8> env{{.name = "e", .timeout = timeout}};
    test::trace tr;
    App app{env, tr, args...};
    executor ex{test::virtual_clock()};
    EXPECT_TRUE(env.run(ex));
    return tr.lines;
}

// Events posted for an element of an inactive mode (second reactor review,
// 2026-11-26): an `after` declared in mode B, fed from outside B.
struct fed_src : reactor {
    fed_src(place p) : reactor(p, "src") {}
    output<int> out{*this, "out"};
    timer t{*this, "t", 1ms};
    reaction send{*this, "send", on(t), writes(out), [this] { out.set(7); }};
};
struct fed_dst : reactor {
    fed_dst(place p, test::trace& tr) : reactor(p, "dst"), tr_(tr) {}
    test::trace& tr_;
    input<int> in{*this, "in"};
    reaction got{*this, "got", on(in), [this] { tr_.add(*this, "got", in.get()); }};
};
struct after_in_mode : reactor {
    after_in_mode(basic_environment& e, test::trace& tr, transition k) : reactor(e, "app"), tr_(tr), k_(k) {}
    test::trace& tr_;
    transition k_;
    mode A{*this, "A", initial};
    mode B{*this, "B"};
    fed_src s{*this};
    fed_dst d{B, tr_};
    after<int, 2> link{B, "link", s.out, d.in, 5ms};  // value sent at 1 ms, due at 6 ms
    timer go{*this, "go", 2ms};
    reaction to_b{*this, "to_b", on(go), [this] { tr_.add(*this, "enter B"); set_mode(B, k_); }};
};

TEST(mode, an_after_fed_while_its_mode_is_inactive_is_suspended_and_reset_drops_it) {
    const auto lines = traced<after_in_mode>(20ms, transition::reset);
    // B was inactive when the value entered the `after` (1 ms); a reset
    // entry into B (2 ms) drops B's pending events: nothing arrives.
    EXPECT_EQ(lines, (std::vector<std::string>{"2ms/0 enter B"}));
}

// A logical action of mode B scheduled by a reactor-level reaction.
struct action_in_mode : reactor {
    action_in_mode(basic_environment& e, test::trace& tr) : reactor(e, "app"), tr_(tr) {}
    test::trace& tr_;
    mode A{*this, "A", initial};
    mode B{*this, "B"};
    logical_action<int, 2> act{B, "act"};
    timer t1{*this, "t1", 1ms};
    timer t2{*this, "t2", 2ms};
    reaction sched{*this, "sched", on(t1), writes(act), [this] { (void)act.schedule(5, 4ms); }};  // due 5 ms
    reaction to_b{*this, "to_b", on(t2), [this] { tr_.add(*this, "enter B"); set_mode(B, transition::reset); }};
    reaction got{B, "got", on(act), [this] { tr_.add(*this, "got", act.get()); }};
};

TEST(mode, an_action_scheduled_from_outside_its_inactive_mode_is_suspended) {
    const auto lines = traced<action_in_mode>(20ms);
    // Scheduled at 1 ms while B is inactive: suspended with B (as LF's
    // _lf_schedule does); the reset entry into B at 2 ms drops it.
    EXPECT_EQ(lines, (std::vector<std::string>{"2ms/0 enter B"}));
}

// Two events of one action at one tag (one resumed by history), then
// `update`: it must cancel its own (slot-matched) event.
struct resumed_dup : reactor {
    resumed_dup(basic_environment& e, test::trace& tr) : reactor(e, "app"), tr_(tr) {}
    test::trace& tr_;
    mode A{*this, "A", initial};
    mode B{*this, "B"};
    logical_action<int, 2> act{A, "act", 0ms, 1ms, spacing_policy::update};
    timer t{*this, "t", 1ms, 1ms};
    int n_ = 0;
    reaction drive{*this, "drive", on(t), writes(act), [this] {
        switch (++n_) {
            case 1: (void)act.schedule(1, 5ms); break;      // 1 ms: due 6 ms (slot 0)
            case 2: set_mode(B); break;                     // 2 ms: suspended, 4 ms left
            case 3: set_mode(A, transition::history); break;  // 3 ms: resumed at 7 ms
            case 4: (void)act.schedule(2, 3ms); break;      // 4 ms: due 7 ms (slot 1)
            case 5: (void)act.schedule(3, 2ms); break;      // 5 ms: update, due 7 ms
            case 8: (void)act.schedule(10, 5ms); break;     // 8 ms: due 13 ms
            case 9: (void)act.schedule(20, 10ms); break;    // 9 ms: due 19 ms
            default: break;
        }
    }};
    reaction got{A, "got", on(act), [this] { tr_.add(*this, "got", act.get()); }};
};

TEST(mode, update_cancels_its_own_event_when_a_resumed_one_shares_the_tag) {
    const auto lines = traced<resumed_dup>(25ms);
    // Whatever happens at 7 ms, the two later events carry their own values.
    ASSERT_GE(lines.size(), 2u);
    std::vector<std::string> tail(lines.end() - 2, lines.end());
    EXPECT_EQ(tail, (std::vector<std::string>{"13ms/0 got 10", "19ms/0 got 20"}));
}


}  // namespace

// Startup and shutdown in modes (LF: a mode's startup reactions run when
// it is first entered, once; its shutdown reactions run at the end if it
// was ever entered, active or not; lingua-franca
// test/C/src/modal_models/ModalStartupShutdown.lf). Found writing
// examples/traffic_light.
namespace {
struct startup_in_modes : reactor {
    startup_in_modes(basic_environment& e, test::trace& tr) : reactor(e, "app"), tr_(tr) {}
    test::trace& tr_;
    mode A{*this, "A", initial};
    mode B{*this, "B"};
    mode C{*this, "C"};  // never entered
    timer t1{*this, "t1", 1ms};
    timer t2{*this, "t2", 2ms};
    timer t3{*this, "t3", 3ms};
    reaction go{*this, "go", on(t1, t2, t3), [this] { set_mode(t2.is_present() ? A : B); }};
    reaction a_start{A, "a_start", on(startup()), [this] { tr_.add(*this, "A startup"); }};
    reaction b_start{B, "b_start", on(startup()), [this] { tr_.add(*this, "B startup"); }};
    reaction b_reset{B, "b_reset", on(B.on_reset()), [this] { tr_.add(*this, "B reset"); }};
    reaction c_start{C, "c_start", on(startup()), [this] { tr_.add(*this, "C startup"); }};
    reaction a_stop{A, "a_stop", on(shutdown()), [this] { tr_.add(*this, "A shutdown"); }};
    reaction b_stop{B, "b_stop", on(shutdown()), [this] { tr_.add(*this, "B shutdown"); }};
    reaction c_stop{C, "c_stop", on(shutdown()), [this] { tr_.add(*this, "C shutdown"); }};
};
}  // namespace

TEST(mode, startup_runs_on_first_entry_and_shutdown_in_every_mode_entered) {
    const auto lines = traced<startup_in_modes>(5ms);
    EXPECT_EQ(lines, (std::vector<std::string>{"0ms/0 A startup", "1ms/1 B startup", "1ms/1 B reset",
                                               "3ms/1 B reset", "3ms/2 A shutdown", "3ms/2 B shutdown"}));
}

// Events for an inactive mode that come back at one tag (review,
// 2026-11-26): they pile up in microsteps as new events do, and a physical
// action's spacing applies to them as to a logical action's. Before, the
// two logical events fired in one tag (one value lost), and so did the
// physical ones, with q's 10 ms spacing ignored.
namespace {

// B is active from 1 ms to 2 ms, then again from 10 ms (history).
struct away_and_back : reactor {
    away_and_back(basic_environment& e, test::trace& tr) : reactor(e, "app"), tr_(tr) {}
    test::trace& tr_;
    mode A{*this, "A", initial};
    mode B{*this, "B"};
    timer t1{*this, "t1", 1ms};
    timer t2{*this, "t2", 2ms};
    timer t10{*this, "t10", 10ms};
    reaction go{*this, "go", on(t1, t2, t10), [this] {
        if (t1.is_present()) set_mode(B);
        if (t2.is_present()) set_mode(A);
        if (t10.is_present()) set_mode(B, transition::history);
    }};
};

struct logical_twice : away_and_back {
    using away_and_back::away_and_back;
    logical_action<int> act{B, "act"};
    timer t5{*this, "t5", 5ms};
    // 5 ms, B inactive: both for 6 ms, 1 ms after the current tag.
    reaction sched{*this, "sched", on(t5), writes(act), [this] { (void)act.schedule(1, 1ms); (void)act.schedule(2, 1ms); }};
    reaction got{B, "got", on(act), [this] { tr_.add(*this, "act", act.get()); }};
};

// One event left pending when B is left (4 ms of its delay left), one
// scheduled for B while it is inactive with the same delay left.
struct suspended_apart : away_and_back {
    using away_and_back::away_and_back;
    logical_action<int> act{B, "act"};
    timer t3{*this, "t3", 3ms};
    reaction first{B, "first", on(B.on_reset()), writes(act), [this] { (void)act.schedule(1, 5ms); }};  // 1 ms/1: due 6 ms
    reaction second{*this, "second", on(t3), writes(act), [this] { (void)act.schedule(2, 4ms); }};     // 3 ms: due 7 ms
    reaction got{B, "got", on(act), [this] { tr_.add(*this, "act", act.get()); }};
};

struct physical_away : away_and_back {
    using away_and_back::away_and_back;
    physical_action<int> p{B, "p"};                                   // no spacing: piles up
    physical_action<int> q{B, "q", 0ms, 10ms, spacing_policy::drop};  // 10 ms apart at least
    reaction gotp{B, "gotp", on(p), [this] { tr_.add(*this, "p", p.get()); }};
    reaction gotq{B, "gotq", on(q), [this] { tr_.add(*this, "q", q.get()); }};
};

task<> feed_while_away(physical_away& a) {
    co_await sleep_until(from_ns(5'000'000u));
    (void)a.p.schedule(1);
    (void)a.p.schedule(2);  // the same clock reading
    (void)a.q.schedule(10);
    co_await sleep_until(from_ns(6'000'000u));
    (void)a.q.schedule(11);  // 1 ms after the previous one: dropped
}

}  // namespace

TEST(mode, logical_events_scheduled_twice_for_an_inactive_mode_pile_up_in_microsteps) {
    // 1 ms left at 5 ms: back at 11 ms, in the order they were scheduled.
    EXPECT_EQ(traced<logical_twice>(30ms), (std::vector<std::string>{"11ms/0 act 1", "11ms/1 act 2"}));
}

TEST(mode, events_suspended_apart_that_come_back_at_one_tag_pile_up_in_microsteps) {
    // The first had 4 ms left when B was left at 2 ms, the second 4 ms when
    // it was scheduled at 3 ms: both are due at 14 ms after the entry at 10.
    EXPECT_EQ(traced<suspended_apart>(30ms), (std::vector<std::string>{"14ms/0 act 1", "14ms/1 act 2"}));
}

TEST(mode, physical_events_for_an_inactive_mode_keep_microsteps_and_spacing) {
    environment<8, 8> env{{.name = "e", .timeout = 30ms}};
    test::trace tr;
    physical_away a{env, tr};
    executor ex{test::virtual_clock()};
    ASSERT_TRUE(env.start(ex));
    auto h = ex.spawn(feed_while_away(a));
    ASSERT_TRUE(h);
    ex.run();
    ASSERT_TRUE(env.outcome());
    // 3 ms after the last tag (2 ms) when they came: back at 13 ms, as they
    // would have been delivered at 5 ms in an active mode; q's second event
    // is dropped by its spacing (counted).
    EXPECT_EQ(tr.lines, (std::vector<std::string>{"13ms/0 p 1", "13ms/0 q 10", "13ms/1 p 2"}));
    EXPECT_EQ(a.q.dropped(), 1u);
    EXPECT_EQ(a.p.dropped(), 0u);
}
