// SPDX-License-Identifier: Apache-2.0
// The host port's simulated interrupt sources (weft_port/interrupt_thread.hpp).
#include <weft_port/interrupt_thread.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <optional>
#include <thread>

using weft::port::interrupt_thread;

// A one-shot source: its handler stops it. stop() from the source's own
// thread cannot join that thread; the source ends after the handler
// returns, and its destructor (on another thread) joins it.
TEST(interrupt_thread, a_handler_can_stop_its_own_source) {
    std::atomic<int> runs{0};
    std::optional<interrupt_thread> src;
    src.emplace([&] {
        runs.fetch_add(1, std::memory_order_relaxed);
        src->stop();
    });
    src->raise();
    while (runs.load(std::memory_order_relaxed) == 0) std::this_thread::yield();
    src->raise();  // after stop(): not delivered
    src.reset();
    EXPECT_EQ(runs.load(), 1);
}

// A delayed raise is a one-shot timer: re-arming replaces the earlier one
// (an hour away here, which never fires), and the handler runs once.
TEST(interrupt_thread, raise_after_fires_once_and_a_rearm_replaces_it) {
    std::atomic<int> runs{0};
    interrupt_thread src([&] { runs.fetch_add(1, std::memory_order_relaxed); });
    src.raise_after(std::chrono::hours(1));
    src.raise_after(std::chrono::microseconds(100));
    while (runs.load(std::memory_order_relaxed) == 0) std::this_thread::yield();
    src.raise();  // independent of the delayed raise
    while (runs.load(std::memory_order_relaxed) == 1) std::this_thread::yield();
    src.stop();
    EXPECT_EQ(runs.load(), 2);
}

// stop() inside a critical_section (masked code, or another source's
// handler) cannot join: the source's thread may be waiting for the mask the
// caller holds. It only ends the source: the handler, although raised and
// waiting for the mask, does not run once the section ends, and the
// destructor joins the thread outside the section.
TEST(interrupt_thread, stop_inside_a_critical_section_ends_the_source_without_waiting) {
    std::atomic<int> runs{0};
    std::optional<interrupt_thread> src;
    src.emplace([&] { runs.fetch_add(1, std::memory_order_relaxed); });
    {
        weft::port::critical_section cs;
        src->raise();  // its thread takes the raise, then waits for the mask
        for (int i = 0; i < 100; ++i) std::this_thread::yield();
        src->stop();
    }
    src.reset();
    EXPECT_EQ(runs.load(), 0);
}

// One source's handler stops another (a watchdog interrupt ending a
// timer): handlers hold the mask, so this is the same case.
TEST(interrupt_thread, a_handler_can_stop_another_source) {
    std::atomic<int> timer_runs{0}, watchdog_runs{0};
    interrupt_thread timer([&] { timer_runs.fetch_add(1, std::memory_order_relaxed); });
    interrupt_thread watchdog([&] {
        timer.raise();
        timer.stop();
        watchdog_runs.fetch_add(1, std::memory_order_relaxed);
    });
    watchdog.raise();
    while (watchdog_runs.load(std::memory_order_relaxed) == 0) std::this_thread::yield();
    watchdog.stop();
    timer.stop();  // joins outside any section
    EXPECT_EQ(timer_runs.load(), 0);
}

// Destroying a source whose thread still runs inside a critical_section
// would wait for ever if that thread waits for the mask; the program
// stops every time instead, saying why.
TEST(interrupt_thread_death, destroying_a_running_source_inside_a_critical_section_stops_the_program) {
    EXPECT_DEATH(
        {
            std::optional<interrupt_thread> src;
            src.emplace([] {});
            weft::port::critical_section cs;
            src.reset();
        },
        "weft: interrupt_thread: destroyed inside a critical_section while its thread runs");
}

// A source already stopped (and joined) outside the section has no thread
// left: destroying it inside a critical section is fine.
TEST(interrupt_thread, a_stopped_source_may_be_destroyed_inside_a_critical_section) {
    std::atomic<int> runs{0};
    std::optional<interrupt_thread> src;
    src.emplace([&] { runs.fetch_add(1, std::memory_order_relaxed); });
    src->raise();
    while (runs.load(std::memory_order_relaxed) == 0) std::this_thread::yield();
    src->stop();
    {
        weft::port::critical_section cs;
        src.reset();
    }
    EXPECT_EQ(runs.load(), 1);
}
