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
