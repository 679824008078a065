// SPDX-License-Identifier: Apache-2.0
// Logical time near its ends: a delay past the end of time never fires
// (LF's FOREVER) instead of wrapping into the past; microsteps do not wrap;
// negative timer offsets are refused; a finished program leaves nothing
// queued in the executor.
#include <weft/reactor.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>
#include "trace.hpp"

#include <cstdint>
#include <memory>

using namespace weft;
using namespace weft::reactors;

namespace {

constexpr duration forever{INT64_MAX};

struct huge_period : reactor {
    huge_period(basic_environment& e, test::trace& tr) : reactor(e, "hp"), tr_(tr) {}
    test::trace& tr_;
    timer t{*this, "t", 1ms, forever};
    reaction r{*this, "r", on(t), [this] { tr_.add(*this, "t"); }};
    reaction s{*this, "s", on(shutdown()), [this] { tr_.add(*this, "shutdown"); }};
};

struct far_action : reactor {
    far_action(basic_environment& e, test::trace& tr) : reactor(e, "fa"), tr_(tr) {}
    test::trace& tr_;
    timer t{*this, "t", 1ms, 1ms};
    logical_action<int, 1> a{*this, "a"};
    int n_ = 0;
    reaction r{*this, "r", on(t), writes(a), [this] {
        // Far beyond the end of time, then near: the far event took no
        // value slot (the action has one).
        if (++n_ <= 2) tr_.add(*this, "far", bool(a.schedule(1, forever)));
        else if (n_ == 3) tr_.add(*this, "near", bool(a.schedule(2, 1ms)));
    }};
    reaction got{*this, "got", on(a), [this] { tr_.add(*this, "a", a.get()); }};
    reaction s{*this, "s", on(shutdown()), [this] { tr_.add(*this, "shutdown"); }};
};

struct source : reactor {
    source(place p, test::trace& tr) : reactor(p, "src"), tr_(tr) {}
    test::trace& tr_;
    timer t{*this, "t", 1ms};
    output<int> out{*this, "out"};
    reaction emit{*this, "emit", on(t), writes(out), [this] { tr_.add(*this, "emit"); out.set(7); }};
};
struct sink : reactor {
    sink(place p, test::trace& tr) : reactor(p, "snk"), tr_(tr) {}
    test::trace& tr_;
    input<int> in{*this, "in"};
    reaction got{*this, "got", on(in), [this] { tr_.add(*this, "got"); }};
    reaction s{*this, "s", on(shutdown()), [this] { tr_.add(*this, "shutdown"); }};
};
struct far_after : reactor {
    far_after(basic_environment& e, test::trace& tr) : reactor(e, "top"), a{*this, tr}, b{*this, tr} {}
    source a;
    sink b;
    after<int> link{*this, "link", a.out, b.in, forever};
};

struct negative_offset : reactor {
    using reactor::reactor;
    timer early{*this, "early", duration{-1'000'000}};
    reaction r{*this, "r", on(early), [] {}};
};

struct stopper : reactor {
    using reactor::reactor;
    reaction r{*this, "r", on(startup()), [this] { request_stop(); }};
};

// The trace of program `App` run in fast mode with a 10 ms timeout.
template <class App>
std::vector<std::string> trace_of() {
    environment<4, 8> env{{.fast = true, .timeout = 10ms}};
    test::trace tr;
    App app{env, tr};
    executor ex{test::virtual_clock()};
    EXPECT_TRUE(env.run(ex));
    return tr.lines;
}

}  // namespace

TEST(end_of_time, a_timer_period_past_it_fires_once) {
    // Nothing else is ever due: starvation, shutdown one microstep later.
    EXPECT_EQ(trace_of<huge_period>(), (std::vector<std::string>{"1ms/0 t", "1ms/1 shutdown"}));
}

TEST(end_of_time, an_action_delay_past_it_never_fires_and_holds_no_slot) {
    EXPECT_EQ(trace_of<far_action>(), (std::vector<std::string>{"1ms/0 far 1", "2ms/0 far 1", "3ms/0 near 1",
                                                                "4ms/0 a 2", "10ms/0 shutdown"}));
}

TEST(end_of_time, an_after_delay_past_it_never_delivers) {
    EXPECT_EQ(trace_of<far_after>(), (std::vector<std::string>{"1ms/0 emit", "1ms/1 shutdown"}));
}

TEST(end_of_time, delays_saturate_instead_of_wrapping) {
    EXPECT_EQ(delay_tag(tag{5, 0}, forever), (tag{INT64_MAX, 0}));
    EXPECT_EQ(delay_tag(tag{INT64_MAX - 1, 3}, 2ns), (tag{INT64_MAX, 0}));
    EXPECT_EQ(delay_tag(tag{5, 7}, 3ns), (tag{8, 0}));
    // The last microstep saturates; post() refuses an event there.
    EXPECT_EQ(delay_tag(tag{5, UINT32_MAX - 1}, 0ns), (tag{5, UINT32_MAX}));
    EXPECT_EQ(delay_tag(tag{5, UINT32_MAX}, 0ns), (tag{5, UINT32_MAX}));
    EXPECT_EQ(later(INT64_MAX - 5, 10), INT64_MAX);
    EXPECT_EQ(later(10, -4), 6);
}

TEST(end_of_time, an_event_at_the_last_microstep_is_an_overflow_naming_the_action) {
    environment<4, 8> env{{.fast = true, .timeout = 10ms}};
    test::trace tr;
    far_action app{env, tr};
    EXPECT_FALSE(env.post(app.a, tag{5, UINT32_MAX}, 0));
    executor ex{test::virtual_clock()};
    status s = env.run(ex);
    ASSERT_TRUE(test::failed_with(s, errc::overflow,
                                  "action 'a': microsteps at one time exhausted (limit 4294967294)"));
}

TEST(end_of_time, a_negative_timer_offset_is_refused_at_assembly) {
    environment<4, 8> env{{.fast = true}};
    negative_offset app{env, "neg"};
    executor ex{test::virtual_clock()};
    status s = env.run(ex);
    ASSERT_FALSE(s);
    EXPECT_STREQ(s.err().message().c_str(), "timer 'early': negative offset or period");
}

TEST(end_of_time, a_finished_program_leaves_nothing_queued_in_the_executor) {
    executor ex{test::virtual_clock()};
    {
        auto env = std::make_unique<environment<4, 8>>();
        stopper s{*env, "stopper"};
        ASSERT_TRUE(env->run(ex));  // request_stop() posted the wake node during the last tag
    }
    auto h = ex.spawn([]() -> task<> { co_return; }());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);  // ASan: no access to the destroyed environment
}
