// SPDX-License-Identifier: Apache-2.0
#include <weft/reactor/timer.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>
#include "trace.hpp"

using namespace weft;
using namespace weft::reactors;

namespace {

// Seed 001, Fig. 5b: two timers, three reactions.
struct bounded : reactor {
    bounded(basic_environment& e, test::trace& tr) : reactor(e, "bounded"), tr_(tr) {}
    test::trace& tr_;
    timer t1{*this, "t1", 0ms, 10ms};
    timer t2{*this, "t2", 0ms, 50ms};
    reaction r1{*this, "r1", on(t1), [this] { tr_.add(*this, "r1"); }};
    reaction r2{*this, "r2", on(t2), [this] { tr_.add(*this, "r2"); }};
    reaction r3{*this, "r3", on(t1, t2), [this] { tr_.add(*this, "r3", (long long)(t1.is_present() * 10 + t2.is_present())); }};
};

// Three timers whose events overtake each other in the queue: the
// scheduler re-arms a timer in place (replace_top) and must still take
// the tags in order.
struct three_timers : reactor {
    three_timers(basic_environment& e, test::trace& tr) : reactor(e, "three"), tr_(tr) {}
    test::trace& tr_;
    timer t2{*this, "t2", 0ms, 2ms};
    timer t3{*this, "t3", 0ms, 3ms};
    timer t5{*this, "t5", 0ms, 5ms};
    reaction r2{*this, "r2", on(t2), [this] { tr_.add(*this, "r2"); }};
    reaction r3{*this, "r3", on(t3), [this] { tr_.add(*this, "r3"); }};
    reaction r5{*this, "r5", on(t5), [this] { tr_.add(*this, "r5"); }};
};

}  // namespace

TEST(timer, timers_that_overtake_each_other_fire_in_tag_order) {
    environment<4, 4> env{{.name = "env", .fast = true, .timeout = 10ms}};
    test::trace tr;
    three_timers app{env, tr};
    executor ex{test::virtual_clock()};
    ASSERT_TRUE(env.run(ex));
    std::vector<std::string> want{"0ms/0 r2", "0ms/0 r3", "0ms/0 r5", "2ms/0 r2", "3ms/0 r3", "4ms/0 r2",
                                  "5ms/0 r5", "6ms/0 r2", "6ms/0 r3", "8ms/0 r2", "9ms/0 r3", "10ms/0 r2",
                                  "10ms/0 r5"};
    EXPECT_EQ(tr.lines, want);
    EXPECT_EQ(env.stats().tags, 9u);
    EXPECT_EQ(env.stats().reactions, 13u);
}

TEST(timer, fires_at_offset_and_period_with_timeout) {
    environment<4, 8> env{{.name = "env", .timeout = 50ms}};
    test::trace tr;
    bounded b{env, tr};
    executor ex{test::virtual_clock()};
    ASSERT_TRUE(env.run(ex));
    std::vector<std::string> want{
        "0ms/0 r1", "0ms/0 r2", "0ms/0 r3 11", "10ms/0 r1", "10ms/0 r3 10", "20ms/0 r1", "20ms/0 r3 10",
        "30ms/0 r1", "30ms/0 r3 10", "40ms/0 r1", "40ms/0 r3 10", "50ms/0 r1", "50ms/0 r2", "50ms/0 r3 11"};
    EXPECT_EQ(tr.lines, want);
    EXPECT_EQ(test::ms(ex), 50);
}

TEST(timer, bounded_program_reports_exact_queue_bound_of_two) {
    environment<4, 8> env{{.name = "env", .fast = true, .timeout = 1000ms}};
    test::trace tr;
    bounded b{env, tr};
    auto bound = env.event_queue_bound();
    ASSERT_TRUE(bound);
    EXPECT_EQ(*bound, 2u);
    executor ex{test::virtual_clock()};
    ASSERT_TRUE(env.run(ex));
    EXPECT_EQ(env.event_queue_peak(), 2u);
}

TEST(timer, queue_smaller_than_bound_is_rejected_at_assembly) {
    environment<1, 8> env{{.name = "tiny"}};
    test::trace tr;
    bounded b{env, tr};
    auto s = env.assemble();
    ASSERT_TRUE(test::failed_with(s, errc::overflow,
                                  "environment 'tiny': event queue has fewer slots than timers (limit 1)"));
}

struct once : reactor {
    once(basic_environment& e, test::trace& tr) : reactor(e, "once"), tr_(tr) {}
    test::trace& tr_;
    timer t{*this, "t", 5ms};
    reaction r{*this, "r", on(t), [this] { tr_.add(*this, "t"); }};
    reaction s{*this, "s", on(shutdown()), [this] { tr_.add(*this, "shutdown"); }};
};

TEST(timer, one_shot_timer_then_starvation_stops_one_microstep_later) {
    environment<4, 8> env{{.name = "env"}};
    test::trace tr;
    once o{env, tr};
    executor ex{test::virtual_clock()};
    ASSERT_TRUE(env.run(ex));
    EXPECT_EQ(tr.lines, (std::vector<std::string>{"5ms/0 t", "5ms/1 shutdown"}));
}
