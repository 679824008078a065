// SPDX-License-Identifier: Apache-2.0
// The csp workloads on weft: one executor on one thread, tasks and
// channels (workloads.hpp defines the work; common.hpp times it).
#include "common.hpp"

#include <weft/core.hpp>
#include <weft/core/frame_report.hpp>
#include <weft/csp.hpp>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <new>

using namespace weft;
using namespace weft::csp;
using bench::csp::msg;
using bench::csp::sizes;
namespace w = bench::csp;

#ifndef WEFT_BENCH_SYSTEM
#define WEFT_BENCH_SYSTEM "weft"
#endif

namespace {
// Pools sized from the frame report (WEFT_BENCH_FRAMES=1 prints it; GCC 12
// -O3), as an application would size them; the allocator takes the
// smallest free slot that fits, and the last pool catches larger frames
// from other compilers.
frame_pool<320, 16> small_frames{"bench-320"};
frame_pool<704, 128> medium_frames{"bench-704"};
frame_pool<960, 128> large_frames{"bench-960"};
frame_pool<1088, 128> worker_frames{"bench-1088"};
frame_pool<2112, 128> spare_frames{"bench-2112"};

// Coroutines take their state as parameters (copied into the frame), never
// through lambda captures, which would dangle once the lambda is gone.
void spawn(executor& ex, task<>&& t) {
    if (!ex.spawn(std::move(t))) {
        std::fputs("weft bench: frame pool exhausted\n", stderr);
        std::abort();
    }
}
executor make_executor() { return executor{{"bench", clock_mode::real}}; }

// --- pingpong_rendezvous: two rendezvous channels, ping sends i, pong echoes.
task<> pp_ping(channel<long>& out, channel<long>& in, long n, std::uint64_t& sum) {
    for (long i = 1; i <= n; ++i) {
        (void)co_await send(out, i);
        sum += std::uint64_t(*co_await recv(in));
    }
}
task<> pp_pong(channel<long>& in, channel<long>& out, long n) {
    for (long i = 0; i < n; ++i) {
        long v = *co_await recv(in);
        (void)co_await send(out, v);
    }
}

// --- throughput_buffered
task<> producer(channel<long, w::buffered_capacity>& ch, long n) {
    for (long i = 0; i < n; ++i) (void)co_await send(ch, i);
}
task<> consumer(channel<long, w::buffered_capacity>& ch, long n, std::uint64_t& sum) {
    for (long i = 0; i < n; ++i) sum += std::uint64_t(*co_await recv(ch));
}

// --- choose_8
channel<long> fan[w::choose_fanin];
task<> fan_producer(channel<long>& ch, long first, long n) {
    for (long i = 0; i < n; ++i) (void)co_await send(ch, first + i * w::choose_fanin);
}
task<> fan_consumer(long n, std::uint64_t& sum) {
    for (long i = 0; i < n; ++i) {
        auto r = co_await choose(recv(fan[0]), recv(fan[1]), recv(fan[2]), recv(fan[3]),
                                 recv(fan[4]), recv(fan[5]), recv(fan[6]), recv(fan[7]));
        sum += std::uint64_t(*r);
    }
}

// --- Savina PingPong: actors with mailboxes (buffered channels), tagged messages.
using mailbox1 = channel<msg, 1>;
task<> sp_ping(mailbox1& self, mailbox1& pong, long n, std::uint64_t& sum) {
    for (long i = 1; i <= n; ++i) {
        (void)co_await send(pong, msg{w::k_ping, 0, i});
        sum += std::uint64_t((*co_await recv(self)).value);
    }
    (void)co_await send(pong, msg{w::k_stop, 0, 0});
}
task<> sp_pong(mailbox1& self, mailbox1& ping) {
    for (;;) {
        msg m = *co_await recv(self);
        if (m.kind == w::k_stop) co_return;
        (void)co_await send(ping, msg{w::k_pong, 1, m.value});
    }
}

// --- Savina Counting: a counter process; n increments, then a query it answers.
using mailbox64 = channel<msg, w::buffered_capacity>;
task<> counter(mailbox64& self, mailbox1& reply) {
    std::int64_t count = 0;
    for (;;) {
        msg m = *co_await recv(self);
        if (m.kind == w::k_incr) { ++count; continue; }
        (void)co_await send(reply, msg{w::k_done, 0, count});
        co_return;
    }
}
task<> counting_producer(mailbox64& counter_box, mailbox1& self, long n, std::uint64_t& out) {
    for (long i = 0; i < n; ++i) (void)co_await send(counter_box, msg{w::k_incr, 0, 1});
    (void)co_await send(counter_box, msg{w::k_query, 0, 0});
    out = std::uint64_t((*co_await recv(self)).value);
}

// --- Savina ThreadRing: rendezvous ring; the token's holder adds its index.
constexpr int max_ring = 128;
channel<long> ring[max_ring];
task<> ring_node(int k, int n, std::uint64_t& sum) {
    channel<long>& next = ring[(k + 1) % n];
    for (;;) {
        long t = *co_await recv(ring[k]);
        if (t > 0) {
            sum += std::uint64_t(k);
            (void)co_await send(next, t - 1);
            continue;
        }
        // 0: the token is spent here, this node starts the exit wave;
        // -(origin+1): an exit wave, passed on until it is back at its origin.
        long origin = t == 0 ? k : -t - 1;
        if ((k + 1) % n != origin) (void)co_await send(next, t == 0 ? -(k + 1) : t);
        co_return;
    }
}
task<> ring_start(long hops) { (void)co_await send(ring[0], hops); }

// --- Savina Throughput: 1 producer, A consumers with floating-point work.
constexpr int max_actors = 64;
mailbox64 tp_box[max_actors];
task<> tp_producer(int actors, long per) {
    for (long i = 0; i < per; ++i)
        for (int a = 0; a < actors; ++a) (void)co_await send(tp_box[a], msg{0, 0, i * actors + a});
}
task<> tp_consumer(int a, long per, double& sum) {
    double s = 0;
    for (long i = 0; i < per; ++i) s += w::throughput_work((*co_await recv(tp_box[a])).value);
    sum = s;
}

// --- Savina Chameneos: a mall pairs creatures; paired creatures swap colours.
constexpr int max_creatures = 128;
channel<msg, max_creatures> mall_box;
mailbox1 creature_box[max_creatures];
task<> creature(int i) {
    std::uint32_t colour = std::uint32_t(i % 3);
    std::int64_t met = 0;
    for (;;) {
        (void)co_await send(mall_box, msg{w::k_meet, std::uint32_t(i), colour});
        msg m = *co_await recv(creature_box[i]);
        if (m.kind == w::k_exit) break;
        ++met;
        if (m.kind == w::k_meet) {  // we were waiting: the mall names our partner
            colour = w::complement(colour, std::uint32_t(m.value));
            (void)co_await send(creature_box[m.from], msg{w::k_change, std::uint32_t(i), colour});
        } else {
            colour = std::uint32_t(m.value);
        }
    }
    (void)co_await send(mall_box, msg{w::k_done, std::uint32_t(i), met});
}
task<> mall(int creatures, long meetings, std::uint64_t& sum) {
    long held = 0;
    int waiting = -1, done = 0;
    while (done < creatures) {
        msg m = *co_await recv(mall_box);
        if (m.kind == w::k_done) { sum += std::uint64_t(m.value); ++done; continue; }
        if (held == meetings) {  // closed: every request (and the one waiting) gets exit
            (void)co_await send(creature_box[m.from], msg{w::k_exit, 0, 0});
            if (waiting >= 0) (void)co_await send(creature_box[waiting], msg{w::k_exit, 0, 0});
            waiting = -1;
        } else if (waiting < 0) {
            waiting = int(m.from);
        } else {
            (void)co_await send(creature_box[waiting], msg{w::k_meet, m.from, m.value});
            waiting = -1;
            ++held;
        }
    }
}

// --- Savina Big: every worker pings random others and answers their pings.
constexpr int max_workers = 128;
channel<msg, max_workers + 1> big_box[max_workers];
channel<msg, max_workers> sink_box;
task<> big_worker(int self, int workers, long pings) {
    w::partner_rng rng{self};
    long sent = 1;
    std::int64_t pongs = 0;
    (void)co_await send(big_box[rng.next(self, workers)], msg{w::k_ping, std::uint32_t(self), 0});
    for (;;) {
        msg m = *co_await recv(big_box[self]);
        if (m.kind == w::k_ping) {
            (void)co_await send(big_box[m.from], msg{w::k_pong, std::uint32_t(self), 0});
        } else if (m.kind == w::k_pong) {
            ++pongs;
            if (sent < pings) {
                ++sent;
                (void)co_await send(big_box[rng.next(self, workers)], msg{w::k_ping, std::uint32_t(self), 0});
            } else {
                (void)co_await send(sink_box, msg{w::k_done, std::uint32_t(self), pongs});
            }
        } else {
            co_return;
        }
    }
}
task<> big_sink(int workers, std::uint64_t& sum) {
    for (int i = 0; i < workers; ++i) sum += std::uint64_t((*co_await recv(sink_box)).value);
    for (int i = 0; i < workers; ++i) (void)co_await send(big_box[i], msg{w::k_exit, 0, 0});
}

struct weft_system {
    static std::uint64_t pingpong(const sizes& z) {
        channel<long> ping{"ping"}, pong{"pong"};
        std::uint64_t sum = 0;
        executor ex = make_executor();
        spawn(ex, pp_ping(ping, pong, z.pingpong_msgs / 2, sum));
        spawn(ex, pp_pong(ping, pong, z.pingpong_msgs / 2));
        ex.run();
        return sum;
    }
    static std::uint64_t buffered_1to1(const sizes& z) {
        channel<long, w::buffered_capacity> ch{"count"};
        std::uint64_t sum = 0;
        executor ex = make_executor();
        spawn(ex, producer(ch, z.buffered_msgs));
        spawn(ex, consumer(ch, z.buffered_msgs, sum));
        ex.run();
        return sum;
    }
    static std::uint64_t choose8(const sizes& z) {
        std::uint64_t sum = 0;
        long per = z.choose_msgs / w::choose_fanin;
        executor ex = make_executor();
        for (int k = 0; k < w::choose_fanin; ++k) spawn(ex, fan_producer(fan[k], k, per));
        spawn(ex, fan_consumer(per * w::choose_fanin, sum));
        ex.run();
        return sum;
    }
    static std::uint64_t savina_pingpong(const sizes& z) {
        mailbox1 ping{"ping"}, pong{"pong"};
        std::uint64_t sum = 0;
        executor ex = make_executor();
        spawn(ex, sp_ping(ping, pong, z.savina_pings, sum));
        spawn(ex, sp_pong(pong, ping));
        ex.run();
        return sum;
    }
    static std::uint64_t counting(const sizes& z) {
        mailbox64 box{"counter"};
        mailbox1 reply{"producer"};
        std::uint64_t count = 0;
        executor ex = make_executor();
        spawn(ex, counter(box, reply));
        spawn(ex, counting_producer(box, reply, z.counting_n, count));
        ex.run();
        return count;
    }
    static std::uint64_t thread_ring(const sizes& z) {
        std::uint64_t sums[max_ring] = {};
        executor ex = make_executor();
        for (int k = 0; k < z.ring_nodes; ++k) spawn(ex, ring_node(k, z.ring_nodes, sums[k]));
        spawn(ex, ring_start(z.ring_hops));
        ex.run();
        std::uint64_t s = 0;
        for (int k = 0; k < z.ring_nodes; ++k) s += sums[k];
        return s;
    }
    static std::uint64_t throughput(const sizes& z) {
        double sums[max_actors] = {};
        executor ex = make_executor();
        for (int a = 0; a < z.throughput_actors; ++a) spawn(ex, tp_consumer(a, z.throughput_per, sums[a]));
        spawn(ex, tp_producer(z.throughput_actors, z.throughput_per));
        ex.run();
        double total = 0;
        for (int a = 0; a < z.throughput_actors; ++a) total += sums[a];
        return w::fp_checksum(total);
    }
    static std::uint64_t chameneos(const sizes& z) {
        std::uint64_t sum = 0;
        executor ex = make_executor();
        spawn(ex, mall(z.chameneos, z.meetings, sum));
        for (int i = 0; i < z.chameneos; ++i) spawn(ex, creature(i));
        ex.run();
        return sum;
    }
    static std::uint64_t big(const sizes& z) {
        std::uint64_t sum = 0;
        executor ex = make_executor();
        for (int i = 0; i < z.big_workers; ++i) spawn(ex, big_worker(i, z.big_workers, z.big_pings));
        spawn(ex, big_sink(z.big_workers, sum));
        ex.run();
        return sum;
    }
};
}  // namespace

// Counts every heap allocation, so that the JSON lines show weft's runs
// make none (frames come from the static pools above).
namespace {
std::atomic<std::uint64_t> heap_allocations{0};
}
void* operator new(std::size_t n) {
    heap_allocations.fetch_add(1, std::memory_order_relaxed);
    if (void* p = std::malloc(n ? n : 1)) return p;
    std::abort();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

int main(int argc, char** argv) {
    bench::allocations = [] { return heap_allocations.load(std::memory_order_relaxed); };
    bench::config cfg = bench::parse(argc, argv);
    // WEFT_BENCH_SYSTEM names a second build of the same code with another
    // compiler (bench/csp/run: "weft_clang"), so both appear in one table.
    bench::run_suite<weft_system>(cfg, WEFT_BENCH_SYSTEM, cfg.quick ? 7 : 21);
    // The frame sizes that chose the pools' slot sizes above.
    if (std::getenv("WEFT_BENCH_FRAMES"))
        print_frame_report([](const char* s, std::size_t n) { std::fwrite(s, 1, n, stderr); });
    return bench::exit_status();
}
