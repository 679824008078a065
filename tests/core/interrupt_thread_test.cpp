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

// stop() joins the source's thread, whose handler may be waiting for the
// critical section the caller holds: a deadlock only when the timing is
// unlucky. The program stops every time instead, saying why.
TEST(interrupt_thread_death, stop_inside_a_critical_section_stops_the_program) {
    EXPECT_DEATH(
        {
            interrupt_thread src([] {});
            weft::port::critical_section cs;
            src.stop();
        },
        "weft: interrupt_thread: stop\\(\\) \\(or its destructor\\) inside a critical_section");
}

// A source already stopped has no handler left to wait for: destroying it
// inside a critical section is fine.
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
