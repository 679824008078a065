// SPDX-License-Identifier: Apache-2.0
#include <weft/reactor/reaction.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>
#include "trace.hpp"

using namespace weft;
using namespace weft::reactors;

namespace {

// Deadlines: the sensor reaction simulates 3 ms of work on the virtual
// clock, so the slow reaction at the same tag starts 3 ms late.
struct deadlines : reactor {
    deadlines(basic_environment& e, test::trace& tr) : reactor(e, "dl"), tr_(tr) {}
    test::trace& tr_;
    timer t{*this, "t", 0ms, 10ms};
    reaction work{*this, "work", on(t), [this] { env().exec()->advance(3ms); tr_.add(*this, "work"); }};
    reaction tight{*this, "tight", on(t), [this] { tr_.add(*this, "tight ok"); },
                   deadline(2ms, [this] { tr_.add(*this, "tight missed"); })};
    reaction loose{*this, "loose", on(t), [this] { tr_.add(*this, "loose ok"); },
                   deadline(5ms, [this] { tr_.add(*this, "loose missed"); })};
    reaction zero{*this, "zero", on(t), [this] { tr_.add(*this, "zero ok"); },
                  deadline(0ms, [this] { tr_.add(*this, "zero missed"); })};
};

TEST(reaction, deadline_handler_runs_instead_when_lag_exceeds_it) {
    environment<4, 8> env{{.timeout = 10ms}};
    test::trace tr;
    deadlines d{env, tr};
    executor ex{test::virtual_clock()};
    ASSERT_TRUE(env.run(ex));
    EXPECT_EQ(tr.lines, (std::vector<std::string>{"0ms/0 work", "0ms/0 tight missed", "0ms/0 loose ok",
                                                  "0ms/0 zero missed", "10ms/0 work", "10ms/0 tight missed",
                                                  "10ms/0 loose ok", "10ms/0 zero missed"}));
    EXPECT_EQ(env.stats().deadline_misses, 4u);
}

// Earliest deadline first among independent reactions of one level.
struct edf : reactor {
    edf(basic_environment& e, const char* name, duration d, test::trace& tr) : reactor(e, name), tr_(tr),
        r{*this, "r", on(startup()), [this] { tr_.add(*this, this->name()); }, deadline(d, [] {})} {}
    test::trace& tr_;
    reaction r;
};

TEST(reaction, same_level_runs_earliest_deadline_first) {
    environment<4, 8> env{{.fast = true}};
    test::trace tr;
    edf a{env, "a", 30ms, tr}, b{env, "b", 10ms, tr}, c{env, "c", 20ms, tr};
    executor ex{test::virtual_clock()};
    ASSERT_TRUE(env.run(ex));
    EXPECT_EQ(tr.lines, (std::vector<std::string>{"0ms/0 b", "0ms/0 c", "0ms/0 a"}));
}

// A reaction triggered by two inputs in one tag runs once, after both writers.
struct fan : reactor {
    fan(basic_environment& e, test::trace& tr) : reactor(e, "fan"), tr_(tr) {}
    test::trace& tr_;
    output<int> x{*this, "x"};
    output<int> y{*this, "y"};
    reaction w1{*this, "w1", on(startup()), writes(x), [this] { x.set(1); }};
    reaction w2{*this, "w2", on(startup()), writes(y), [this] { y.set(2); }};
    reaction both{*this, "both", on(x, y), [this] { tr_.add(*this, "both", x.get() * 10 + y.get()); }};
};

TEST(reaction, triggered_twice_in_one_tag_runs_once) {
    environment<4, 8> env;
    test::trace tr;
    fan f{env, tr};
    executor ex{test::virtual_clock()};
    ASSERT_TRUE(env.run(ex));
    EXPECT_EQ(tr.lines, (std::vector<std::string>{"0ms/0 both 12"}));
    EXPECT_EQ(env.level_count(), 3u);  // declaration order: w1 < w2 < both
}

}  // namespace
