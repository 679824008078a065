// SPDX-License-Identifier: Apache-2.0
// Seventh review of the Cortex-M port: races swept over instruction
// offsets with a real device interrupt (dual timer 2), the board FIFO
// across detach/reattach, and the clock read across its wrap with
// interrupts enabled.
#include "counting_device.hpp"
#include "target_test.hpp"

#include <weft/core.hpp>
#include <weft/csp.hpp>
#include <weft_port/board/button.hpp>
#include <weft_port/board/irq_fifo.hpp>
#include <weft_port/mps2.hpp>

using namespace weft;
using namespace weft::csp;
using namespace std::chrono_literals;
namespace mps2 = weft::port::mps2;
using weft::target_test::device_count;
using weft::target_test::device_fire_after;
using weft::target_test::device_isr;

namespace {

frame_pool<512, 4> frames{"review7_frames"};

void (*soft_isr)() = nullptr;

// An irq_node whose handler runs a callable on the executor.
template <class F>
struct call_node : irq_node {
    explicit call_node(F f) : irq_node(&on_run), fn(f) {}
    static void on_run(irq_node* n) noexcept { static_cast<call_node*>(n)->fn(); }
    F fn;
};

}  // namespace

extern "C" void weft_irq_handler_31() { if (soft_isr) soft_isr(); }

// --- split_phase completed by a device racing with_timeout ---------------

namespace {
split_phase<int>* race_op = nullptr;
volatile int race_value = 0;
volatile bool race_complete_ok = false;
void complete_race() { race_complete_ok = bool(race_op->complete(race_value)); }
// The next device interrupt completes `op` with `value`.
void arm_race(split_phase<int>& op, int value) {
    race_op = &op;
    race_value = value;
    race_complete_ok = false;
    device_count = 0;
    device_isr = &complete_race;
}
}  // namespace

// The device completes the operation k ticks around the await's 20 us
// timeout, for every k: whatever wins, a value whose complete() succeeded
// reaches a task exactly once (the timed-out await, or the next one), and
// the run ends.
WEFT_TARGET_TEST(split_phase, completion_racing_the_timeout_at_every_offset) {
    unsigned bad = 0, timed_out = 0, delivered = 0;
    for (std::uint32_t k = 0; k < 160; ++k) {
        executor ex;
        split_phase<int> op{"adc"};
        arm_race(op, int(k) + 1);
        int got = 0, got_twice = 0;
        errc first = errc::ok;
        auto t = [&]() -> task<> {
            device_fire_after(500 - 80 + k);  // 20 us = 500 ticks; from 3.2 us before to 3.2 us after
            auto v = co_await with_timeout(op.wait(), 20us);
            first = v ? errc::ok : v.code();
            if (v) got = *v;
            if (v) ++delivered; else if (v.code() == errc::timeout) ++timed_out;
            // Let the device have fired in any case.
            co_await sleep_for(20us);
            if (op.ready() || !v) {
                auto w = co_await with_timeout(op.wait(), 100us);
                if (w) { if (got) got_twice = *w; else got = *w; }
            }
        };
        auto h = ex.spawn(t());
        if (!h) { ++bad; break; }
        run_outcome o = ex.run();
        device_isr = nullptr;
        bool ok = o == run_outcome::completed && device_count == 1 && race_complete_ok &&
                  got == race_value && got_twice == 0 && !op.ready();
        if (!ok) {
            weft::target_test::say("    k ", k, ": outcome ", int(o), " device ", device_count, " complete ",
                                   bool(race_complete_ok), " first ", int(first), " got ", got, " twice ",
                                   got_twice, "\n");
            if (++bad > 5) break;
        }
    }
    race_op = nullptr;
    WEFT_CHECK_EQ(bad, 0u);
    WEFT_CHECK(timed_out > 0 && delivered > 0);  // the sweep straddles the race
}

// --- a post from a device while run() sleeps with no timer ---------------

namespace {
executor* wake_ex = nullptr;
irq_node* wake_node = nullptr;
void post_wake() { (void)wake_ex->post(*wake_node); }
volatile bool watchdog_fired = false;
// SysTick on the processor clock, 1 000 000 cycles: a run whose wake-up
// was lost is stopped (weft_systick_handler) instead of sleeping for ever.
void arm_watchdog() {
    mps2::systick().csr = 0;
    mps2::systick().rvr = 1000000;
    mps2::systick().cvr = 0;
    mps2::systick().csr = 0x7;
}
void disarm_watchdog() { mps2::systick().csr = 0; }
}  // namespace

extern "C" void weft_systick_handler() {
    disarm_watchdog();
    watchdog_fired = true;
    if (wake_ex) wake_ex->request_stop();
}

// The device posts a node k ticks after the task starts waiting on an
// event, for every k: the post's notify must end run()'s sleep at once,
// wherever in the idle path it lands. A SysTick watchdog (1 ms) stops a
// run whose wake-up was lost.
WEFT_TARGET_TEST(executor, device_post_at_every_offset_ends_the_idle_sleep) {
    unsigned lost = 0;
    for (std::uint32_t k = 1; k < 100; ++k) {
        executor ex;
        weft::event go{"go"};
        call_node node{[&] { go.set(); }};
        wake_ex = &ex;
        wake_node = &node;
        device_isr = &post_wake;
        device_count = 0;
        watchdog_fired = false;
        std::uint64_t t0 = 0, t1 = 0;
        auto t = [&]() -> task<> {
            arm_watchdog();
            t0 = port::now_ns();
            device_fire_after(k);
            co_await go.wait();
            t1 = port::now_ns();
            disarm_watchdog();
        };
        auto h = ex.spawn(t());
        if (!h) { ++lost; break; }
        run_outcome o = ex.run();
        disarm_watchdog();
        device_isr = nullptr;
        wake_ex = nullptr;
        if (o != run_outcome::completed || watchdog_fired || t1 - t0 > k * 40 + 5000) {
            weft::target_test::say("    k ", k, ": outcome ", int(o), " watchdog ", bool(watchdog_fired),
                                   " woke after ", t1 - t0, " ns\n");
            if (++lost > 5) break;
        }
    }
    WEFT_CHECK_EQ(lost, 0u);
}

// --- the button's FIFO across detach and reattach -------------------------

namespace {
board::button but1{"but1", 1};
volatile bool level1 = false;
void toggle20() {
    for (int i = 0; i < 20; ++i) { level1 = !level1; but1.inject(level1); (void)but1.sample(); }
}
}  // namespace

// Edges sampled while no connection is attached wait in the driver's FIFO
// (and its overflow) for the next connection: it reports the loss once,
// then delivers the 16 edges that fit, in order.
WEFT_TARGET_TEST(button, edges_while_detached_go_to_the_next_connection) {
    executor ex;
    channel<bool, 32> bchan{"bchan"};
    mps2::enable_irq(mps2::soft_irq0);
    {
        auto b = connect(ex, bchan, but1);
        (void)b.close();
    }
    soft_isr = &toggle20;
    mps2::pend_irq(mps2::soft_irq0);
    for (int i = 0; i < 50; ++i) __asm volatile("" ::: "memory");
    soft_isr = nullptr;
    WEFT_CHECK_EQ(but1.readable(), 17u);
    auto b = connect(ex, bchan, but1);
    auto t = [&]() -> task<> { co_await yield(); co_await yield(); };
    auto h = ex.spawn(t());
    WEFT_REQUIRE(h);
    WEFT_CHECK(ex.run() == run_outcome::completed);
    WEFT_CHECK_EQ(b.errors(), 1u);
    WEFT_CHECK(b.last_error().code == errc::overflow && b.last_error().limit == 16);
    unsigned n = 0, wrong = 0;
    bool expect = true;
    while (auto v = bchan.try_recv()) {
        if (*v != expect) ++wrong;
        expect = !expect;
        ++n;
    }
    WEFT_CHECK_EQ(n, 16u);
    WEFT_CHECK_EQ(wrong, 0u);
    WEFT_CHECK_EQ(but1.readable(), 0u);
}

// --- irq_fifo under a burst from a handler --------------------------------

namespace {
board::irq_fifo<std::uint16_t, 8> burst_fifo;
volatile unsigned burst_refused = 0;
void burst13() {
    for (std::uint16_t i = 0; i < 13; ++i)
        if (!burst_fifo.push(std::uint16_t(100 + i))) burst_refused = burst_refused + 1;
}
}  // namespace

WEFT_TARGET_TEST(irq_fifo, burst_keeps_the_first_n_in_order_and_counts_the_rest) {
    mps2::enable_irq(mps2::soft_irq0);
    for (int round = 0; round < 3; ++round) {  // indices keep going across rounds
        burst_refused = 0;
        soft_isr = &burst13;
        mps2::pend_irq(mps2::soft_irq0);
        for (int i = 0; i < 50; ++i) __asm volatile("" ::: "memory");
        soft_isr = nullptr;
        WEFT_CHECK_EQ(burst_refused, 5u);
        WEFT_CHECK_EQ(burst_fifo.readable(), 9u);
        WEFT_CHECK_EQ(burst_fifo.take_overflows(), 5u);
        for (std::uint16_t i = 0; i < 8; ++i) WEFT_CHECK_EQ(burst_fifo.pop(), std::uint16_t(100 + i));
        WEFT_CHECK_EQ(burst_fifo.readable(), 0u);
    }
}

// --- split_phase completed by a device at every offset into the wait ----

// The device completes the operation k ticks after the await began, for
// every k: with no timer armed (the masked wait in place, 6m) and with
// another task's timer armed (the `blocked` wait, 6-8). The value must
// arrive at once; a SysTick watchdog stops a run whose wake-up was lost.
namespace {
unsigned completion_sweep(bool with_timer) {
    unsigned bad = 0;
    for (std::uint32_t k = 1; k < 120; ++k) {
        executor ex;
        split_phase<int> op{"adc"};
        arm_race(op, int(k) + 7);
        wake_ex = &ex;
        watchdog_fired = false;
        int got = 0;
        std::uint64_t t0 = 0, t1 = 0;
        auto sleeper = [&]() -> task<> { co_await sleep_for(3ms); };
        auto waiter = [&]() -> task<> {
            arm_watchdog();
            t0 = port::now_ns();
            device_fire_after(k);
            auto v = co_await op;
            t1 = port::now_ns();
            got = v ? *v : -1;
            disarm_watchdog();
        };
        if (with_timer) { auto s = ex.spawn(sleeper()); if (!s) return 1000; }
        auto h = ex.spawn(waiter());
        if (!h) return 1000;
        run_outcome o = ex.run();
        disarm_watchdog();
        device_isr = nullptr;
        wake_ex = nullptr;
        if (o != run_outcome::completed || watchdog_fired || got != race_value || !race_complete_ok ||
            t1 - t0 > k * 40 + 5000) {
            weft::target_test::say("    k ", k, ": outcome ", int(o), " watchdog ", bool(watchdog_fired),
                                   " got ", got, " woke after ", t1 - t0, " ns\n");
            if (++bad > 5) break;
        }
    }
    race_op = nullptr;
    return bad;
}
}  // namespace

WEFT_TARGET_TEST(split_phase, device_completion_at_every_offset_no_timer) {
    WEFT_CHECK_EQ(completion_sweep(false), 0u);
}
WEFT_TARGET_TEST(split_phase, device_completion_at_every_offset_timer_armed) {
    WEFT_CHECK_EQ(completion_sweep(true), 0u);
}

// --- the clock read across its wrap, interrupts enabled -------------------

// The wrap handler runs between reads here (not only while masked, as in
// port_test): for each phase of the wrap, consecutive reads never go back.
WEFT_TARGET_TEST(clock, monotonic_across_the_wrap_at_every_phase) {
    unsigned back = 0;
    for (std::uint32_t k = 0; k < 40; ++k) {
        mps2::timer0().value = k;  // forward in time: the wrap comes in k ticks
        std::uint64_t prev = port::now_ns();
        for (int i = 0; i < 30; ++i) {
            std::uint64_t t = port::now_ns();
            if (t < prev) {
                if (++back < 4) weft::target_test::say("    k ", k, ": ", prev, " then ", t, "\n");
            }
            prev = t;
        }
    }
    WEFT_CHECK_EQ(back, 0u);
}
