// SPDX-License-Identifier: Apache-2.0
// The core runtime on the board, with the real port clock (executor in
// clock_mode::real) and real interrupts: priorities, timers, split_phase
// completed from an ISR, pool exhaustion, generators, the frame report.
#include "target_test.hpp"

#include <weft/core.hpp>
#include <weft_port/mps2.hpp>

using namespace weft;
using namespace std::chrono_literals;
namespace mps2 = weft::port::mps2;

namespace {

frame_pool<256, 8> frames{"target_frames"};

bool streq(const char* a, const char* b) {
    while (*a && *a == *b) ++a, ++b;
    return *a == *b;
}

// How long one task's sleep_for(d) took on the port clock (0 if it could
// not run to completion).
std::uint64_t measured_sleep(duration d) {
    executor ex;
    std::uint64_t woke = 0, start = 0;
    auto t = [&]() -> task<> {
        start = port::now_ns();
        co_await sleep_for(d);
        woke = port::now_ns();
    };
    auto h = ex.spawn(t());
    if (!h || ex.run() != run_outcome::completed) return 0;
    return woke - start;
}

char log_buf[32];
unsigned log_len = 0;
void log_char(char c) { if (log_len < sizeof log_buf - 1) log_buf[log_len++] = c; log_buf[log_len] = 0; }

task<> record(char name, int yields) {
    for (int i = 0; i < yields; ++i) {
        log_char(name);
        co_await yield();
    }
}

split_phase<int>* isr_op = nullptr;
volatile int isr_value = 0;
executor* isr_ex = nullptr;
irq_node* isr_post = nullptr;  // posted before the completion, if set

// An irq_node whose handler (on the executor) runs a callable.
template <class F>
struct call_node : irq_node {
    explicit call_node(F f) : irq_node(&on_run), fn(f) {}
    static void on_run(irq_node* n) noexcept { static_cast<call_node*>(n)->fn(); }
    F fn;
};

// Raised with interrupts masked, so that the handler runs while the
// awaiting task sleeps in the port (it unmasks around WFI).
void raise_masked() {
    port::cortex_m::disable_interrupts();
    mps2::pend_irq(mps2::soft_irq0);
}

}  // namespace

// Software interrupt 31 plays the device: it completes the operation (and
// may post a node first, as a device with two events would).
extern "C" void weft_irq_handler_31() {
    if (isr_post) (void)isr_ex->post(*isr_post);
    if (isr_op) (void)isr_op->complete(isr_value);
}

WEFT_TARGET_TEST(executor, higher_priority_runs_first_and_yield_round_robins) {
    executor ex;
    log_len = 0;
    auto a = ex.spawn(record('a', 2), 1);
    auto b = ex.spawn(record('b', 2), 1);
    auto c = ex.spawn(record('C', 2), 3);
    WEFT_REQUIRE(a && b && c);
    WEFT_CHECK(ex.run() == run_outcome::completed);
    WEFT_CHECK(streq(log_buf, "CCabab"));
}

WEFT_TARGET_TEST(timer, sleep_for_uses_the_port_clock) {
    const std::uint64_t slept = measured_sleep(2ms);
    WEFT_CHECK(slept >= 2'000'000);
    WEFT_CHECK(slept < 2'010'000);  // the executor slept in WFI and woke on time
}

WEFT_TARGET_TEST(timer, sleep_for_across_the_clock_wrap) {
    mps2::timer0().value = 25000;  // timer 0 wraps in 1 ms, during the sleep
    const std::uint64_t slept = measured_sleep(5ms);
    WEFT_CHECK(slept >= 5'000'000);
    WEFT_CHECK(slept < 5'010'000);
}

WEFT_TARGET_TEST(timer, timers_fire_in_deadline_order) {
    executor ex;
    log_len = 0;
    auto sleeper = [](char name, std::chrono::microseconds d) -> task<> {
        co_await sleep_for(d);
        log_char(name);
    };
    auto a = ex.spawn(sleeper('3', 300us));
    auto b = ex.spawn(sleeper('1', 100us));
    auto c = ex.spawn(sleeper('2', 200us));
    WEFT_REQUIRE(a && b && c);
    WEFT_CHECK(ex.run() == run_outcome::completed);
    WEFT_CHECK(streq(log_buf, "123"));
}

// Priority inheritance on the board: the medium task hogs the core with
// yields until 3 ms; the low owner wakes at 1 ms while the high task waits
// for its lock, so it runs at the high priority, ahead of the hog.
WEFT_TARGET_TEST(mutex, owner_inherits_a_waiters_priority) {
    executor ex;
    mutex m{"bus"};
    log_len = 0;
    const std::uint64_t t0 = port::now_ns();
    int low_prio = -1;
    auto low = [&]() -> task<> {
        if (!co_await m.lock()) co_return;
        co_await sleep_for(1ms);
        low_prio = m.owner()->prio();
        log_char('L');
        m.unlock();
    };
    auto high = [&]() -> task<> {
        co_await sleep_for(500us);
        if (!co_await m.lock()) co_return;
        log_char('H');
        m.unlock();
    };
    auto hog = [&]() -> task<> {
        co_await sleep_for(100us);
        while (port::now_ns() - t0 < 3'000'000) (void)co_await yield();
        log_char('M');
    };
    auto l = ex.spawn(low(), 1);
    auto h = ex.spawn(high(), 3);
    auto md = ex.spawn(hog(), 2);
    WEFT_REQUIRE(l && h && md);
    WEFT_CHECK(ex.run() == run_outcome::completed);
    WEFT_CHECK(streq(log_buf, "LHM"));
    WEFT_CHECK(low_prio == 3);
    WEFT_CHECK(!m.locked());
}

WEFT_TARGET_TEST(split_phase, completed_from_a_real_isr) {
    executor ex;
    split_phase<int> op{"adc"};
    isr_op = &op;
    mps2::enable_irq(mps2::soft_irq0);
    int sum = 0, wrong = 0;
    auto t = [&]() -> task<> {
        for (int i = 0; i < 100; ++i) {
            isr_value = i;
            mps2::pend_irq(mps2::soft_irq0);  // "start the conversion"
            auto v = co_await op;
            if (!v || *v != i) ++wrong; else sum += *v;
        }
    };
    auto h = ex.spawn(t());
    WEFT_REQUIRE(h);
    WEFT_CHECK(ex.run() == run_outcome::completed);
    isr_op = nullptr;
    WEFT_CHECK_EQ(wrong, 0);
    WEFT_CHECK_EQ(sum, 4950);
}

// The handler posts a node that wakes a higher-priority task and completes
// the operation in the same interrupt: the task waiting in place sees its
// value but also other work, so it requeues and the other task runs first.
WEFT_TARGET_TEST(split_phase, completion_with_other_work_keeps_the_priority_order) {
    executor ex;
    split_phase<int> op{"adc"};
    event go{"go"};
    log_len = 0;
    call_node node{[&] { go.set(); }};
    isr_ex = &ex;
    isr_post = &node;
    isr_op = &op;
    isr_value = 9;
    mps2::enable_irq(mps2::soft_irq0);
    auto high = [&]() -> task<> {
        co_await go.wait();
        log_char('H');
    };
    auto low = [&]() -> task<> {
        raise_masked();
        auto v = co_await op;
        log_char(v && *v == 9 ? 'L' : '?');
    };
    auto h = ex.spawn(high(), 3);
    auto l = ex.spawn(low(), 1);
    WEFT_REQUIRE(h && l);
    WEFT_CHECK(ex.run() == run_outcome::completed);
    isr_op = nullptr;
    isr_post = nullptr;
    WEFT_CHECK(streq(log_buf, "HL"));
}

// The handler only posts a node; the task it wakes completes the
// operation. The task waiting in place must give way (fall back to an
// ordinary wait) and still receive the value.
WEFT_TARGET_TEST(split_phase, node_during_the_wait_is_handled_first) {
    executor ex;
    split_phase<int> op{"adc"};
    event go{"go"};
    log_len = 0;
    call_node node{[&] { go.set(); }};
    isr_ex = &ex;
    isr_post = &node;
    isr_op = nullptr;
    mps2::enable_irq(mps2::soft_irq0);
    auto high = [&]() -> task<> {
        co_await go.wait();
        log_char('H');
        (void)op.complete(4);
    };
    auto low = [&]() -> task<> {
        raise_masked();
        auto v = co_await op;
        log_char(v && *v == 4 ? 'L' : '?');
    };
    auto h = ex.spawn(high(), 3);
    auto l = ex.spawn(low(), 1);
    WEFT_REQUIRE(h && l);
    WEFT_CHECK(ex.run() == run_outcome::completed);
    isr_post = nullptr;
    WEFT_CHECK(streq(log_buf, "HL"));
}

// A node posted during the wait cancels the waiting task: the cancel ends
// the (fallen-back) wait; a later completion is kept for the next await.
WEFT_TARGET_TEST(split_phase, cancel_posted_during_the_wait) {
    executor ex;
    split_phase<int> op{"adc"};
    errc got = errc::ok;
    auto waiter = [&]() -> task<> {
        raise_masked();
        got = (co_await op).code();
    };
    auto w = ex.spawn(waiter());
    WEFT_REQUIRE(w);
    call_node node{[&] { w->cancel(); }};
    isr_ex = &ex;
    isr_post = &node;
    isr_op = nullptr;
    mps2::enable_irq(mps2::soft_irq0);
    WEFT_CHECK(ex.run() == run_outcome::completed);
    isr_post = nullptr;
    WEFT_CHECK(got == errc::cancelled);
    WEFT_CHECK(bool(op.complete(1)));
    WEFT_CHECK(op.ready());
}

// A notify latched before the wait (here by the task itself) ends the
// sleep early with the operation still idle: the task sleeps again, and
// the interrupt that comes later delivers the value.
WEFT_TARGET_TEST(split_phase, latched_notify_does_not_end_the_wait) {
    executor ex;
    split_phase<int> op{"adc"};
    isr_ex = nullptr;
    isr_post = nullptr;
    isr_op = &op;
    isr_value = 6;
    mps2::enable_irq(mps2::soft_irq0);
    int got = -1;
    auto waiter = [&]() -> task<> {
        ex.notify();
        raise_masked();
        auto v = co_await op;
        got = v ? *v : -2;
    };
    auto w = ex.spawn(waiter());
    WEFT_REQUIRE(w);
    WEFT_CHECK(ex.run() == run_outcome::completed);
    isr_op = nullptr;
    WEFT_CHECK_EQ(got, 6);
    WEFT_CHECK(!op.ready());
}

// A value that is in before the await is delivered even to a task whose
// cancellation was requested: the await had nothing left to wait for.
WEFT_TARGET_TEST(split_phase, value_in_before_a_cancelled_await_is_delivered) {
    executor ex;
    split_phase<int> op{"adc"};
    WEFT_REQUIRE(bool(op.complete(5)));
    int got = -1;
    auto waiter = [&]() -> task<> {
        auto v = co_await op;
        got = v ? *v : -2;
        auto again = co_await op;  // nothing in now: the cancellation ends it
        if (!again && again.code() == errc::cancelled) got += 10;
    };
    auto w = ex.spawn(waiter());
    WEFT_REQUIRE(w);
    w->cancel();
    WEFT_CHECK(ex.run() == run_outcome::completed);
    WEFT_CHECK_EQ(got, 15);
    WEFT_CHECK(!op.ready());
}

// With a timer armed, the task waits in place only until its deadline:
// the sleeping task still wakes on time (and here completes the wait).
WEFT_TARGET_TEST(split_phase, wait_in_place_ends_at_the_next_timer) {
    executor ex;
    split_phase<int> op{"adc"};
    log_len = 0;
    std::uint64_t start = port::now_ns(), woke = 0;
    auto sleeper = [&]() -> task<> {
        co_await sleep_for(1ms);
        woke = port::now_ns();
        log_char('S');
        (void)op.complete(2);
    };
    auto waiter = [&]() -> task<> {
        auto v = co_await op;
        log_char(v && *v == 2 ? 'W' : '?');
    };
    auto s = ex.spawn(sleeper());
    auto w = ex.spawn(waiter());
    WEFT_REQUIRE(s && w);
    WEFT_CHECK(ex.run() == run_outcome::completed);
    WEFT_CHECK(streq(log_buf, "SW"));
    WEFT_CHECK(woke - start >= 1'000'000);
    WEFT_CHECK(woke - start < 1'010'000);
}

WEFT_TARGET_TEST(split_phase, with_timeout_on_the_real_clock) {
    executor ex;
    split_phase<int> op{"adc"};
    errc got = errc::ok;
    std::uint64_t start = port::now_ns(), end = 0;
    auto waiter = [&]() -> task<> {
        got = (co_await with_timeout(op.wait(), 500us)).code();
        end = port::now_ns();
    };
    auto w = ex.spawn(waiter());
    WEFT_REQUIRE(w);
    WEFT_CHECK(ex.run() == run_outcome::completed);
    WEFT_CHECK(got == errc::timeout);
    WEFT_CHECK(end - start >= 500'000);
    WEFT_CHECK(end - start < 510'000);
}

WEFT_TARGET_TEST(frame_pool, exhaustion_is_an_error_naming_the_pool) {
    static frame_pool<192, 2> pool{"sensors"};
    use_frames scope{pool};
    executor ex;
    auto a = ex.spawn(record('x', 1));
    auto b = ex.spawn(record('y', 1));
    auto c = ex.spawn(record('z', 1));
    WEFT_REQUIRE(a && b);
    WEFT_REQUIRE(!c);
    WEFT_CHECK(c.code() == errc::no_memory);
    WEFT_CHECK(streq(c.err().message().c_str(), "frame pool 'sensors': all slots in use (limit 2)"));
    WEFT_CHECK(ex.run() == run_outcome::completed);
}

namespace {
generator<int> iota(int n) {
    for (int i = 0; i < n; ++i) co_yield i;
}
}  // namespace

WEFT_TARGET_TEST(generator, yields_in_order) {
    int expect = 0, bad = 0;
    for (int v : iota(5)) {
        if (v != expect) ++bad;
        ++expect;
    }
    WEFT_CHECK_EQ(expect, 5);
    WEFT_CHECK_EQ(bad, 0);
}

WEFT_TARGET_TEST(frame_report, prints_frames_and_pools) {
    print_frame_report();
    WEFT_CHECK(frame_allocator::record_count() > 0);
}
