// SPDX-License-Identifier: Apache-2.0
// Bad input to reactor programs (audit of the rule "bad input gets a clear
// error and loses nothing"): declaration errors refused at assembly with
// the object's name, capacities that run out at run time stopping the
// program with the name and the limit, and what still works afterwards.
// Virtual clock throughout; reactor classes at namespace scope (Clang 14
// merges the bodies of classes declared inside a function, reactor.md).
#include <weft/reactor.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>
#include "trace.hpp"

#include <string>
#include <vector>

using namespace weft;
using namespace weft::reactors;

namespace {

struct three : reactor {
    using reactor::reactor;
    int ran = 0;
    reaction a{*this, "a", on(startup()), [this] { ++ran; }};
    reaction b{*this, "b", on(startup()), [this] { ++ran; }};
    reaction c{*this, "c", on(startup()), [this] { ++ran; }};
};

}  // namespace

// More reactions than the environment has room for: refused by start(),
// nothing runs, nothing is counted as live on the executor, and a second
// start() says the same (the program never started).
TEST(bad_input, more_reactions_than_the_environment_holds_are_refused) {
    environment<4, 2> env{{.name = "small"}};
    three r{env, "r"};
    executor ex{test::virtual_clock()};
    status s = env.start(ex);
    ASSERT_TRUE(test::failed_with(s, errc::full, "environment 'small': too many reactions (limit 2)"));
    EXPECT_EQ(ex.live_tasks(), 0u);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(r.ran, 0);
    status again = env.start(ex);
    EXPECT_STREQ(again.err().message().c_str(), "environment 'small': too many reactions (limit 2)");
}

namespace {

struct crowded : reactor {
    using reactor::reactor;
    timer a{*this, "a", 1ms};
    timer b{*this, "b", 2ms};
    timer c{*this, "c", 3ms};
    // Each list fits (a static_assert checks that), together they do not.
    basic_reaction<2> r{*this, "r", on(a, b), reads(c), [this] { (void)this; }};
};

}  // namespace

TEST(bad_input, more_dependencies_than_a_reaction_holds_are_refused_at_assembly) {
    environment<4, 4> env{{.name = "e"}};
    crowded app{env, "app"};
    status s = env.assemble();
    ASSERT_TRUE(test::failed_with(s, errc::full, "reaction 'r': too many dependencies (limit 2)"));
}

namespace {

struct hasty : reactor {
    hasty(basic_environment& e, test::trace& tr) : reactor(e, "hasty"), tr_(tr) {}
    test::trace& tr_;
    timer t{*this, "t", 1ms};
    reaction r{*this, "r", on(t), [this] { tr_.add(*this, "body"); },
               deadline(-1ms, [this] { tr_.add(*this, "missed"); })};
};

}  // namespace

// A negative deadline is refused like every other negative delay (timer
// offset, action delay, `after`); it used to be cut to 0 in silence, a
// deadline that is always missed.
TEST(bad_input, a_negative_deadline_is_refused_at_assembly) {
    environment<4, 4> env{{.name = "e"}};
    test::trace tr;
    hasty app{env, tr};
    executor ex{test::virtual_clock()};
    status s = env.run(ex);
    ASSERT_TRUE(test::failed_with(s, errc::invalid, "reaction 'r': negative deadline"));
    EXPECT_TRUE(tr.lines.empty());
}

namespace {

struct two_initials : reactor {
    two_initials(basic_environment& e, test::trace& tr) : reactor(e, "twice"), tr_(tr) {}
    test::trace& tr_;
    mode a{*this, "a", initial};
    mode b{*this, "b", initial};
    reaction ra{a, "ra", on(startup()), [this] { tr_.add(*this, "in a"); }};
    reaction rb{b, "rb", on(startup()), [this] { tr_.add(*this, "in b"); }};
};

}  // namespace

// Two initial modes in one reactor: refused at assembly, naming the
// reactor. (Accepted before, the later one was current at start.)
TEST(bad_input, two_initial_modes_are_refused_at_assembly) {
    environment<4, 4> env{{.name = "e"}};
    test::trace tr;
    two_initials app{env, tr};
    executor ex{test::virtual_clock()};
    status s = env.run(ex);
    ASSERT_TRUE(test::failed_with(s, errc::invalid, "reactor 'twice': has two initial modes (limit 1)"));
    EXPECT_TRUE(tr.lines.empty());
}

namespace {

struct victim : reactor {
    using reactor::reactor;
    mode x{*this, "x", initial};
    mode y{*this, "y"};
};

struct meddler : reactor {
    meddler(basic_environment& e, victim& v) : reactor(e, "meddler"), v_(v) {}
    victim& v_;
    reaction r{*this, "r", on(startup()), [this] { set_mode(v_.y); }};
};

void switch_another_reactors_mode() {
    environment<4, 4> env{{.name = "e"}};
    victim v{env, "victim"};
    meddler m{env, v};
    executor ex{test::virtual_clock()};
    (void)env.run(ex);
}

}  // namespace

// set_mode() with a mode of another reactor is a programming error: the
// program stops, naming the mode and both reactors.
TEST(bad_input, set_mode_with_another_reactors_mode_stops_the_program_naming_it) {
    EXPECT_DEATH(switch_another_reactors_mode(),
                 "reactor 'meddler': set_mode\\(\\) with mode 'y' of reactor 'victim'");
}

namespace {

struct greedy : reactor {
    greedy(basic_environment& e, test::trace& tr) : reactor(e, "app"), tr_(tr) {}
    test::trace& tr_;
    logical_action<int, 2> a{*this, "a"};
    status third;
    reaction go{*this, "go", on(startup()), writes(a), [this] {
                    (void)a.schedule(1, 1ms);
                    (void)a.schedule(2, 2ms);
                    third = a.schedule(3, 3ms);
                }};
    reaction got{*this, "got", on(a), [this] { tr_.add(*this, "got", a.get()); }};
    reaction bye{*this, "bye", on(shutdown()), [this] { tr_.add(*this, "shutdown"); }};
};

}  // namespace

// A logical action with every value slot taken: the schedule returns the
// error and the program stops with it at the end of that tag (no later
// tag, no shutdown reactions), as for a full event queue.
TEST(bad_input, a_logical_action_out_of_value_slots_stops_the_program_naming_it) {
    environment<8, 8> env{{.name = "e"}};
    test::trace tr;
    greedy app{env, tr};
    executor ex{test::virtual_clock()};
    status s = env.run(ex);
    ASSERT_TRUE(test::failed_with(s, errc::full, "action 'a': value slots full (limit 2)"));
    EXPECT_STREQ(app.third.err().message().c_str(), "action 'a': value slots full (limit 2)");
    EXPECT_TRUE(tr.lines.empty()) << tr.lines.front();
    EXPECT_EQ(test::ms(ex), 0);
}

namespace {

struct every_ms : reactor {
    every_ms(place p) : reactor(p, "src") {}
    output<int> out{*this, "out"};
    timer t{*this, "t", 0ms, 1ms};
    int n_ = 0;
    reaction r{*this, "r", on(t), writes(out), [this] { out.set(++n_); }};
};

struct sink : reactor {
    sink(place p, test::trace& tr) : reactor(p, "sink"), tr_(tr) {}
    test::trace& tr_;
    input<int> in{*this, "in"};
    reaction r{*this, "r", on(in), [this] { tr_.add(*this, "got", in.get()); }};
};

struct delayed : reactor {
    delayed(basic_environment& e, test::trace& tr) : reactor(e, "top"), dst{*this, tr} {}
    every_ms src{*this};
    sink dst;
    after<int, 2> link{*this, "link", src.out, dst.in, 5ms};
};

}  // namespace

// An `after` with more values in flight than its slots: the program stops
// at the tag of the value that found no slot (2 ms), naming the connection.
TEST(bad_input, an_after_out_of_slots_stops_the_program_naming_it) {
    environment<8, 8> env{{.name = "e"}};
    test::trace tr;
    delayed app{env, tr};
    executor ex{test::virtual_clock()};
    status s = env.run(ex);
    ASSERT_TRUE(test::failed_with(s, errc::full, "after 'link': values in flight (limit 2)"));
    EXPECT_TRUE(tr.lines.empty()) << tr.lines.front();
    EXPECT_EQ(test::ms(ex), 2);
}

namespace {

struct parked : reactor {
    parked(basic_environment& e, test::trace& tr) : reactor(e, "app"), tr_(tr) {}
    test::trace& tr_;
    mode A{*this, "A", initial};
    mode B{*this, "B"};
    physical_action<int> p{B, "p", 10ms};
    reaction got{B, "got", on(p), [this] { tr_.add(*this, "got", p.get()); }};
};

task<> schedule_twice_at_5ms(parked& a, status& first, status& second) {
    co_await sleep_for(5ms);
    first = a.p.schedule(1);
    second = a.p.schedule(2);
}

}  // namespace

// Events for an inactive mode wait in a store as large as the event
// queue. The second one does not fit (capacity 1): the program stops at
// once, naming the mode and the limit, and runs no further tag.
TEST(bad_input, too_many_events_for_an_inactive_mode_stop_the_program_naming_it) {
    environment<1, 4> env{{.name = "e"}};
    test::trace tr;
    parked app{env, tr};
    executor ex{test::virtual_clock()};
    ASSERT_TRUE(env.start(ex));
    status first = errc::invalid, second = errc::invalid;
    auto h = ex.spawn(schedule_twice_at_5ms(app, first, second));
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_TRUE(first && second);  // both were taken by the action's buffer
    ASSERT_TRUE(env.finished());
    ASSERT_FALSE(env.outcome());
    EXPECT_EQ(env.outcome().code(), errc::overflow);
    EXPECT_STREQ(env.outcome().err().message().c_str(), "mode 'B': too many suspended events (limit 1)");
    EXPECT_TRUE(tr.lines.empty()) << tr.lines.front();
    EXPECT_EQ(test::ms(ex), 5);
}

namespace {

struct sensor : reactor {
    sensor(basic_environment& e, test::trace& tr) : reactor(e, "app"), tr_(tr) {}
    test::trace& tr_;
    physical_action<int, 2> p{*this, "p"};
    reaction got{*this, "got", on(p), [this] { tr_.add(*this, "got", p.get()); }};
};

task<> three_then_one(sensor& a, std::vector<std::string>& msgs) {
    co_await sleep_for(5ms);
    (void)a.p.schedule(1);
    (void)a.p.schedule(2);
    status full = a.p.schedule(3);
    msgs.push_back(full.err().message().c_str());
    co_await sleep_for(1ms);  // the buffer has been drained: room again
    status later = a.p.schedule(4);
    msgs.push_back(later ? "ok" : later.err().message().c_str());
}

}  // namespace

// A physical action refuses by name what it cannot take: before the
// program starts, with its buffer full (the limit), and after the program
// has finished, where the event used to be accepted and never delivered
// (and, once the buffer had filled that way, refused as "buffer full").
// Each refusal changes nothing else: the buffer takes events again once
// drained, and every refused event is counted in dropped().
TEST(bad_input, a_physical_action_refuses_by_name_before_the_start_when_full_and_after_the_end) {
    environment<8, 8> env{{.name = "e", .timeout = 20ms}};
    test::trace tr;
    sensor app{env, tr};
    status early = app.p.schedule(0);
    EXPECT_EQ(early.code(), errc::invalid);
    EXPECT_STREQ(early.err().message().c_str(), "physical action 'p': program not started");
    executor ex{test::virtual_clock()};
    ASSERT_TRUE(env.start(ex));
    std::vector<std::string> msgs;
    auto h = ex.spawn(three_then_one(app, msgs));
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    ASSERT_TRUE(env.finished());
    EXPECT_TRUE(env.outcome());
    EXPECT_EQ(msgs, (std::vector<std::string>{"physical action 'p': buffer full (limit 2)", "ok"}));
    EXPECT_EQ(tr.lines, (std::vector<std::string>{"5ms/0 got 1", "5ms/1 got 2", "6ms/0 got 4"}));
    EXPECT_EQ(app.p.dropped(), 1u);
    for (int i = 0; i < 3; ++i) {  // more than the buffer holds: each one refused the same way
        status late = app.p.schedule(5 + i);
        EXPECT_EQ(late.code(), errc::closed);
        EXPECT_STREQ(late.err().message().c_str(), "physical action 'p': program finished");
    }
    EXPECT_EQ(app.p.dropped(), 4u);
    EXPECT_EQ(ex.run(), run_outcome::completed);  // and nothing was left queued on the executor
}

namespace {

struct once : reactor {
    once(basic_environment& e, test::trace& tr) : reactor(e, "app"), tr_(tr) {}
    test::trace& tr_;
    timer t{*this, "t", 1ms};
    logical_action<int> a{*this, "a"};
    reaction go{*this, "go", on(t), writes(a), [this] { (void)a.schedule(7, 1ms); }};
    reaction got{*this, "got", on(a), [this] { tr_.add(*this, "got", a.get()); }};
    reaction bye{*this, "bye", on(shutdown()), [this] { tr_.add(*this, "shutdown"); }};
};

}  // namespace

// A program that schedules actions has no static event-queue bound: asked
// for one, it says so by name, and the program still runs normally.
TEST(bad_input, a_queue_bound_asked_of_a_program_with_actions_is_an_error_naming_it) {
    environment<4, 8> env{{.name = "acts"}};
    test::trace tr;
    once app{env, tr};
    result<std::size_t> bound = env.event_queue_bound();
    ASSERT_TRUE(test::failed_with(bound, errc::invalid,
                                  "environment 'acts': no static event-queue bound: program schedules actions"));
    executor ex{test::virtual_clock()};
    EXPECT_TRUE(env.run(ex));
    EXPECT_EQ(tr.lines, (std::vector<std::string>{"2ms/0 got 7", "2ms/1 shutdown"}));
}

namespace {

struct lonely : reactor {
    lonely(basic_environment& e, test::trace& tr) : reactor(e, "app"), tr_(tr) {}
    test::trace& tr_;
    timer t{*this, "t", 1ms};
    reaction r{*this, "r", on(t), [this] { tr_.add(*this, "t"); }};
    reaction bye{*this, "bye", on(shutdown()), [this] { tr_.add(*this, "shutdown"); }};
};

}  // namespace

// keepalive with nothing that could ever schedule: the virtual-clock
// executor stalls, and run() says so by name instead of returning ok. The
// program is still waiting, consistent: a stop request ends it normally.
TEST(bad_input, a_keepalive_program_without_event_sources_is_reported_when_the_executor_stalls) {
    environment<4, 8> env{{.name = "k", .keepalive = true}};
    test::trace tr;
    lonely app{env, tr};
    executor ex{test::virtual_clock()};
    status s = env.run(ex);
    ASSERT_TRUE(test::failed_with(s, errc::invalid,
                                  "environment 'k': executor stalled first (keepalive without event sources?)"));
    EXPECT_FALSE(env.finished());
    env.request_stop();
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_TRUE(env.finished());
    EXPECT_TRUE(env.outcome());
    EXPECT_EQ(tr.lines, (std::vector<std::string>{"1ms/0 t", "1ms/1 shutdown"}));
}

// A worker joins before start(): afterwards the scheduler and the running
// workers read the list without a lock. Added twice, it would link to
// itself. Both stop the program naming the environment and the worker.
static void add_a_worker_after_start() {
    environment<4, 8> env{{.name = "plant"}};
    three r{env, "r"};
    executor ex{test::virtual_clock()};
    worker late{"late"};
    if (!env.start(ex)) return;
    env.add_worker(late);
}
static void add_a_worker_twice() {
    environment<4, 8> env{{.name = "plant"}};
    worker w{"w"};
    env.add_worker(w);
    env.add_worker(w);
}

TEST(bad_input, a_worker_added_after_start_or_twice_stops_the_program_naming_it) {
    EXPECT_DEATH(add_a_worker_after_start(), "environment 'plant': worker 'late' added after start\\(\\)");
    EXPECT_DEATH(add_a_worker_twice(), "environment 'plant': worker 'w' added twice");
}
