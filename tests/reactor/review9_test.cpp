// SPDX-License-Identifier: Apache-2.0
// Ninth review of the reactor layer: stop tag and queue room, timers in
// modes, values with destructors, ordering pins.
#include <weft/reactor.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>
#include "trace.hpp"

using namespace weft;
using namespace weft::reactors;

namespace {

// A one-event queue held by a periodic timer. At the last tag (timeout)
// the timer's next period stays queued; a shutdown reaction then schedules
// a zero-delay action, whose tag (T, 1) lies past the stop tag (T, 0): it
// can never fire, so it must take no room and not end the program with an
// overflow.
struct late_schedule : reactor {
    late_schedule(basic_environment& e, test::trace& tr) : reactor(e, "app"), tr_(tr) {}
    test::trace& tr_;
    timer t{*this, "t", 0ms, 1ms};
    logical_action<int> a{*this, "a"};
    reaction tick{*this, "tick", on(t), [this] { tr_.add(*this, "tick"); }};
    reaction bye{*this, "bye", on(shutdown()), writes(a), [this] {
        tr_.add(*this, "bye");
        status s = a.schedule(1);
        tr_.add(*this, s ? "scheduled" : s.err().message().c_str());
    }};
    reaction got{*this, "got", on(a), [this] { tr_.add(*this, "got", a.get()); }};
};

TEST(review9, a_zero_delay_event_scheduled_at_shutdown_takes_no_room_in_a_full_queue) {
    environment<1, 8> env{{.name = "e", .timeout = 2ms}};
    test::trace tr;
    late_schedule app{env, tr};
    executor ex{test::virtual_clock()};
    status s = env.run(ex);
    EXPECT_TRUE(s) << s.err().message().c_str();
    EXPECT_EQ(tr.lines, (std::vector<std::string>{"0ms/0 tick", "1ms/0 tick", "2ms/0 tick", "2ms/0 bye",
                                                  "2ms/0 scheduled"}));
}

// request_stop() in a reaction fixes the stop tag at (t, m + 1) (LF sets
// it at once): events the same reaction schedules after it for later tags
// can never fire and must take no room either.
struct stop_then_schedule : reactor {
    stop_then_schedule(basic_environment& e, test::trace& tr) : reactor(e, "app"), tr_(tr) {}
    test::trace& tr_;
    logical_action<int> a{*this, "a"};
    reaction go{*this, "go", on(startup()), writes(a), [this] {
        request_stop();
        status s1 = a.schedule(1, 10ms);
        status s2 = a.schedule(2, 20ms);
        tr_.add(*this, s1 ? "ok" : s1.err().message().c_str());
        tr_.add(*this, s2 ? "ok" : s2.err().message().c_str());
    }};
    reaction got{*this, "got", on(a), [this] { tr_.add(*this, "got", a.get()); }};
    reaction bye{*this, "bye", on(shutdown()), [this] { tr_.add(*this, "bye"); }};
};

TEST(review9, events_scheduled_after_request_stop_in_the_same_reaction_take_no_room) {
    environment<1, 8> env{{.name = "e"}};
    test::trace tr;
    stop_then_schedule app{env, tr};
    executor ex{test::virtual_clock()};
    status s = env.run(ex);
    EXPECT_TRUE(s) << s.err().message().c_str();
    EXPECT_EQ(tr.lines, (std::vector<std::string>{"0ms/0 ok", "0ms/0 ok", "0ms/1 bye"}));
}

// An event at the stop tag itself (scheduled with zero delay just before
// request_stop()) still fires with the shutdown reactions: pins that the
// fix above compares whole tags, not "anything after request_stop".
struct schedule_then_stop : reactor {
    schedule_then_stop(basic_environment& e, test::trace& tr) : reactor(e, "app"), tr_(tr) {}
    test::trace& tr_;
    logical_action<int> a{*this, "a"};
    reaction go{*this, "go", on(startup()), writes(a), [this] {
        (void)a.schedule(5);
        request_stop();
        (void)a.schedule(6);  // (0, 2): past the stop tag (0, 1)
    }};
    reaction got{*this, "got", on(a), [this] { tr_.add(*this, "got", a.get()); }};
    reaction bye{*this, "bye", on(shutdown()), [this] { tr_.add(*this, "bye"); }};
};

TEST(review9, an_event_at_the_stop_tag_fires_with_shutdown_and_one_after_it_does_not) {
    environment<1, 8> env{{.name = "e"}};
    test::trace tr;
    schedule_then_stop app{env, tr};
    executor ex{test::virtual_clock()};
    status s = env.run(ex);
    EXPECT_TRUE(s) << s.err().message().c_str();
    EXPECT_EQ(tr.lines, (std::vector<std::string>{"0ms/1 got 5", "0ms/1 bye"}));
}

// Timers in a mode: a one-shot timer with offset 0 (and a periodic one)
// declared in mode B. Never fires while B is inactive; a reset entry
// restarts both at (t, m + 1); a history entry resumes the periodic one's
// remaining delay and does not re-fire the one-shot one.
struct timed_modes : reactor {
    timed_modes(basic_environment& e, test::trace& tr) : reactor(e, "app"), tr_(tr) {}
    test::trace& tr_;
    mode A{*this, "A", initial};
    mode B{*this, "B"};
    timer once{B, "once"};                // offset 0, period 0
    timer every{B, "every", 0ms, 4ms};    // offset 0, period 4 ms
    timer sw{*this, "sw", 5ms, 5ms};      // 5, 10, 15, 20, 25: B(reset), A, B(history), A, B(reset)
    int n_ = 0;
    reaction fire_once{B, "once", on(once), [this] { tr_.add(*this, "once"); }};
    reaction fire_every{B, "every", on(every), [this] { tr_.add(*this, "every"); }};
    reaction in_a{A, "in_a", on(sw), [this] {
        ++n_;
        tr_.add(*this, "to B", n_);
        set_mode(B, n_ == 2 ? transition::history : transition::reset);
    }};
    reaction in_b{B, "in_b", on(sw), [this] { tr_.add(*this, "to A"); set_mode(A); }};
};

TEST(review9, one_shot_and_periodic_timers_in_a_mode_follow_reset_and_history_entries) {
    environment<8, 8> env{{.name = "e", .timeout = 30ms}};
    test::trace tr;
    timed_modes app{env, tr};
    executor ex{test::virtual_clock()};
    status s = env.run(ex);
    EXPECT_TRUE(s) << s.err().message().c_str();
    // 5 ms: reset entry, both at (5, 1); every at 9. 10 ms: left, every
    // due at 13 (3 ms left). 15 ms: history: every at 18, 22 (left at 20
    // with 2 ms left). 25 ms: reset: both at (25, 1), every at 29.
    EXPECT_EQ(tr.lines, (std::vector<std::string>{"5ms/0 to B 1", "5ms/1 once", "5ms/1 every", "9ms/0 every",
                                                  "10ms/0 to A", "15ms/0 to B 2", "18ms/0 every", "20ms/0 to A",
                                                  "25ms/0 to B 3", "25ms/1 once", "25ms/1 every", "29ms/0 every",
                                                  "30ms/0 to A"}));
}

// Reset into the current mode at the tag its offset-0 periodic timer
// fires: the pending next period is dropped and the timer restarts at
// (t, 1) (it fires a second time at t, once per microstep, not twice in
// one tag), then every period from t.
struct self_reset : reactor {
    self_reset(basic_environment& e, test::trace& tr) : reactor(e, "app"), tr_(tr) {}
    test::trace& tr_;
    mode A{*this, "A", initial};
    timer every{A, "every", 0ms, 4ms};
    timer kick{*this, "kick", 4ms};
    reset_state<int> count{A, 0};
    reaction tick{A, "tick", on(every), [this] { tr_.add(*this, "tick", ++count.get()); }};
    reaction again{*this, "again", on(kick), [this] { set_mode(A, transition::reset); }};
};

TEST(review9, a_reset_into_the_current_mode_restarts_its_timer_at_the_next_microstep) {
    environment<8, 8> env{{.name = "e", .timeout = 9ms}};
    test::trace tr;
    self_reset app{env, tr};
    executor ex{test::virtual_clock()};
    status s = env.run(ex);
    EXPECT_TRUE(s) << s.err().message().c_str();
    EXPECT_EQ(tr.lines,
              (std::vector<std::string>{"0ms/0 tick 1", "4ms/0 tick 2", "4ms/1 tick 1", "8ms/0 tick 2"}));
}

// Values with destructors carried by actions and `after`s: every value
// constructed is destroyed exactly once (the live count returns to its
// start), values are delivered intact (never a moved-from -1), and the
// values of events discarded (update policy, past the stop time, dropped
// by a mode reset) do not reach a reaction.
struct carrier : reactor {
    carrier(basic_environment& e, test::trace& tr) : reactor(e, "app"), tr_(tr) {}
    test::trace& tr_;
    mode A{*this, "A", initial};
    mode B{*this, "B"};
    logical_action<test::counted, 3> upd{*this, "upd", 0ms, 5ms, spacing_policy::update};
    logical_action<test::counted, 2> rep{*this, "rep", 0ms, 5ms, spacing_policy::replace};
    logical_action<test::counted, 2> in_b{B, "in_b", 3ms};
    output<test::counted> out{*this, "out"};
    input<test::counted> in{*this, "in"};
    after<test::counted, 2> link{*this, "link", out, in, 2ms};
    timer t{*this, "t", 1ms};
    reaction go{*this, "go", on(startup()), writes(upd, rep, in_b, out), [this] {
        (void)upd.schedule(test::counted{1}, 1ms);  // (1 ms), cancelled by the next
        (void)upd.schedule(test::counted{2}, 2ms);  // kept, at 2 ms
        (void)rep.schedule(test::counted{3}, 1ms);
        (void)rep.schedule(test::counted{4}, 2ms);  // replaces 3's value at 1 ms
        (void)rep.schedule(test::counted{99}, 1h);  // past the stop time: discarded
        out.set(test::counted{5});
    }};
    reaction to_b{A, "to_b", on(t), writes(in_b), [this] { set_mode(B); }};
    reaction arm{B, "arm", on(B.on_reset()), writes(in_b), [this] {
        (void)in_b.schedule(test::counted{6});  // at 4 ms (1 ms + 3), dropped by the reset below
        set_mode(A);
    }};
    reaction back{A, "back", on(A.on_reset()), [this] { tr_.add(*this, "A again"); }};
    reaction upd_got{*this, "upd", on(upd), [this] { tr_.add(*this, "upd", upd.get().v); }};
    reaction rep_got{*this, "rep", on(rep), [this] { tr_.add(*this, "rep", rep.get().v); }};
    reaction b_got{*this, "b", on(in_b), [this] { tr_.add(*this, "in_b", in_b.get().v); }};
    reaction in_got{*this, "in", on(in), [this] { tr_.add(*this, "in", in.get().v); }};
};

TEST(review9, values_with_destructors_are_delivered_intact_and_destroyed_once) {
    const int before = test::counted::live;
    {
        environment<8, 16> env{{.name = "e", .timeout = 10ms}};
        test::trace tr;
        carrier app{env, tr};
        executor ex{test::virtual_clock()};
        status s = env.run(ex);
        EXPECT_TRUE(s) << s.err().message().c_str();
        EXPECT_EQ(tr.lines, (std::vector<std::string>{"1ms/0 rep 4", "1ms/2 A again", "2ms/0 upd 2",
                                                      "2ms/0 in 5"}));
    }
    EXPECT_EQ(test::counted::live, before);
}

}  // namespace

namespace {

// A period that lands exactly on the end of time (INT64_MAX, never_tag's
// time): an action or an `after` delayed there never fires (post() drops
// it), and a timer must not either; its next period is re-armed in place
// in the scheduler loop, which only caught a sum that wrapped.
struct to_the_end : reactor {
    to_the_end(basic_environment& e, test::trace& tr) : reactor(e, "app"), tr_(tr) {}
    test::trace& tr_;
    timer t{*this, "t", 0ms, duration{INT64_MAX}};
    logical_action<int> a{*this, "a"};
    reaction tick{*this, "tick", on(t), writes(a), [this] {
        tr_.add(*this, "tick");
        (void)a.schedule(1, duration{INT64_MAX});  // lands at INT64_MAX too: dropped
    }};
    reaction got{*this, "got", on(a), [this] { tr_.add(*this, "got", a.get()); }};
    reaction bye{*this, "bye", on(shutdown()), [this] { tr_.add(*this, "bye"); }};
};

}  // namespace

TEST(review9, a_timer_period_ending_exactly_at_the_end_of_time_fires_once) {
    environment<4, 8> env{{.name = "e", .fast = true}};
    test::trace tr;
    to_the_end app{env, tr};
    executor ex{test::virtual_clock()};
    status s = env.run(ex);
    EXPECT_TRUE(s) << s.err().message().c_str();
    // Nothing else is due: starvation, shutdown one microstep later.
    EXPECT_EQ(tr.lines, (std::vector<std::string>{"0ms/0 tick", "0ms/1 bye"}));
}

namespace {

// A physical action whose events wait 10 ms in the queue: with 2 value
// slots, the third press (while two are pending) finds none when it is
// drained. The program stops naming the action by its kind, as every
// other message about a physical action does ("physical action 'p': ..."),
// and the limit.
struct slow_sensor : reactor {
    slow_sensor(basic_environment& e, test::trace& tr) : reactor(e, "app"), tr_(tr) {}
    test::trace& tr_;
    physical_action<int, 2> p{*this, "p", 10ms};
    reaction got{*this, "got", on(p), [this] { tr_.add(*this, "got", p.get()); }};
};

task<> press_three(slow_sensor& s, std::vector<std::string>& out) {
    for (int i = 1; i <= 3; ++i) {
        co_await sleep_until(from_ns(std::uint64_t(i) * 1'000'000u));
        status r = s.p.schedule(i);
        out.emplace_back(r ? "ok" : r.err().message().c_str());
    }
}

}  // namespace

TEST(review9, a_physical_action_out_of_value_slots_is_named_as_a_physical_action) {
    environment<8, 8> env{{.name = "e", .timeout = 50ms}};
    test::trace tr;
    slow_sensor app{env, tr};
    executor ex{test::virtual_clock()};
    ASSERT_TRUE(env.start(ex));
    std::vector<std::string> out;
    auto h = ex.spawn(press_three(app, out));
    ASSERT_TRUE(h);
    ex.run();
    ASSERT_TRUE(env.finished());
    EXPECT_TRUE(test::failed_with(env.outcome(), errc::full, "physical action 'p': value slots full (limit 2)"));
    EXPECT_EQ(out, (std::vector<std::string>{"ok", "ok", "ok"}));  // refused only when drained
    EXPECT_TRUE(tr.lines.empty());
}

namespace {

// A value that owns a resource (a pool buffer, say) while `owns`: `held`
// counts the resources owned, whatever the number of objects (moved-from
// and default-constructed slots own none).
struct handle {
    static inline int held = 0;
    bool owns = false;
    int v = 0;
    handle() noexcept = default;
    explicit handle(int x) noexcept : owns(true), v(x) { ++held; }
    handle(handle&& o) noexcept : owns(o.owns), v(o.v) { o.owns = false; }
    handle(const handle& o) noexcept : owns(o.owns), v(o.v) { held += owns; }
    handle& operator=(handle&& o) noexcept {
        held -= owns;
        owns = o.owns;
        v = o.v;
        o.owns = false;
        return *this;
    }
    handle& operator=(const handle& o) noexcept {
        held -= owns;
        owns = o.owns;
        v = o.v;
        held += owns;
        return *this;
    }
    ~handle() { held -= owns; }
};

// Events that will never fire give their value back at once: one
// cancelled by `update`, one past the stop tag, one past the end of time,
// one for a mode dropped by a reset entry, one sent through an `after`
// past the stop tag. Only the value being delivered is held in its tag.
struct holder : reactor {
    holder(basic_environment& e) : reactor(e, "app") {}
    mode A{*this, "A", initial};
    mode B{*this, "B"};
    logical_action<handle, 4> upd{*this, "upd", 0ms, 5ms, spacing_policy::update};
    logical_action<handle, 2> in_b{B, "in_b", 3ms};
    output<handle> out{*this, "out"};
    input<handle> in{*this, "in"};
    after<handle, 2> link{*this, "link", out, in, 1h};
    timer t{*this, "t", 1ms};
    int got_ = -1;
    int held_when_got_ = -1;
    reaction go{*this, "go", on(startup()), writes(upd, out), [this] {
        (void)upd.schedule(handle{1}, 1ms);             // cancelled by the next one
        (void)upd.schedule(handle{2}, 2ms);             // delivered at 2 ms
        (void)upd.schedule(handle{3}, 1h);              // past the stop tag
        (void)upd.schedule(handle{4}, duration{INT64_MAX});  // past the end of time
        out.set(handle{5});                             // through the `after`, past the stop tag
        out.set(handle{});                              // the port keeps no resource either
    }};
    reaction to_b{A, "to_b", on(t), [this] { set_mode(B); }};
    reaction arm{B, "arm", on(B.on_reset()), writes(in_b), [this] {
        (void)in_b.schedule(handle{6});  // suspended when B is left
        set_mode(A);
    }};
    bool again_ = false;
    // Once: the reset into B drops the first 6; the second one stays
    // suspended with B (a history entry could still deliver it).
    reaction back{A, "back", on(A.on_reset()), [this] {
        if (!again_) set_mode(B);
        again_ = true;
    }};
    reaction got{*this, "got", on(upd), [this] {
        got_ = upd.get().v;
        held_when_got_ = handle::held;
    }};
};

}  // namespace

TEST(review9, values_of_events_that_never_fire_are_destroyed_when_they_are_dropped) {
    const int before = handle::held;
    {
        environment<8, 16> env{{.name = "e", .timeout = 10ms}};
        holder app{env};
        executor ex{test::virtual_clock()};
        status s = env.run(ex);
        EXPECT_TRUE(s) << s.err().message().c_str();
        EXPECT_EQ(app.got_, 2);
        // 2 (being delivered) and the second 6 (suspended with B).
        EXPECT_EQ(app.held_when_got_ - before, 2);
        EXPECT_EQ(handle::held - before, 2);  // the same two, after the program
    }
    EXPECT_EQ(handle::held, before);
}

namespace {

// Ordering across reactors follows the graph, not declaration: `early`
// is declared first but only reads (reads(), not on()) the output that
// `late` writes at the same tag, so it runs after it and sees the value;
// within a level the earliest inferred deadline goes first (`urgent`
// feeds a 1 ms deadline; `lazy` is declared before it and has none).
struct reader_first : reactor {
    reader_first(place p, test::trace& tr, input<int>*& in) : reactor(p, "early"), tr_(tr) { in = &in_; }
    test::trace& tr_;
    input<int> in_{*this, "in"};
    timer t{*this, "t", 1ms};
    reaction look{*this, "look", on(t), reads(in_), [this] {
        tr_.add(*this, "early sees", in_.is_present() ? in_.get() : -1);
    }};
};
struct writer_later : reactor {
    writer_later(place p, test::trace& tr) : reactor(p, "late"), tr_(tr) {}
    test::trace& tr_;
    output<int> out{*this, "out"};
    timer t{*this, "t", 1ms};
    reaction lazy{*this, "lazy", on(t), [this] { tr_.add(*this, "lazy"); }};
};
struct urgent_sink : reactor {
    urgent_sink(place p, test::trace& tr) : reactor(p, "sink"), tr_(tr) {}
    test::trace& tr_;
    input<int> in{*this, "in"};
    reaction r{*this, "r", on(in), [this] { tr_.add(*this, "sink"); },
               deadline(1h, [this] { tr_.add(*this, "missed"); })};
};
struct feeder : reactor {
    feeder(place p, test::trace& tr) : reactor(p, "feeder"), tr_(tr) {}
    test::trace& tr_;
    output<int> out{*this, "out"};
    timer t{*this, "t", 1ms};
    reaction urgent{*this, "urgent", on(t), writes(out), [this] { tr_.add(*this, "urgent"); out.set(1); }};
};
struct ordering : reactor {
    ordering(basic_environment& e, test::trace& tr)
        : reactor(e, "top"), tr_(tr), a{*this, tr, in_of_a}, lazy_one{*this, tr}, f{*this, tr}, s{*this, tr} {
        connect(w.out, *in_of_a);
        connect(f.out, s.in);
    }
    test::trace& tr_;
    input<int>* in_of_a = nullptr;
    reader_first a;
    writer_later lazy_one;
    feeder f;
    urgent_sink s;
    struct writer : reactor {
        writer(place p, test::trace& tr) : reactor(p, "writer"), tr_(tr) {}
        test::trace& tr_;
        output<int> out{*this, "out"};
        timer t{*this, "t", 1ms};
        reaction w{*this, "w", on(t), writes(out), [this] { tr_.add(*this, "writer"); out.set(42); }};
    } w{*this, tr_};
};

}  // namespace

TEST(review9, a_reader_declared_first_runs_after_the_writer_and_deadlines_order_a_level) {
    environment<8, 16> env{{.name = "e", .timeout = 1ms}};
    test::trace tr;
    ordering app{env, tr};
    executor ex{test::virtual_clock()};
    status s = env.run(ex);
    EXPECT_TRUE(s) << s.err().message().c_str();
    // Level 0: urgent (inferred deadline 1 h) before lazy and writer
    // (declaration order among those without); level 1: sink (its own
    // deadline) before early, which sees the writer's value.
    EXPECT_EQ(tr.lines, (std::vector<std::string>{"1ms/0 urgent", "1ms/0 lazy", "1ms/0 writer", "1ms/0 sink",
                                                  "1ms/0 early sees 42"}));
}
