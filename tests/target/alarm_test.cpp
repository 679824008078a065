// SPDX-License-Identifier: Apache-2.0
// The port's alarm on the board (port.hpp, "alarm"; core.md, "Timers and
// the alarm"): with timers armed, tasks switch without the executor
// reading the clock, and the alarm's interrupt tells it when the earliest
// timer is due. Each test checks that a timer still fires on time while
// other tasks keep switching (yield takes its direct path then), through
// the cases where the alarm could be left wrong: a deadline that has
// passed before it is watched, a cancelled earliest timer, a deadline
// longer than one shot, nested executors, and the virtual clock.
#include "target_test.hpp"

#include <weft/core.hpp>

using namespace weft;
using namespace std::chrono_literals;

namespace {

frame_pool<256, 12> frames{"alarm_frames"};
frame_pool<1024, 1> nest_frames{"alarm_nest"};  // a frame that holds an executor

// Late by at most a few switches and the alarm's interrupt (under -icount
// one instruction is one nanosecond; a switch is about 50).
constexpr std::uint64_t on_time_ns = 20'000;

// Two tasks of priority 0 switch by yield() until `*stop`; counts switches.
struct yielders {
    bool stop = false;
    long switches = 0;
    task<> run() {
        while (!stop) {
            ++switches;
            co_await yield();
        }
    }
    // Spawns the two; false if a frame was missing.
    bool spawn_on(executor& ex) {
        auto a = ex.spawn(run());
        auto b = ex.spawn(run());
        return a && b;
    }
};

// Sleeps `d` at priority 1, notes how late it woke, and stops the yielders.
task<> sleeper(duration d, std::uint64_t* late, yielders* y) {
    const std::uint64_t deadline = port::now_ns() + std::uint64_t(d.count());
    co_await sleep_for(d);
    *late = port::now_ns() - deadline;
    if (y) y->stop = true;
}

// One sleeper of `d` while two tasks yield, on a fresh executor.
struct sleep_while_yielding {
    bool spawned = false;
    run_outcome outcome = run_outcome::stalled;
    std::uint64_t late = ~std::uint64_t{0};
    yielders y;
    explicit sleep_while_yielding(duration d) {
        executor ex;
        auto s = ex.spawn(sleeper(d, &late, &y), 1);
        spawned = s && y.spawn_on(ex);
        if (spawned) outcome = ex.run();
    }
};

}  // namespace

WEFT_TARGET_TEST(alarm, a_timer_fires_on_time_while_tasks_yield) {
    sleep_while_yielding r{1ms};
    WEFT_REQUIRE(r.spawned);
    WEFT_CHECK(r.outcome == run_outcome::completed);
    WEFT_CHECK(r.late < on_time_ns);
    WEFT_CHECK(r.y.switches > 100);  // they ran meanwhile
}

// A deadline that has passed by the time the loop watches it (1 ns) is
// flagged at once instead of waiting for an alarm.
WEFT_TARGET_TEST(alarm, a_deadline_passed_before_it_is_watched_fires_at_once) {
    sleep_while_yielding r{1ns};
    WEFT_REQUIRE(r.spawned);
    WEFT_CHECK(r.outcome == run_outcome::completed);
    WEFT_CHECK(r.late < on_time_ns);
    WEFT_CHECK(r.y.switches < 100);
}

// The alarm was armed for a timer that is cancelled: its shot ends with
// nothing due, and the loop watches the next timer, which is on time.
WEFT_TARGET_TEST(alarm, a_cancelled_earliest_timer_leaves_the_next_on_time) {
    executor ex;
    yielders y;
    std::uint64_t early_late = 0, late = ~std::uint64_t{0};
    auto early = ex.spawn(sleeper(1ms, &early_late, nullptr), 1);
    auto s = ex.spawn(sleeper(2ms, &late, &y), 1);
    WEFT_REQUIRE(early && s);
    join_handle<void>* victim = &*early;
    auto canceller = [](join_handle<void>* v) -> task<> {
        (void)co_await sleep_for(500us);
        v->cancel();
    };
    auto c = ex.spawn(canceller(victim), 1);
    WEFT_REQUIRE(c && y.spawn_on(ex));
    WEFT_CHECK(ex.run() == run_outcome::completed);
    WEFT_CHECK(late < on_time_ns);
}

// One shot lasts at most ~4.3 s: a longer sleep takes two, the first of
// which ends with nothing due. (The executor idles meanwhile: QEMU's
// sleep=off skips the idle time.)
WEFT_TARGET_TEST(alarm, a_sleep_longer_than_one_shot_ends_on_time) {
    executor ex;
    std::uint64_t late = ~std::uint64_t{0};
    auto s = ex.spawn(sleeper(5s, &late, nullptr));
    WEFT_REQUIRE(s);
    WEFT_CHECK(ex.run() == run_outcome::completed);
    WEFT_CHECK(late < on_time_ns);
}

// An executor run from a task of another owns the alarm while it runs;
// the outer one's timer, due meanwhile, fires as soon as the inner run()
// returns, and the inner one's own timer fires on time.
WEFT_TARGET_TEST(alarm, nested_executors_hand_the_alarm_back) {
    executor outer;
    yielders y;
    std::uint64_t outer_late = ~std::uint64_t{0}, inner_late = ~std::uint64_t{0}, inner_end = 0;
    auto s = outer.spawn(sleeper(1ms, &outer_late, &y), 1);
    auto nest = [](std::uint64_t* late, std::uint64_t* end) -> task<> {
        executor inner;
        yielders iy;
        auto is = inner.spawn(sleeper(2ms, late, &iy), 1);
        if (is && iy.spawn_on(inner)) (void)inner.run();
        *end = port::now_ns();
        co_return;
    };
    auto n = outer.spawn(nest(&inner_late, &inner_end));
    auto a = outer.spawn(y.run());
    WEFT_REQUIRE(s && n && a);
    WEFT_CHECK(outer.run() == run_outcome::completed);
    WEFT_CHECK(inner_late < on_time_ns);
    // The outer sleeper was due at 1 ms, during the inner run (2 ms): it
    // woke right after it, before the outer yielder's next switches.
    WEFT_CHECK(outer_late > 900'000);
    WEFT_CHECK(outer_late < 1'000'000 + on_time_ns);
    WEFT_CHECK(y.switches < 100);
}

// The virtual clock has no alarm: a timer is due when advance() (or an
// idle jump) moves time past it, and fires at the next switch.
WEFT_TARGET_TEST(alarm, virtual_clock_advance_past_a_deadline_fires_at_the_next_switch) {
    executor ex{executor_config{"virtual", clock_mode::virtual_}};
    int order = 0, slept_at = -1, advanced_at = -1;
    auto sleeper_task = [](int* order, int* at) -> task<> {
        co_await sleep_for(10ms);
        *at = (*order)++;
    };
    auto advancer = [](executor* ex, int* order, int* at) -> task<> {
        co_await yield();
        ex->advance(20ms);
        *at = (*order)++;
        for (int i = 0; i < 10; ++i) co_await yield();
    };
    auto s = ex.spawn(sleeper_task(&order, &slept_at), 1);
    auto a = ex.spawn(advancer(&ex, &order, &advanced_at));
    auto b = ex.spawn([]() -> task<> {
        for (int i = 0; i < 20; ++i) co_await yield();
    }());
    WEFT_REQUIRE(s && a && b);
    WEFT_CHECK(ex.run() == run_outcome::completed);
    WEFT_CHECK_EQ(advanced_at, 0);
    WEFT_CHECK_EQ(slept_at, 1);  // right after the advance, ahead of the yields
    WEFT_CHECK(ex.now() >= time_point{} + 20ms);
}
