// SPDX-License-Identifier: Apache-2.0
// The host port's simulated UART (weft_port/sim/uart.hpp) on the virtual
// clock: deliver() must not let time pass the bytes it puts on the wire.
#include <weft_port/sim/uart.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>

#if defined(__linux__)
#include <dirent.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

using namespace weft;
using namespace std::chrono_literals;

namespace {
// Stands in for a connection: drains the RX FIFO when posted and records
// the virtual time it ran at.
struct rx_probe : irq_node {
    explicit rx_probe(executor& ex, sim::uart& u) : irq_node(&on_irq), ex_(&ex), u_(&u) {}
    static void on_irq(irq_node* n) noexcept {
        auto* self = static_cast<rx_probe*>(n);
        while (self->u_->rx().readable() != 0) {
            (void)self->u_->rx().read();
            self->at_ms.push_back(test::ms(*self->ex_));
        }
    }
    executor* ex_;
    sim::uart* u_;
    std::vector<std::int64_t> at_ms;
};
}  // namespace

// With inject() the script's sleep could start before the reader thread had
// moved the bytes: the virtual clock then jumped 1 s ahead of them.
TEST(sim_uart, delivered_bytes_arrive_before_the_virtual_clock_moves) {
    executor ex{test::virtual_clock()};
    sim::uart u{"console"};
    rx_probe probe{ex, u};
    ex.external_begin();
    u.rx().attach(ex, probe);
    auto script = [&]() -> task<> {
        for (int i = 0; i < 20; ++i) {
            EXPECT_TRUE(u.deliver("ab", 2));
            co_await sleep_for(1s);
        }
        u.rx().detach();
        ex.external_end();
    };
    auto h = ex.spawn(script());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    ASSERT_EQ(probe.at_ms.size(), 40u);
    for (std::size_t i = 0; i < probe.at_ms.size(); ++i) EXPECT_EQ(probe.at_ms[i], std::int64_t(i / 2) * 1000);
}

TEST(sim_uart, deliver_beyond_the_free_fifo_is_refused_by_name_and_limit) {
    executor ex{test::virtual_clock()};
    sim::uart u{"console"};
    irq_node node{[](irq_node*) noexcept {}};
    status before = u.deliver("x", 1);
    EXPECT_EQ(before.code(), errc::closed);
    EXPECT_STREQ(before.err().message().c_str(), "uart 'console': rx not connected, nothing reads the wire");
    u.rx().attach(ex, node);
    std::uint8_t bytes[64] = {};
    ASSERT_TRUE(u.deliver(bytes, 60));
    EXPECT_EQ(u.rx().readable(), 60u);
    status s = u.deliver(bytes, 5);
    EXPECT_EQ(s.code(), errc::full);
    EXPECT_STREQ(s.err().message().c_str(), "uart 'console': bytes to deliver exceed the free rx FIFO (limit 64)");
    ASSERT_TRUE(u.deliver(bytes, 4));
    EXPECT_EQ(u.rx().readable(), 64u);
    u.rx().detach();
    (void)ex.withdraw_post(node);
}

// ---- a signal landing while the wire blocks -------------------------------
// A handler installed without SA_RESTART (what a program's SIGINT or timer
// handler often is) makes a blocked read()/send() on the socket pair fail
// with EINTR. That is no hang-up: the wire must go on. Linux: the tests
// find the blocked call in /proc/<tid>/syscall.
#if defined(__linux__)
namespace {
std::atomic<int> handled{0};
void on_signal(int) { handled.fetch_add(1, std::memory_order_relaxed); }

struct no_restart_handler {
    struct sigaction old{};
    no_restart_handler() {
        struct sigaction sa{};
        sa.sa_handler = &on_signal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = 0;  // no SA_RESTART: blocked calls return EINTR
        sigaction(SIGUSR1, &sa, &old);
    }
    ~no_restart_handler() { sigaction(SIGUSR1, &old, nullptr); }
};

pid_t this_tid() { return pid_t(::syscall(SYS_gettid)); }

long blocked_in(pid_t tid);
// Where /proc/<tid>/syscall cannot be read (a sandbox, no procfs) the
// waits below would never end: the tests are skipped there instead.
#define WEFT_REQUIRE_PROC_SYSCALL() \
    if (blocked_in(this_tid()) == -2) GTEST_SKIP() << "/proc/self/task/<tid>/syscall is not readable here"

// The system call the thread is blocked in (SYS_read, SYS_sendto), -1 if
// it runs, -2 if it is gone (/proc/<tid>/syscall).
long blocked_in(pid_t tid) {
    char path[64], buf[128];
    std::snprintf(path, sizeof path, "/proc/self/task/%d/syscall", int(tid));
    FILE* f = std::fopen(path, "r");
    if (!f) return -2;
    const std::size_t n = std::fread(buf, 1, sizeof buf - 1, f);
    std::fclose(f);
    buf[n] = 0;
    return n > 0 && buf[0] >= '0' && buf[0] <= '9' ? std::strtol(buf, nullptr, 10) : -1;
}

// Waits (yielding, not sleeping) until the thread blocks in system call
// `nr`, then interrupts it and waits for the handler to have run.
void interrupt_when_blocked(pid_t tid, long nr) {
    while (blocked_in(tid) != nr) sched_yield();
    const int before = handled.load();
    ::syscall(SYS_tgkill, ::getpid(), tid, SIGUSR1);
    while (handled.load() == before) sched_yield();
}

// The uart's reader thread, once it waits in read() (under a sanitizer the
// process may have a thread of the runtime's too).
pid_t reader_thread() {
    for (;;) {
        if (DIR* d = ::opendir("/proc/self/task")) {
            pid_t found = 0;
            while (dirent* e = ::readdir(d)) {
                const pid_t t = pid_t(std::atoi(e->d_name));
                if (t > 0 && t != this_tid() && blocked_in(t) == SYS_read) found = t;
            }
            ::closedir(d);
            if (found != 0) return found;
        }
        sched_yield();
    }
}
}  // namespace

// The reader returned on EINTR: RX was dead for good (and deliver() waited
// for ever for bytes no thread would move).
TEST(sim_uart, a_signal_does_not_stop_the_rx_reader) {
    WEFT_REQUIRE_PROC_SYSCALL();
    no_restart_handler h;
    executor ex{test::virtual_clock()};
    sim::uart u{"console"};
    irq_node node{[](irq_node*) noexcept {}};
    u.rx().attach(ex, node);
    const pid_t reader = reader_thread();
    interrupt_when_blocked(reader, SYS_read);
    // Back in read(), or gone.
    long in;
    while ((in = blocked_in(reader)) != SYS_read && in != -2) sched_yield();
    ASSERT_EQ(in, SYS_read) << "the reader thread ended on EINTR";
    ASSERT_TRUE(u.deliver("ab", 2));
    EXPECT_EQ(u.rx().readable(), 2u);
    u.rx().detach();
    (void)ex.withdraw_post(node);
}

// inject() took EINTR for a hang-up: it returned 0 of the bytes (and
// deliver() would have said "rx wire hung up").
TEST(sim_uart, a_signal_does_not_cut_an_inject_short) {
    WEFT_REQUIRE_PROC_SYSCALL();
    no_restart_handler h;
    executor ex{test::virtual_clock()};
    sim::uart u{"console"};
    // Nothing reads the wire yet: fill it until the next send blocks.
    int small = 4096;
    ::setsockopt(u.peer_fd(), SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
    std::size_t filled = 0;
    const char junk[256] = {};
    for (ssize_t k; (k = ::send(u.peer_fd(), junk, sizeof junk, MSG_DONTWAIT)) > 0;) filled += std::size_t(k);
    std::atomic<pid_t> tid{0};
    std::atomic<bool> done{false};
    std::size_t put = 0;
    std::thread wire([&] {
        tid.store(this_tid());
        put = u.inject("0123456789", 10);
        done.store(true);
    });
    while (tid.load() == 0) sched_yield();
    interrupt_when_blocked(tid.load(), SYS_sendto);
    while (!done.load() && blocked_in(tid.load()) != SYS_sendto) sched_yield();
    if (done.load()) {
        wire.join();
        FAIL() << "inject() returned " << put << " of 10 bytes after EINTR";
    }
    // Empty the wire through the FIFO: the blocked send completes.
    irq_node node{[](irq_node*) noexcept {}};
    u.rx().attach(ex, node);
    std::size_t got = 0;
    while (got < filled + 10) {
        if (u.rx().readable() != 0 && u.rx().read()) ++got;
        else sched_yield();
    }
    wire.join();
    EXPECT_EQ(put, 10u);
    u.rx().detach();
    (void)ex.withdraw_post(node);
}

// The TX write took EINTR for a broken wire: the byte was reported lost
// ("tx write failed") though the far end was only slow to read.
TEST(sim_uart, a_signal_does_not_fail_a_tx_write) {
    WEFT_REQUIRE_PROC_SYSCALL();
    no_restart_handler h;
    sim::uart u{"console"};
    std::atomic<pid_t> tid{0};
    std::atomic<bool> stop{false}, failed{false}, finished{false};
    std::thread tx([&] {
        tid.store(this_tid());
        // Nobody reads the wire yet: the writes fill it, then one blocks.
        while (!stop.load()) {
            if (!u.tx().write(0x55)) { failed.store(true); break; }
        }
        finished.store(true);
    });
    while (tid.load() == 0) sched_yield();
    interrupt_when_blocked(tid.load(), SYS_sendto);
    stop.store(true);
    // Read the wire until the writer is done: its blocked write completes
    // once there is room (or, with EINTR taken for a failure, it has
    // stopped already).
    char buf[4096];
    while (!finished.load())
        if (::recv(u.peer_fd(), buf, sizeof buf, MSG_DONTWAIT) <= 0) sched_yield();
    tx.join();
    EXPECT_FALSE(failed.load()) << "tx write failed after EINTR";
}
#endif  // __linux__
