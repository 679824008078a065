// SPDX-License-Identifier: Apache-2.0
#include <weft/core.hpp>
#include <weft/port/print.hpp>
#include <weft/port/port.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>

TEST(port, clock_is_monotonic) {
    auto a = weft::port::now_ns();
    auto b = weft::port::now_ns();
    EXPECT_LE(a, b);
}

TEST(port, notify_before_wait_is_latched) {
    weft::port::waker w;
    w.notify();
    w.wait_until(weft::port::no_deadline);  // must return at once
    SUCCEED();
}

TEST(port, past_deadline_returns_at_once) {
    weft::port::waker w;
    w.wait_until(0);
    SUCCEED();
}

TEST(port, notify_from_another_thread_wakes_a_waiter) {
    weft::port::waker w;
    std::thread t([&] { w.notify(); });
    w.wait_until(weft::port::no_deadline);
    t.join();
    SUCCEED();
}

// wait(ready) returns at once when ready() already holds, and keeps the
// latched notify for the next wait; otherwise it waits for the notify.
TEST(port, wait_returns_when_ready_and_keeps_the_latch) {
    weft::port::waker w;
    w.notify();
    int checks = 0;
    w.wait([&] { ++checks; return true; });
    EXPECT_EQ(checks, 1);
    bool ready = false;
    w.wait([&] { return ready; });  // the latched notify ends this one
    std::atomic<bool> flag{false};
    std::thread t([&] {
        flag.store(true);
        w.notify();  // several threads: the one that makes ready() true notifies
    });
    w.wait([&] { return flag.load(); });
    t.join();
    EXPECT_TRUE(flag.load());
}

TEST(port, critical_section_nests) {
    weft::port::critical_section outer;
    { weft::port::critical_section inner; }
    SUCCEED();
}

// Waiting inside a critical_section: no simulated handler can run until it
// ends (they take the same lock), so nothing could notify; the program
// stops, every time, even when a notify is already latched and this wait
// would have returned. (The board's Debug check: target fault test 7.)
TEST(port_death, a_wait_inside_a_critical_section_stops_the_program) {
    EXPECT_DEATH(
        {
            weft::port::waker w;
            w.notify();
            weft::port::critical_section cs;
            w.wait_until(weft::port::no_deadline);
        },
        "weft: executor: waits for work inside a critical_section: no simulated interrupt handler can run");
    EXPECT_DEATH(
        {
            weft::port::waker w;
            weft::port::critical_section cs;
            w.wait([] { return true; });
        },
        "waits for work inside a critical_section");
}

weft::frame_pool<256, 2> port_frames{"port_test"};

weft::task<> nap() {
    auto z = co_await weft::sleep_for(std::chrono::hours(1));
    (void)z;
}

// The same through an executor: run() inside a section with a task asleep
// on the real clock would have slept an hour with every handler locked out.
void run_masked() {
    weft::executor ex{weft::executor_config{"masked", weft::clock_mode::real}};
    auto t = ex.spawn(nap());
    weft::port::critical_section cs;
    (void)ex.run();
}

TEST(port_death, running_an_executor_inside_a_critical_section_stops_the_program) {
    EXPECT_DEATH(run_masked(), "weft: executor: waits for work inside a critical_section");
}

// After the section ends the same wait is allowed again.
TEST(port, a_wait_after_a_critical_section_ended_is_allowed) {
    weft::port::waker w;
    { weft::port::critical_section cs; }
    w.notify();
    w.wait_until(weft::port::no_deadline);
    SUCCEED();
}

// print(): printf-style to the console, a long line cut with "..."
// (console_write goes to file descriptor 1, which CaptureStdout redirects).
TEST(port, print_formats_to_the_console_and_marks_a_cut_line) {
    testing::internal::CaptureStdout();
    weft::port::print("%u ms: led %s\n", 250u, "on");
    char wide[300];
    for (char& c : wide) c = 'x';
    wide[sizeof wide - 1] = '\0';
    weft::port::print("%s\n", wide);
    const std::string out = testing::internal::GetCapturedStdout();
    ASSERT_EQ(out.size(), std::string("250 ms: led on\n").size() + WEFT_PRINT_BUFFER - 1);
    EXPECT_EQ(out.substr(0, 15), "250 ms: led on\n");
    EXPECT_EQ(out.substr(out.size() - 4), "x...");
}
