// SPDX-License-Identifier: Apache-2.0
// Reactors on the board, with the real port clock and real interrupts:
// timers tagged on physical time, a physical action scheduled from an
// interrupt handler, deadlines against real execution time, modes.
#include "target_test.hpp"

#include <weft/core.hpp>
#include <weft/reactor.hpp>
#include <weft_port/mps2.hpp>

using namespace weft;
using namespace weft::reactors;
using namespace std::chrono_literals;
namespace mps2 = weft::port::mps2;

namespace {

frame_pool<512, 2> frames{"reactor_frames"};

// What the reactions saw: (logical µs, microstep, physical lag ns, value).
struct entry {
    std::int64_t us;
    std::uint32_t microstep;
    std::int64_t lag_ns;
    int value;
};
struct recorder {
    entry items[16];
    unsigned n = 0;
    void add(const reactor& r, int value) {
        if (n == 16) return;
        tag t = r.current_tag();
        items[n++] = {t.time / 1000, t.microstep, (r.physical_time() - r.logical_time()).count(), value};
    }
};

// --- timers ---------------------------------------------------------------
struct ticker : reactor {
    ticker(basic_environment& e, recorder& rec) : reactor(e, "ticker"), rec_(rec) {}
    recorder& rec_;
    timer t{*this, "t", 100us, 1ms};
    int n_ = 0;
    reaction r{*this, "r", on(t), [this] { rec_.add(*this, n_++); }};
};

}  // namespace

WEFT_TARGET_TEST(timer, fires_on_the_port_clock) {
    environment<4, 4> env{{.name = "timers", .timeout = 5ms}};
    recorder rec;
    ticker app{env, rec};
    executor ex;  // real clock: the scheduler sleeps in WFI between tags
    std::uint64_t t0 = port::now_ns();
    status s = env.run(ex);
    std::uint64_t elapsed = port::now_ns() - t0;
    WEFT_REQUIRE(s);
    // Tags 0.1, 1.1, ..., 4.1 ms; the timeout (5 ms) ends the program.
    WEFT_CHECK_EQ(rec.n, 5u);
    for (unsigned i = 0; i < rec.n; ++i) {
        WEFT_CHECK_EQ(rec.items[i].us, std::int64_t(100 + 1000 * i));
        WEFT_CHECK_EQ(rec.items[i].microstep, 0u);
        WEFT_CHECK(rec.items[i].lag_ns >= 0);        // never ahead of physical time
        WEFT_CHECK(rec.items[i].lag_ns < 20'000);    // woken on time (20 µs)
    }
    WEFT_CHECK(elapsed >= 5'000'000);
    WEFT_CHECK(elapsed < 5'100'000);
}

// --- a physical action from a real interrupt ------------------------------
namespace {
struct sensor : reactor {
    sensor(basic_environment& e, recorder& rec) : reactor(e, "sensor"), rec_(rec) {}
    recorder& rec_;
    physical_action<int> sample{*this, "sample"};
    reaction r{*this, "r", on(sample), [this] {
        rec_.add(*this, sample.get());
        if (sample.get() == 4) request_stop();
    }};
};
sensor* isr_sensor = nullptr;
volatile int isr_count = 0;
volatile std::uint64_t isr_at_ns[8];
}  // namespace

// Software interrupt 31 plays the sensor's data-ready interrupt.
extern "C" void weft_irq_handler_31() {
    if (!isr_sensor) return;
    int i = isr_count;
    isr_at_ns[i & 7] = port::now_ns();
    (void)isr_sensor->sample.schedule(i);
    isr_count = i + 1;
}

WEFT_TARGET_TEST(physical_action, scheduled_from_a_real_isr) {
    environment<8, 4> env{{.name = "isr", .timeout = 50ms}};
    recorder rec;
    sensor app{env, rec};
    executor ex;
    WEFT_REQUIRE(env.start(ex));
    std::uint64_t start_ns = port::now_ns();
    isr_sensor = &app;
    isr_count = 0;
    mps2::enable_irq(mps2::soft_irq0);
    // The "device": a data-ready interrupt every 2 ms, raised by a task.
    auto device = [&]() -> task<> {
        for (int i = 0; i < 5; ++i) {
            co_await sleep_for(2ms);
            mps2::pend_irq(mps2::soft_irq0);
        }
    };
    auto h = ex.spawn(device());
    WEFT_REQUIRE(h);
    (void)ex.run();
    isr_sensor = nullptr;
    WEFT_REQUIRE(env.finished());
    WEFT_CHECK(env.outcome());
    WEFT_CHECK_EQ(rec.n, 5u);
    for (unsigned i = 0; i < rec.n; ++i) {
        WEFT_CHECK_EQ(rec.items[i].value, int(i));
        // The tag is the handler's physical time (min delay 0), give or
        // take the clock reads between env.start and start_ns.
        std::int64_t isr_us = std::int64_t(isr_at_ns[i] - start_ns) / 1000;
        WEFT_CHECK(rec.items[i].us >= isr_us - 20 && rec.items[i].us <= isr_us + 1);
        WEFT_CHECK(rec.items[i].lag_ns < 50'000);  // reacted within 50 µs
    }
    // Stopped by the reaction at the next microstep, well before the timeout.
    WEFT_CHECK(env.logical_time() < 12ms);
}

// --- deadlines against real execution time --------------------------------
namespace {
void spin_for(std::uint64_t ns) {
    std::uint64_t end = port::now_ns() + ns;
    while (port::now_ns() < end) {}
}
struct deadlines : reactor {
    deadlines(basic_environment& e, recorder& rec) : reactor(e, "dl"), rec_(rec) {}
    recorder& rec_;
    timer t{*this, "t", 0ms, 1ms};
    reaction work{*this, "work", on(t), [] { spin_for(200'000); }};  // 200 µs of real work
    reaction tight{*this, "tight", on(t), [this] { rec_.add(*this, 1); },
                   deadline(100us, [this] { rec_.add(*this, -1); })};
    reaction loose{*this, "loose", on(t), [this] { rec_.add(*this, 2); },
                   deadline(500us, [this] { rec_.add(*this, -2); })};
};
}  // namespace

WEFT_TARGET_TEST(deadline, handler_runs_when_real_lag_exceeds_it) {
    environment<4, 4> env{{.name = "deadlines", .timeout = 1ms}};
    recorder rec;
    deadlines app{env, rec};
    executor ex;
    WEFT_REQUIRE(env.run(ex));
    WEFT_CHECK_EQ(rec.n, 4u);
    const int expect[] = {-1, 2, -1, 2};
    for (unsigned i = 0; i < rec.n && i < 4; ++i) WEFT_CHECK_EQ(rec.items[i].value, expect[i]);
    WEFT_CHECK_EQ(env.stats().deadline_misses, 2u);
}

// --- modes ----------------------------------------------------------------
namespace {
struct modal : reactor {
    modal(basic_environment& e, recorder& rec, transition how) : reactor(e, "modal"), rec_(rec), how_(how) {}
    recorder& rec_;
    transition how_;
    mode a{*this, "A", initial};
    mode b{*this, "B"};
    timer tick{a, "tick", 0ms, 2ms};
    reset_state<int> count{a, 0};
    timer leave{*this, "leave", 3ms};
    timer back{*this, "back", 6ms};
    reaction on_tick{a, "tick", on(tick), [this] { rec_.add(*this, ++count.get()); }};
    reaction go_b{*this, "go_b", on(leave), [this] { set_mode(b); }};
    reaction go_a{*this, "go_a", on(back), [this] { set_mode(a, how_); }};
    reaction in_b{b, "in_b", on(b.on_reset()), [this] { rec_.add(*this, 100); }};
};

void run_modal(recorder& rec, transition how) {
    environment<8, 8> env{{.name = "modes", .timeout = 9ms}};
    modal app{env, rec, how};
    executor ex;
    if (!env.run(ex)) rec.n = 99;
}
}  // namespace

WEFT_TARGET_TEST(mode, reset_restarts_timer_and_state) {
    recorder rec;
    run_modal(rec, transition::reset);
    // A: tick 0 ms (1), 2 ms (2); B at 3 ms (+1 microstep); back at 6 ms:
    // the timer restarts at 6 ms/1 with count reset, then 8 ms.
    const std::int64_t us[] = {0, 2000, 3000, 6000, 8000};
    const int value[] = {1, 2, 100, 1, 2};
    WEFT_REQUIRE(rec.n == 5);
    for (unsigned i = 0; i < 5; ++i) {
        WEFT_CHECK_EQ(rec.items[i].us, us[i]);
        WEFT_CHECK_EQ(rec.items[i].value, value[i]);
    }
}

WEFT_TARGET_TEST(mode, history_resumes_timer_and_state) {
    recorder rec;
    run_modal(rec, transition::history);
    // Left at 3 ms with the 4 ms tick 1 ms away: it resumes at 7 ms, count
    // kept, then 9 ms (the timeout tag still runs).
    const std::int64_t us[] = {0, 2000, 3000, 7000, 9000};
    const int value[] = {1, 2, 100, 3, 4};
    WEFT_REQUIRE(rec.n == 5);
    for (unsigned i = 0; i < 5; ++i) {
        WEFT_CHECK_EQ(rec.items[i].us, us[i]);
        WEFT_CHECK_EQ(rec.items[i].value, value[i]);
    }
}

WEFT_TARGET_TEST(frame_report, reactor_frames_fit_their_pool) {
    print_frame_report();
    WEFT_CHECK(frame_allocator::record_count() > 0);
}
