// SPDX-License-Identifier: Apache-2.0
#include <weft/reactor/action.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>
#include "trace.hpp"

using namespace weft;
using namespace weft::reactors;

namespace {

// A zero-delay logical action lands one microstep later; a reaction
// triggered twice in one tag runs once.
struct stepper : reactor {
    stepper(basic_environment& e, test::trace& tr) : reactor(e, "stepper"), tr_(tr) {}
    test::trace& tr_;
    int n_ = 0;
    logical_action<int> a{*this, "a"};
    reaction go{*this, "go", on(startup()), writes(a), [this] { a.schedule(1); }};
    reaction step{*this, "step", on(a, startup()), writes(a), [this] {
        tr_.add(*this, "step", a.is_present() ? a.get() : -1);
        if (a.is_present() && a.get() < 3) a.schedule(a.get() + 1);
    }};
};

TEST(logical_action, zero_delay_advances_microstep_and_runs_once_per_tag) {
    environment<4, 8> env;
    test::trace tr;
    stepper s{env, tr};
    executor ex{test::virtual_clock()};
    ASSERT_TRUE(env.run(ex));
    EXPECT_EQ(tr.lines, (std::vector<std::string>{"0ms/0 step -1", "0ms/1 step 1", "0ms/2 step 2", "0ms/3 step 3"}));
}

struct delayed : reactor {
    delayed(basic_environment& e, test::trace& tr) : reactor(e, "delayed"), tr_(tr) {}
    test::trace& tr_;
    logical_action<int> a{*this, "a", 10ms};  // min delay
    reaction go{*this, "go", on(startup()), writes(a), [this] { a.schedule(7); a.schedule(8, 5ms); }};
    reaction got{*this, "got", on(a), [this] { tr_.add(*this, "got", a.get()); }};
};

TEST(logical_action, min_delay_adds_to_the_schedule_delay) {
    environment<4, 8> env;
    test::trace tr;
    delayed d{env, tr};
    executor ex{test::virtual_clock()};
    ASSERT_TRUE(env.run(ex));
    EXPECT_EQ(tr.lines, (std::vector<std::string>{"10ms/0 got 7", "15ms/0 got 8"}));
}

// At namespace scope: Clang 14 gives lambdas in member initialisers of a
// class local to a function the same mangled name.
struct twice : reactor {
    twice(basic_environment& e, test::trace& tr) : reactor(e, "twice"), tr_(tr) {}
    test::trace& tr_;
    logical_action<int> a{*this, "a"};
    reaction go{*this, "go", on(startup()), writes(a), [this] { a.schedule(1, 2ms); a.schedule(2, 2ms); }};
    reaction got{*this, "got", on(a), [this] { tr_.add(*this, "got", a.get()); }};
};

// LF: events of one action at one tag pile up in superdense time (none is
// lost; lf_schedule_trigger looks for the first free microstep).
TEST(logical_action, same_tag_twice_piles_up_in_microsteps) {
    environment<4, 8> env;
    test::trace tr;
    twice t{env, tr};
    executor ex{test::virtual_clock()};
    ASSERT_TRUE(env.run(ex));
    EXPECT_EQ(tr.lines, (std::vector<std::string>{"2ms/0 got 1", "2ms/1 got 2"}));
}

// The free microstep is found among all pending events of the action, not
// only the last one scheduled.
struct interleaved : reactor {
    interleaved(basic_environment& e, test::trace& tr) : reactor(e, "interleaved"), tr_(tr) {}
    test::trace& tr_;
    logical_action<int> a{*this, "a"};
    reaction go{*this, "go", on(startup()), writes(a), [this] {
        (void)a.schedule(1, 5ms);
        (void)a.schedule(2, 2ms);
        (void)a.schedule(3, 5ms);
        (void)a.schedule(4, 5ms);
    }};
    reaction got{*this, "got", on(a), [this] { tr_.add(*this, "got", a.get()); }};
};

TEST(logical_action, same_tag_after_another_tag_still_piles_up) {
    environment<8, 8> env;
    test::trace tr;
    interleaved t{env, tr};
    executor ex{test::virtual_clock()};
    ASSERT_TRUE(env.run(ex));
    EXPECT_EQ(tr.lines, (std::vector<std::string>{"2ms/0 got 2", "5ms/0 got 1", "5ms/1 got 3", "5ms/2 got 4"}));
}

// LF replaces a negative extra delay with zero: the min delay still holds.
struct negative_extra : reactor {
    negative_extra(basic_environment& e, test::trace& tr) : reactor(e, "neg"), tr_(tr) {}
    test::trace& tr_;
    logical_action<int> a{*this, "a", 10ms};
    reaction go{*this, "go", on(startup()), writes(a), [this] { (void)a.schedule(7, -5ms); }};
    reaction got{*this, "got", on(a), [this] { tr_.add(*this, "got", a.get()); }};
};

TEST(logical_action, negative_extra_delay_counts_as_zero) {
    environment<4, 8> env;
    test::trace tr;
    negative_extra n{env, tr};
    executor ex{test::virtual_clock()};
    ASSERT_TRUE(env.run(ex));
    EXPECT_EQ(tr.lines, (std::vector<std::string>{"10ms/0 got 7"}));
}

// Negative min delay or min spacing: refused at assembly, naming the action.
struct negative_min : reactor {
    negative_min(basic_environment& e, duration d, duration s) : reactor(e, "neg"), a{*this, "a", d, s} {}
    logical_action<int> a;
    reaction got{*this, "got", on(a), [] {}};
};

TEST(logical_action, negative_min_delay_or_spacing_is_a_declaration_error) {
    for (auto [d, s] : {std::pair{-1ms, 0ms}, std::pair{0ms, -1ms}}) {
        environment<4, 8> env;
        negative_min n{env, d, s};
        status st = env.assemble();
        ASSERT_TRUE(test::failed_with(st, errc::invalid, "action 'a': negative min delay or min spacing"));
    }
}

// Four schedules at 0, 1, 2, 3 ms (each from a timer) onto an action with
// 10 ms min delay and 3 ms... spacing 5 ms, one per policy.
struct spaced : reactor {
    spaced(basic_environment& e, test::trace& tr, spacing_policy p)
        : reactor(e, "spaced"), tr_(tr), a{*this, "a", 10ms, 5ms, p} {}
    test::trace& tr_;
    int n_ = 0;
    timer t{*this, "t", 0ms, 1ms};
    logical_action<int> a;
    reaction go{*this, "go", on(t), writes(a), [this] { if (n_ < 4) a.schedule(++n_); }};
    reaction got{*this, "got", on(a), [this] { tr_.add(*this, "got", a.get()); }};
};

std::vector<std::string> run_policy(spacing_policy p) {
    environment<8, 8> env{{.timeout = 40ms}};
    test::trace tr;
    spaced s{env, tr, p};
    executor ex{test::virtual_clock()};
    EXPECT_TRUE(env.run(ex));
    return tr.lines;
}

TEST(logical_action, spacing_defer_moves_events_to_previous_plus_spacing) {
    EXPECT_EQ(run_policy(spacing_policy::defer),
              (std::vector<std::string>{"10ms/0 got 1", "15ms/0 got 2", "20ms/0 got 3", "25ms/0 got 4"}));
}

TEST(logical_action, spacing_drop_discards_close_events) {
    EXPECT_EQ(run_policy(spacing_policy::drop), (std::vector<std::string>{"10ms/0 got 1"}));
}

TEST(logical_action, spacing_replace_gives_value_to_pending_event) {
    // 2, 3, 4 arrive while the event at 10 ms is still pending.
    EXPECT_EQ(run_policy(spacing_policy::replace), (std::vector<std::string>{"10ms/0 got 4"}));
}

TEST(logical_action, spacing_update_cancels_pending_event_and_keeps_new_one) {
    // Each new event replaces the pending one at its own time: 13 ms wins.
    EXPECT_EQ(run_policy(spacing_policy::update), (std::vector<std::string>{"13ms/0 got 4"}));
}

// Seed 001, Fig. 5a: a stuttering Zeno program.
struct unbounded : reactor {
    explicit unbounded(basic_environment& e) : reactor(e, "unbounded") {}
    int i_ = 0;
    logical_action<void> a{*this, "a"};
    logical_action<void> b{*this, "b"};
    reaction r{*this, "r", on(startup(), a, b), writes(a, b), [this] {
        a.schedule();
        b.schedule(duration{++i_});  // LF: lf_schedule(b, ++self->i)
    }};
};

TEST(logical_action, unbounded_program_stops_with_overflow_naming_action_and_capacity) {
    environment<8, 4> env{{.name = "zeno"}};
    unbounded u{env};
    executor ex{test::virtual_clock()};
    status s = env.run(ex);
    ASSERT_TRUE(test::failed_with(s, errc::overflow, "action 'b': event queue full (limit 8)"));
    auto bound = env.event_queue_bound();
    EXPECT_FALSE(bound);
}

// A task plays a bouncing button: presses at 0, 2, 4, 30, 31 ms.
struct button : reactor {
    button(basic_environment& e, test::trace& tr, spacing_policy p)
        : reactor(e, "button"), tr_(tr), press{*this, "press", 0ms, 10ms, p} {}
    test::trace& tr_;
    physical_action<int> press;
    reaction handle{*this, "handle", on(press), [this] { tr_.add(*this, "press", press.get()); }};
};

task<> bounce(button& b, int& errors) {
    const int at_ms[] = {1, 3, 5, 31, 32};
    for (int i = 0; i < 5; ++i) {
        co_await sleep_until(from_ns(std::uint64_t(at_ms[i]) * 1'000'000u));
        if (!b.press.schedule(i)) ++errors;
    }
}

std::vector<std::string> run_button(spacing_policy p) {
    environment<8, 8> env{{.timeout = 100ms}};
    test::trace tr;
    button b{env, tr, p};
    executor ex{test::virtual_clock()};
    int errors = 0;
    EXPECT_TRUE(env.start(ex));
    auto h = ex.spawn(bounce(b, errors));
    EXPECT_TRUE(h);
    ex.run();
    EXPECT_TRUE(env.finished());
    EXPECT_EQ(errors, 0);
    return tr.lines;
}

TEST(physical_action, tagged_from_physical_time_with_defer) {
    // presses at 1, 3, 5, 31, 32 ms (physical); spacing 10 ms defers.
    EXPECT_EQ(run_button(spacing_policy::defer),
              (std::vector<std::string>{"1ms/0 press 0", "11ms/0 press 1", "21ms/0 press 2", "31ms/0 press 3",
                                        "41ms/0 press 4"}));
}

TEST(physical_action, drop_debounces) {
    EXPECT_EQ(run_button(spacing_policy::drop),
              (std::vector<std::string>{"1ms/0 press 0", "31ms/0 press 3"}));
}

TEST(physical_action, replace_and_update_act_on_pending_deferred_event) {
    // Press 1 (3 ms) is deferred to 11 ms because press 0 was handled;
    // press 2 (5 ms) finds that event pending: replace gives it its value,
    // update cancels it and takes its place (same time, max(5, 11)).
    auto want = std::vector<std::string>{"1ms/0 press 0", "11ms/0 press 2", "31ms/0 press 3", "41ms/0 press 4"};
    EXPECT_EQ(run_button(spacing_policy::replace), want);
    EXPECT_EQ(run_button(spacing_policy::update), want);
}

// Two interrupts at the same clock reading: both are delivered, the
// second one microstep later (LF), and a negative extra delay counts as 0.
struct burst : reactor {
    burst(basic_environment& e, test::trace& tr) : reactor(e, "burst"), tr_(tr) {}
    test::trace& tr_;
    physical_action<int> p{*this, "p", 2ms};
    reaction got{*this, "got", on(p), [this] { tr_.add(*this, "got", p.get()); }};
};

task<> press_twice(burst& b, int& errors) {
    co_await sleep_until(from_ns(1'000'000u));
    if (!b.p.schedule(1)) ++errors;
    if (!b.p.schedule(2)) ++errors;
    if (!b.p.schedule(3, -1ms)) ++errors;
}

TEST(physical_action, same_instant_twice_piles_up_in_microsteps) {
    environment<8, 8> env{{.timeout = 10ms}};
    test::trace tr;
    burst b{env, tr};
    executor ex{test::virtual_clock()};
    int errors = 0;
    ASSERT_TRUE(env.start(ex));
    auto h = ex.spawn(press_twice(b, errors));
    ASSERT_TRUE(h);
    ex.run();
    ASSERT_TRUE(env.finished());
    EXPECT_EQ(errors, 0);
    EXPECT_EQ(tr.lines, (std::vector<std::string>{"3ms/0 got 1", "3ms/1 got 2", "3ms/2 got 3"}));
}

TEST(physical_action, schedule_before_start_is_refused) {
    environment<8, 8> env;
    test::trace tr;
    button b{env, tr, spacing_policy::defer};
    status s = b.press.schedule(1);
    EXPECT_EQ(s.code(), errc::invalid);
}

}  // namespace
