// SPDX-License-Identifier: Apache-2.0
// Review 8: devices as channels. Connections closed and reconnected while
// values are in flight, drivers whose reads and writes fail mid-batch,
// readable()/writable() flapping, several drivers on one channel.
#include <weft/csp.hpp>
#include <weft/csp/connect.hpp>

#include <gtest/gtest.h>
#include <support/scripted_drivers.hpp>
#include <support/weft_test.hpp>

#include <weft_port/sim/button.hpp>
#include <weft_port/sim/led.hpp>
#include <weft_port/sim/periodic_timer.hpp>
#include <weft_port/sim/uart.hpp>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include <sys/socket.h>
#include <unistd.h>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <vector>

using namespace weft;
using namespace weft::csp;
using namespace std::chrono_literals;
using test::counted;

namespace {

frame_pool<16384, 16> review8_frames{"csp_review8"};

// The interrupt side both test drivers share (changed() is their
// interrupt), checking that no connection attaches one still attached.
struct fz_attachment : test::scripted_driver {
    void attach(executor& e, irq_node& n) noexcept {
        EXPECT_EQ(node, nullptr);
        scripted_driver::attach(e, n);
    }
};

// An input driver the test feeds; a value < 0 in the queue makes that read fail.
struct fz_in : fz_attachment {
    std::deque<int> q;
    bool mute = false;  // readable() says 0 (flapping)
    std::size_t readable() const noexcept { return mute ? 0 : q.size(); }
    result<counted> read() noexcept {
        int v = q.front();
        q.pop_front();
        if (v < 0) return error{errc::device, "fz", "in", 0, "read failed"};
        return counted{v};
    }
};

// An output driver whose writability flaps; a write of a multiple of 11 fails.
struct fz_out : fz_attachment {
    bool open = true;
    std::vector<int> written, failed;
    std::size_t writable() const noexcept { return open ? 1 : 0; }
    status write(counted v) noexcept {
        if (v.v % 11 == 0) {
            failed.push_back(v.v);
            return error{errc::device, "fz", "out", 0, "write failed"};
        }
        written.push_back(v.v);
        return {};
    }
};

template <std::size_t N>
struct fz_world {
    using in_conn = input_connection<counted, N, fz_in>;
    using out_conn = output_connection<counted, N, fz_out>;
    explicit fz_world(unsigned seed) : rnd{seed} {}
    test::seeded_rng rnd;
    executor ex{test::virtual_clock()};
    channel<counted, N> ch{"fz"};
    fz_in in[2];
    fz_out out;
    std::optional<in_conn> ic[2];
    std::optional<out_conn> oc;
    int next[2] = {0, 0};
    std::vector<int> got;  // by tasks, in the order they got them
    std::vector<int> got2;  // by the helper task
    std::vector<int> handed_back;
    std::size_t errors_seen = 0;

    void produce(int d) {
        int k = 1 + rnd(4);
        for (int i = 0; i < k; ++i) {
            if (rnd(8) == 0) in[d].q.push_back(-1);
            in[d].q.push_back(d * 100000 + next[d]++);
        }
        in[d].changed();
    }
    void close_in(int d) {
        if (!ic[d]) return;
        errors_seen += ic[d]->errors();
        if (auto v = ic[d]->close()) handed_back.push_back(v->v);
        ic[d].reset();
    }
    void close_out() {
        if (!oc) return;
        errors_seen += oc->errors();
        if (auto v = oc->close()) handed_back.push_back(v->v);
        oc.reset();
    }
};

template <std::size_t N>
task<> fz_script(fz_world<N>& w, int steps, bool& done) {
    for (int i = 0; i < steps; ++i) {
        switch (w.rnd(12)) {
            case 0: case 1: w.produce(w.rnd(2)); break;
            case 2: {
                int d = w.rnd(2);
                if (w.ic[d]) w.close_in(d);
                else w.ic[d].emplace(w.ex, w.ch, w.in[d]);
                break;
            }
            case 3:
                if (w.oc) w.close_out();
                else w.oc.emplace(w.ex, w.ch, w.out);
                break;
            case 4:
                w.out.open = !w.out.open;
                if (w.out.open) w.out.changed();
                break;
            case 5: {
                int d = w.rnd(2);
                w.in[d].mute = !w.in[d].mute;
                if (!w.in[d].mute) w.in[d].changed();
                break;
            }
            case 6: {
                auto r = w.ch.try_recv();
                if (r) w.got.push_back(r->v);
                break;
            }
            case 7: {
                auto r = co_await weft::with_timeout(sync(recv(w.ch)), std::chrono::milliseconds(w.rnd(3)));
                if (r) w.got.push_back(r->v);
                break;
            }
            case 8: {
                auto r = co_await choose(wrap(recv(w.ch), [](counted c) { return c.v; }),
                                         wrap(timeout(std::chrono::milliseconds(w.rnd(3))), [] { return -1; }));
                if (r && *r >= 0) w.got.push_back(*r);
                break;
            }
            case 9:
                if (w.rnd(120) == 0) w.ch.close();
                co_await weft::yield();
                break;
            default: co_await sleep_for(std::chrono::milliseconds(w.rnd(2))); break;
        }
    }
    done = true;
}

template <std::size_t N>
task<> fz_helper(fz_world<N>& w, bool& stop) {
    while (!stop) {
        auto r = co_await weft::with_timeout(sync(recv(w.ch)), std::chrono::milliseconds(1 + w.rnd(3)));
        if (r) w.got2.push_back(r->v);
        else if (r.code() == errc::closed) co_await sleep_for(1ms);
    }
}

template <std::size_t N>
void fz_run(unsigned seed) {
    counted::live = 0;
    {
        fz_world<N> w{seed};
        bool done = false;
        bool stop_helper = false;
        {
            auto h = w.ex.spawn(fz_script(w, 200, done));
            ASSERT_TRUE(h);
            // Connections keep the executor waiting for interrupts: the script stops it.
            auto stopper = [&]() -> task<> {
                co_await h->join();
                w.close_in(0);
                w.close_in(1);
                w.close_out();
                stop_helper = true;
            };
            auto hh = w.ex.spawn(fz_helper(w, stop_helper));
            ASSERT_TRUE(hh);
            auto s = w.ex.spawn(stopper());
            ASSERT_TRUE(s);
            ASSERT_EQ(w.ex.run(), run_outcome::completed) << "seed " << seed;
        }
        ASSERT_TRUE(done);
        std::vector<int> left;
        while (auto r = w.ch.try_recv()) left.push_back(r->v);
        for (int d = 0; d < 2; ++d)
            for (int v : w.in[d].q)
                if (v >= 0) left.push_back(v);
        std::vector<int> all;
        for (auto* v : {&w.got, &w.got2, &w.out.written, &w.out.failed, &w.handed_back, &left})
            all.insert(all.end(), v->begin(), v->end());
        std::sort(all.begin(), all.end());
        std::vector<int> expect;
        for (int d = 0; d < 2; ++d)
            for (int i = 0; i < w.next[d]; ++i) expect.push_back(d * 100000 + i);
        ASSERT_EQ(all, expect) << "seed " << seed;
        // Each consumer sees each driver's values in order.
        for (auto* v : {&w.got, &w.got2, &w.out.written}) {
            int last[2] = {-1, -1};
            for (int x : *v) {
                int d = x / 100000;
                ASSERT_GT(x, last[d]) << "seed " << seed;
                last[d] = x;
            }
        }
    }
    ASSERT_EQ(counted::live, 0) << "seed " << seed;
}

}  // namespace

TEST(csp_review8, random_connects_closes_and_flaps_deliver_each_value_once_rendezvous) {
    for (unsigned seed = 1; seed <= 1500; ++seed) {
        fz_run<0>(seed);
        if (HasFatalFailure()) return;
    }
}

TEST(csp_review8, random_connects_closes_and_flaps_deliver_each_value_once_buffered) {
    for (unsigned seed = 1; seed <= 1500; ++seed) {
        fz_run<2>(seed);
        if (HasFatalFailure()) return;
    }
}

// A synchronous driver (the LED: "never interrupts", bridge.hpp) gives the
// executor nothing to wait for. On the virtual clock, tasks that wait for
// each other with only an LED connected can never be woken: run() must say
// `stalled` (core.md, "The executor"), not sleep for ever waiting for an
// interrupt that cannot come. The watchdog only ends the hang.
TEST(csp_review8, a_connection_to_a_synchronous_driver_does_not_keep_a_stalled_run_waiting) {
    executor ex{test::virtual_clock()};
    sim::led led0{"led0"};
    channel<bool> lchan{"lchan"}, never{"never"};
    auto l = connect(ex, lchan, led0);
    auto t = [&]() -> task<> {
        EXPECT_TRUE(co_await send(lchan, true));
        (void)co_await recv(never);  // nobody sends: a deadlock
    };
    auto h = ex.spawn(t());
    ASSERT_TRUE(h);
    std::mutex m;
    std::condition_variable cv;
    bool finished = false;
    std::thread watchdog([&] {
        std::unique_lock<std::mutex> lk(m);
        if (!cv.wait_for(lk, std::chrono::seconds(3), [&] { return finished; })) ex.request_stop();
    });
    const run_outcome o = ex.run();
    {
        std::lock_guard<std::mutex> g(m);
        finished = true;
    }
    cv.notify_one();
    watchdog.join();
    EXPECT_EQ(o, run_outcome::stalled) << "run() returned " << to_string(o);
    EXPECT_TRUE(led0.on());
    EXPECT_EQ(l.transferred(), 1u);
}

// The far end hangs up (its side of the socket pair shut down): the RX
// reader thread sees end-of-file and ends. A script's deliver() then has
// nobody to move its bytes: it must fail with an error naming the UART (as
// the TX half reports a hung-up wire as a `device` error, "not SIGPIPE"),
// not kill the process with SIGPIPE or wait for ever.
namespace {
[[noreturn]] void deliver_after_hang_up() {
    executor ex{test::virtual_clock()};
    sim::uart u{"console"};
    channel<std::uint8_t, 8> rx{"uart_rx"};
    {
        auto r = connect(ex, rx, u.rx());
        ::shutdown(u.peer_fd(), SHUT_RDWR);  // the other side hangs up
        status s = u.deliver("x", 1);
        if (s) std::_Exit(3);  // claims the byte is in the FIFO
        std::fprintf(stderr, "%s\n", s.err().message().c_str());
        (void)r.close();
    }
    std::_Exit(0);
}
}  // namespace

TEST(csp_review8, uart_deliver_after_the_wire_hung_up_is_an_error_not_a_signal) {
    EXPECT_EXIT(deliver_after_hang_up(), ::testing::ExitedWithCode(0), "uart 'console'");
}

// A foreign thread ticks a timer (its interrupt) as fast as it can while
// the executor connects, receives a few ticks and closes, over and over.
// Tick numbers arrive in increasing order; every gap is reported by an
// overflow error, and nothing arrives twice.
TEST(csp_review8, timer_ticks_across_reconnects_arrive_in_order_and_gaps_are_reported) {
    constexpr std::uint32_t total = 20000;
    executor ex{{"tick_flood", clock_mode::real}};
    sim::periodic_timer tim{"tim"};
    channel<std::uint32_t, 4> ch{"ticks"};
    std::atomic<bool> stop{false};
    std::thread isr([&] {
        while (!stop.load(std::memory_order_relaxed)) {
            (void)tim.tick();
            if ((std::rand() & 7) == 0) std::this_thread::yield();
        }
    });
    std::vector<std::uint32_t> got;
    std::size_t errors = 0;
    auto t = [&]() -> task<> {
        int k = 0;
        while (got.size() < total) {
            std::optional<std::uint32_t> held;
            {
                auto c = connect(ex, ch, tim);
                for (int i = 1 + (k++ % 13); i > 0; --i) {
                    auto v = co_await recv(ch);
                    if (!v) break;
                    got.push_back(*v);
                }
                held = c.close();
                errors += c.errors();
            }
            while (auto b = ch.try_recv()) got.push_back(*b);
            if (held) got.push_back(*held);
        }
        stop.store(true);
    };
    auto h = ex.spawn(t());
    EXPECT_EQ(ex.run(), run_outcome::completed);
    isr.join();
    std::size_t gaps = 0;
    for (std::size_t i = 1; i < got.size(); ++i) {
        ASSERT_GT(got[i], got[i - 1]) << "at " << i;
        if (got[i] != got[i - 1] + 1) ++gaps;
    }
    EXPECT_LE(gaps, errors);
}

// run() stopped while a connection holds a value and its node is queued;
// run() again: the value and the rest arrive once each, in order.
TEST(csp_review8, a_run_stopped_with_values_in_flight_resumes_them_in_the_next_run) {
    executor ex{test::virtual_clock()};
    sim::button but0{"but0"};
    channel<bool> ch{"edges"};
    auto c = connect(ex, ch, but0);
    std::vector<bool> got;
    auto t = [&]() -> task<> {
        for (int i = 0; i < 4; ++i) {
            auto v = co_await recv(ch);
            got.push_back(v && *v);
            if (i == 0) {
                but0.release();  // posts the connection
                but0.press();
                ex.request_stop();
            }
        }
    };
    but0.press();  // posts the connection
    auto h = ex.spawn(t());
    ASSERT_TRUE(h);
    EXPECT_EQ(ex.run(), run_outcome::stopped);
    EXPECT_EQ(got.size(), 1u);
    but0.release();
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(got, (std::vector<bool>{true, false, true, false}));
    EXPECT_EQ(c.transferred(), 4u);
    EXPECT_FALSE(c.close());
}
