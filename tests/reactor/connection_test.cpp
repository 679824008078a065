// SPDX-License-Identifier: Apache-2.0
#include <weft/reactor/connection.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>
#include "trace.hpp"

using namespace weft;
using namespace weft::reactors;

namespace {

struct source : reactor {
    source(place p, test::trace& tr) : reactor(p, "src"), tr_(tr) {}
    test::trace& tr_;
    int n_ = 0;
    timer t{*this, "t", 0ms, 10ms};
    output<int> out{*this, "out"};
    reaction emit{*this, "emit", on(t), writes(out), [this] { out.set(++n_); tr_.add(*this, "emit", n_); }};
};

struct sink : reactor {
    sink(place p, const char* name, test::trace& tr) : reactor(p, name), tr_(tr) {}
    test::trace& tr_;
    input<int> in{*this, "in"};
    reaction got{*this, "got", on(in), [this] { tr_.add(*this, name(), in.get()); }};
};

struct top : reactor {
    top(basic_environment& e, test::trace& tr) : reactor(e, "top"), s{*this, tr}, now{*this, "now", tr},
        zero{*this, "zero", tr}, later{*this, "later", tr} {
        connect(s.out, now.in);
    }
    source s;
    sink now, zero, later;
    after<int> d0{*this, "d0", s.out, zero.in, 0ms};
    after<int> d3{*this, "d3", s.out, later.in, 3ms};
};

TEST(connection, zero_delay_same_tag_after_zero_next_microstep_after_d_later) {
    environment<8, 8> env{{.timeout = 10ms}};
    test::trace tr;
    top t{env, tr};
    executor ex{test::virtual_clock()};
    ASSERT_TRUE(env.run(ex));
    EXPECT_EQ(tr.lines, (std::vector<std::string>{"0ms/0 emit 1", "0ms/0 now 1", "0ms/1 zero 1", "3ms/0 later 1",
                                                  "10ms/0 emit 2", "10ms/0 now 2"}));
}

// A loop of zero-delay connections is a causality cycle.
struct relay : reactor {
    relay(basic_environment& e, const char* name) : reactor(e, name) {}
    input<int> in{*this, "in"};
    output<int> out{*this, "out"};
    reaction fwd{*this, "fwd", on(in), writes(out), [this] { out.set(in.get()); }};
};

TEST(connection, causality_cycle_is_rejected_with_names) {
    environment<8, 8> env{{.name = "loop"}};
    relay a{env, "a"}, b{env, "b"};
    connect(a.out, b.in);
    connect(b.out, a.in);
    status s = env.assemble();
    ASSERT_TRUE(test::failed_with(s, errc::cycle, "environment 'loop': causality cycle: a.fwd -> b.fwd -> a.fwd"));
}

TEST(connection, after_breaks_the_cycle) {
    environment<8, 8> env{{.name = "loop"}};
    relay a{env, "a"}, b{env, "b"};
    connect(a.out, b.in);
    after<int> back{a, "back", b.out, a.in, 1ms};
    EXPECT_TRUE(env.assemble());
    EXPECT_EQ(env.level_count(), 2u);
}

// A reaction whose output comes back to its own input with zero delay
// depends on itself: a cycle (LF rejects it), not a reaction that runs once.
struct self_loop : reactor {
    explicit self_loop(basic_environment& e) : reactor(e, "top"), r{e, "r"} { connect(r.out, r.in); }
    relay r;
};

TEST(connection, zero_delay_self_loop_is_a_causality_cycle) {
    environment<8, 8> env{{.name = "self"}};
    self_loop t{env};
    status s = env.assemble();
    ASSERT_TRUE(test::failed_with(s, errc::cycle, "environment 'self': causality cycle: r.fwd -> r.fwd"));
}

// A reaction triggered by an output it writes itself (review, 2026-11-26):
// it ran once per tag on one thread, but with a worker its own set() marked
// it again after the level had taken its bit, and it ran over and over.
// LF does not let a reaction be triggered by its own reactor's output: a
// cycle, named, whatever the number of workers.
struct self_triggered : reactor {
    using reactor::reactor;
    timer t{*this, "t", 0ms, 1ms};
    output<int> out{*this, "out"};
    reaction r{*this, "r", on(t, out), writes(out), [this] { out.set(1); }};
};

TEST(connection, a_reaction_triggered_by_an_output_it_writes_is_a_causality_cycle) {
    environment<8, 8> env{{.name = "self"}};
    self_triggered app{env, "app"};
    status s = env.assemble();
    ASSERT_TRUE(test::failed_with(s, errc::cycle, "environment 'self': causality cycle: app.r -> app.r"));
}

// Reading what it wrote itself (reads(out)) stays legal: no trigger, no edge.
struct self_reader : reactor {
    self_reader(basic_environment& e, test::trace& tr) : reactor(e, "app"), tr_(tr) {}
    test::trace& tr_;
    int n_ = 0;
    timer t{*this, "t", 0ms, 1ms};
    output<int> out{*this, "out"};
    reaction r{*this, "r", on(t), reads(out), writes(out), [this] {
        out.set(++n_);
        tr_.add(*this, "r", out.is_present() ? out.get() : -1);
    }};
};

TEST(connection, a_reaction_may_read_an_output_it_writes) {
    environment<8, 8> env{{.name = "self", .timeout = 2ms}};
    test::trace tr;
    self_reader app{env, tr};
    executor ex{test::virtual_clock()};
    ASSERT_TRUE(env.run(ex));
    EXPECT_EQ(tr.lines, (std::vector<std::string>{"0ms/0 r 1", "1ms/0 r 2", "2ms/0 r 3"}));
}

// A cycle whose names do not fit the message ends in "..." (not cut silently).
struct named_relay : reactor {
    named_relay(basic_environment& e, const char* name) : reactor(e, name) {}
    input<int> in{*this, "in"};
    output<int> out{*this, "out"};
    reaction fwd{*this, "forward_the_value", on(in), writes(out), [this] { out.set(in.get()); }};
};

TEST(connection, a_long_cycle_message_says_it_is_cut) {
    environment<8, 8> env{{.name = "loop"}};
    named_relay a{env, "first_stage"}, b{env, "second_stage"}, c{env, "third_stage"};
    connect(a.out, b.in);
    connect(b.out, c.in);
    connect(c.out, a.in);
    status s = env.assemble();
    ASSERT_FALSE(s);
    std::string m = s.err().message().c_str();
    EXPECT_EQ(m.rfind("environment 'loop': causality cycle: first_stage.forward_the_value -> ", 0), 0u) << m;
    EXPECT_EQ(m.substr(m.size() - 3), "...") << m;
}

TEST(connection, negative_after_delay_is_a_declaration_error) {
    environment<8, 8> env{{.name = "x"}};
    relay a{env, "a"}, b{env, "b"};
    after<int> back{a, "back", a.out, b.in, -1ms};
    status s = env.assemble();
    ASSERT_TRUE(test::failed_with(s, errc::invalid, "after 'back': negative delay"));
}

// A source present at two microsteps of one time: `after 3 ms` delivers
// both values, at (3 ms, 0) and (3 ms, 1) (LF: the delay's action piles
// them up), while a port set twice in one tag still sends one value.
struct stutter : reactor {
    stutter(basic_environment& e, test::trace& tr) : reactor(e, "stutter"), tr_(tr), s{*this, "late", tr} {}
    test::trace& tr_;
    logical_action<void> again{*this, "again"};
    output<int> out{*this, "out"};
    sink s;
    after<int> d{*this, "d", out, s.in, 3ms};
    reaction first{*this, "first", on(startup()), writes(out, again), [this] {
        out.set(1);
        out.set(2);  // the same tag: replaces 1
        (void)again.schedule();
    }};
    reaction second{*this, "second", on(again), writes(out), [this] { out.set(3); }};
};

TEST(connection, after_keeps_one_value_per_source_tag_and_each_source_tag) {
    environment<8, 8> env;
    test::trace tr;
    stutter t{env, tr};
    executor ex{test::virtual_clock()};
    ASSERT_TRUE(env.run(ex));
    EXPECT_EQ(tr.lines, (std::vector<std::string>{"3ms/0 late 2", "3ms/1 late 3"}));
}

TEST(connection, two_upstreams_is_a_declaration_error) {
    environment<8, 8> env{{.name = "x"}};
    relay a{env, "a"}, b{env, "b"}, c{env, "c"};
    connect(a.out, c.in);
    connect(b.out, c.in);
    status s = env.assemble();
    ASSERT_FALSE(s);
    EXPECT_STREQ(s.err().message().c_str(), "port 'in': has two upstream connections (limit 1)");
}

}  // namespace

namespace {
// Setting an output presents it through its whole zero-delay tree at once
// (an input of a sibling, and through an input of a container into its
// child), and an `after` hanging off the same tree still gets the value.
struct inner : weft::reactors::reactor {
    inner(weft::reactors::place p, weft::test::trace& tr) : reactor(p, "inner"), tr_(tr) {}
    weft::test::trace& tr_;
    weft::reactors::input<int> in{*this, "in"};
    weft::reactors::reaction r{*this, "r", weft::reactors::on(in), [this] { tr_.add(*this, "inner", in.get()); }};
};
struct outer : weft::reactors::reactor {
    outer(weft::reactors::place p, weft::test::trace& tr) : reactor(p, "outer"), tr_(tr), child{*this, tr} {
        weft::reactors::connect(in, child.in);
    }
    weft::test::trace& tr_;
    weft::reactors::input<int> in{*this, "in"};
    inner child;
    weft::reactors::reaction r{*this, "r", weft::reactors::on(in), [this] { tr_.add(*this, "outer", in.get()); }};
};
struct tree_top : weft::reactors::reactor {
    tree_top(weft::reactors::basic_environment& e, weft::test::trace& tr)
        : reactor(e, "top"), tr_(tr), a{*this, tr}, b{*this, tr} {
        weft::reactors::connect(out, a.in);
        weft::reactors::connect(out, b.in);
    }
    weft::test::trace& tr_;
    weft::reactors::timer t{*this, "t", weft::duration{0}, weft::duration{1'000'000}};
    weft::reactors::output<int> out{*this, "out"};
    weft::reactors::input<int> late{*this, "late"};
    int n_ = 0;
    weft::reactors::reaction emit{*this, "emit", weft::reactors::on(t), weft::reactors::writes(out),
                                  [this] { out.set(++n_); }};
    outer a, b;
    weft::reactors::after<int> delay{*this, "delay", out, late, weft::duration{0}};
    weft::reactors::reaction got{*this, "got", weft::reactors::on(late), [this] { tr_.add(*this, "late", late.get()); }};
};
}  // namespace

TEST(connection, zero_delay_tree_and_after_on_one_output) {
    weft::reactors::environment<8, 16> env{{.fast = true, .timeout = weft::duration{1'000'000}}};
    weft::test::trace tr;
    tree_top top{env, tr};
    weft::executor ex{weft::test::virtual_clock()};
    ASSERT_TRUE(env.run(ex));
    // Inner before outer: same level, declaration order (a child is
    // declared before its container's reaction). The last `after` value
    // would land at (1ms, 1), past the timeout.
    std::vector<std::string> want{"0ms/0 inner 1", "0ms/0 outer 1", "0ms/0 inner 1", "0ms/0 outer 1",
                                  "0ms/1 late 1",  "1ms/0 inner 2", "1ms/0 outer 2", "1ms/0 inner 2",
                                  "1ms/0 outer 2"};
    EXPECT_EQ(tr.lines, want);
}

namespace {
// Outputs whose zero-delay tree holds one trigger (a single mark on set)
// next to outputs with none or several (the tree walk): a reader that only
// reads a port, a pass-through input of a container, an unconnected
// output, and an input set by the container.
struct passthrough : weft::reactors::reactor {
    passthrough(weft::reactors::place p, weft::test::trace& tr) : reactor(p, "pass"), child{*this, tr} {
        weft::reactors::connect(in, child.in);
    }
    weft::reactors::input<int> in{*this, "in"};  // no reaction of its own
    inner child;
};
struct watcher : weft::reactors::reactor {
    watcher(weft::reactors::place p, weft::test::trace& tr) : reactor(p, "watch"), tr_(tr) {}
    weft::test::trace& tr_;
    weft::reactors::input<int> seen{*this, "seen"};   // read, never a trigger
    weft::reactors::input<int> poke{*this, "poke"};
    weft::reactors::reaction look{*this, "look", weft::reactors::on(poke), weft::reactors::reads(seen), [this] {
        tr_.add(*this, seen.is_present() ? "seen" : "absent", seen.get());
    }};
};
struct single_top : weft::reactors::reactor {
    single_top(weft::reactors::basic_environment& e, weft::test::trace& tr)
        : reactor(e, "top"), tr_(tr), pass{*this, tr}, direct{*this, tr}, w{*this, tr} {
        weft::reactors::connect(a, pass.in);   // one trigger, two ports down
        weft::reactors::connect(a, w.seen);    // plus a source: still one trigger
        weft::reactors::connect(b, w.poke);
    }
    weft::test::trace& tr_;
    weft::reactors::timer t{*this, "t", weft::duration{0}, weft::duration{1'000'000}};
    weft::reactors::output<int> a{*this, "a"};
    weft::reactors::output<int> b{*this, "b"};
    weft::reactors::output<int> nowhere{*this, "nowhere"};
    int n_ = 0;
    weft::reactors::reaction emit{*this, "emit", weft::reactors::on(t),
                                  weft::reactors::writes(a, b, nowhere, direct.in), [this] {
                                      a.set(++n_);
                                      nowhere.set(n_);
                                      if (n_ == 2) b.set(n_);
                                      direct.in.set(10 * n_);
                                  }};
    passthrough pass;
    inner direct;
    watcher w;
};
}  // namespace

TEST(connection, single_reader_trees_and_others_present_the_value_in_the_same_tag) {
    weft::reactors::environment<8, 16> env{{.fast = true, .timeout = weft::duration{2'000'000}}};
    weft::test::trace tr;
    single_top top{env, tr};
    weft::executor ex{weft::test::virtual_clock()};
    ASSERT_TRUE(env.run(ex));
    std::vector<std::string> want{"0ms/0 inner 1", "0ms/0 inner 10", "1ms/0 inner 2", "1ms/0 inner 20",
                                  "1ms/0 seen 2",  "2ms/0 inner 3",  "2ms/0 inner 30"};
    EXPECT_EQ(tr.lines, want);
}
