// SPDX-License-Identifier: Apache-2.0
#pragma once
// The workloads on weft channels: one task per actor on one executor,
// mailboxes are buffered channels, static frame pools, no heap. Each
// workload's protocol is the reactor version's (reactor_programs.hpp), so
// the checksums agree.
#include "workloads.hpp"

#include <weft/core.hpp>
#include <weft/csp.hpp>

#include <cstdio>
#include <cstdlib>
#include <utility>

namespace bench::rx::channels {

using namespace weft;
using namespace weft::csp;

// Slot sizes are odd numbers of cache lines so that frames of one pool do
// not all start at the same offset modulo 4 KiB (bench/csp found 3x on
// Chameneos from that aliasing). The allocator takes the smallest slot that fits.
inline frame_pool<320, 160> small_frames{"rx-320"};
inline frame_pool<704, chain_len + 160> medium_frames{"rx-704"};
inline frame_pool<1088, 160> large_frames{"rx-1088"};
inline frame_pool<2112, big_workers + 16> spare_frames{"rx-2112"};

inline void spawn(executor& ex, task<>&& t) {
    if (!ex.spawn(std::move(t))) {
        std::fputs("channel bench: frame pool exhausted\n", stderr);
        std::abort();
    }
}

// --- tag_advance: a task that sleeps one period per tag on the virtual clock.
inline task<> ticker(long n, std::uint64_t& count) {
    for (long i = 0; i < n; ++i) {
        co_await sleep_for(1us);
        ++count;
    }
}
inline std::uint64_t tag_advance(long tags) {
    executor ex{{"bench", clock_mode::virtual_}};
    std::uint64_t count = 0;
    spawn(ex, ticker(tags, count));
    (void)ex.run();
    return count;
}

// --- reaction_switch: a pipeline of chain_len tasks, one value per tag.
inline channel<int, 1> pipe[chain_len + 1];
inline task<> stage(int k, long n) {
    for (long i = 0; i < n; ++i) {
        int v = *co_await recv(pipe[k]);
        (void)co_await send(pipe[k + 1], v + 1);
    }
}
inline task<> pipe_head(long n) {
    for (long i = 0; i < n; ++i) (void)co_await send(pipe[0], 0);
}
inline task<> pipe_tail(long n, std::uint64_t& sum) {
    for (long i = 0; i < n; ++i) sum += std::uint64_t(*co_await recv(pipe[chain_len]));
}
inline std::uint64_t reaction_switch(long tags) {
    executor ex{{"bench", clock_mode::real}};
    std::uint64_t sum = 0;
    spawn(ex, pipe_head(tags));
    for (int k = 0; k < chain_len; ++k) spawn(ex, stage(k, tags));
    spawn(ex, pipe_tail(tags, sum));
    (void)ex.run();
    return sum;
}

// --- PingPong
using mailbox = channel<msg, 1>;
inline mailbox ping_box, pong_box;
inline task<> pinger(long n, std::uint64_t& sum) {
    for (long i = 1; i <= n; ++i) {
        (void)co_await send(pong_box, msg{k_ping, 0, i});
        sum += std::uint64_t((*co_await recv(ping_box)).value);
    }
    (void)co_await send(pong_box, msg{k_exit, 0, 0});
}
inline task<> ponger() {
    for (;;) {
        msg m = *co_await recv(pong_box);
        if (m.kind == k_exit) co_return;
        (void)co_await send(ping_box, msg{k_pong, 1, m.value});
    }
}
inline std::uint64_t pingpong(long n) {
    executor ex{{"bench", clock_mode::real}};
    std::uint64_t sum = 0;
    spawn(ex, pinger(n, sum));
    spawn(ex, ponger());
    (void)ex.run();
    return sum;
}

// --- Counting
inline channel<msg, 64> counter_box;
inline mailbox counting_reply;
inline task<> counter_task() {
    std::int64_t count = 0;
    for (;;) {
        msg m = *co_await recv(counter_box);
        if (m.kind == k_incr) { count += m.value; continue; }
        (void)co_await send(counting_reply, msg{k_done, 0, count});
        co_return;
    }
}
inline task<> counting_producer(long n, std::uint64_t& out) {
    for (long i = 0; i < n; ++i) (void)co_await send(counter_box, msg{k_incr, 0, 1});
    (void)co_await send(counter_box, msg{k_query, 0, 0});
    out = std::uint64_t((*co_await recv(counting_reply)).value);
}
inline std::uint64_t counting(long n) {
    executor ex{{"bench", clock_mode::real}};
    std::uint64_t out = 0;
    spawn(ex, counter_task());
    spawn(ex, counting_producer(n, out));
    (void)ex.run();
    return out;
}

// --- ThreadRing: the holder of a live token adds its index and passes
// token - 1; a spent token (0) starts an exit wave round the ring.
inline channel<long, 1> ring[ring_nodes];
inline task<> ring_node(int k, std::uint64_t& sum) {
    channel<long, 1>& next = ring[(k + 1) % ring_nodes];
    for (;;) {
        long t = *co_await recv(ring[k]);
        if (t > 0) {
            sum += std::uint64_t(k);
            (void)co_await send(next, t - 1);
            continue;
        }
        // 0: spent here, this node starts the wave; -(origin + 1): a wave,
        // passed on until the node before its origin.
        long origin = t == 0 ? k : -t - 1;
        if ((k + 1) % ring_nodes != origin) (void)co_await send(next, t == 0 ? -(k + 1) : t);
        co_return;
    }
}
inline task<> ring_start(long hops) { (void)co_await send(ring[0], hops); }
inline std::uint64_t thread_ring(long hops) {
    executor ex{{"bench", clock_mode::real}};
    std::uint64_t sum = 0;
    for (int k = 0; k < ring_nodes; ++k) spawn(ex, ring_node(k, sum));
    spawn(ex, ring_start(hops));
    (void)ex.run();
    return sum;
}

// --- Throughput: the producer sends message i to every consumer in turn.
inline channel<long, 64> tp_box[consumers];
inline task<> tp_producer(long per) {
    for (long i = 0; i < per; ++i)
        for (int a = 0; a < consumers; ++a) (void)co_await send(tp_box[a], i);
}
inline task<> tp_consumer(int a, long per, double& acc) {
    double s = 0;
    for (long i = 0; i < per; ++i) s += work(throughput_value(*co_await recv(tp_box[a]), a));
    acc = s;
}
inline std::uint64_t throughput(long per) {
    executor ex{{"bench", clock_mode::real}};
    static double acc[consumers];
    for (int a = 0; a < consumers; ++a) spawn(ex, tp_consumer(a, per, acc[a]));
    spawn(ex, tp_producer(per));
    (void)ex.run();
    double total = 0;
    for (double x : acc) total += x;
    return fp_checksum(total);
}

// --- Chameneos: the mall pairs requests in arrival order and tells both.
inline channel<msg, creatures> mall_box;
inline mailbox creature_box[creatures];
inline task<> creature(int i, std::uint64_t& met_total) {
    std::uint32_t colour = std::uint32_t(i % 3);
    std::uint64_t met = 0;
    for (;;) {
        (void)co_await send(mall_box, msg{k_meet, std::uint32_t(i), colour});
        msg m = *co_await recv(creature_box[i]);
        if (m.kind == k_exit) break;
        ++met;
        colour = std::uint32_t(m.value);
    }
    met_total += met;
}
inline task<> mall(long meetings, int& exited) {
    long held = 0;
    int waiting = -1;
    std::uint32_t waiting_colour = 0;
    while (exited < creatures) {
        msg m = *co_await recv(mall_box);
        if (held == meetings) {
            (void)co_await send(creature_box[m.from], msg{k_exit, 0, 0});
            ++exited;
            if (waiting >= 0) { (void)co_await send(creature_box[waiting], msg{k_exit, 0, 0}); ++exited; }
            waiting = -1;
        } else if (waiting < 0) {
            waiting = int(m.from);
            waiting_colour = std::uint32_t(m.value);
        } else {
            std::int64_t both = complement(waiting_colour, std::uint32_t(m.value));
            (void)co_await send(creature_box[waiting], msg{k_meet, m.from, both});
            (void)co_await send(creature_box[m.from], msg{k_meet, std::uint32_t(waiting), both});
            waiting = -1;
            ++held;
        }
    }
}
inline std::uint64_t chameneos(long meetings) {
    executor ex{{"bench", clock_mode::real}};
    std::uint64_t met = 0;
    int exited = 0;
    spawn(ex, mall(meetings, exited));
    for (int i = 0; i < creatures; ++i) spawn(ex, creature(i, met));
    (void)ex.run();
    return met;
}

// --- Big: each worker keeps one ping outstanding until it has sent
// `pings`, answers every ping, and reports when done; once all are done
// the sink tells everyone to exit (nothing is in flight by then).
inline channel<msg, big_workers + 1> big_box[big_workers];
inline channel<msg, big_workers> sink_box;
inline task<> big_worker(int self, long pings, std::uint64_t& pongs_total) {
    partner_rng rng{self};
    long sent = 0;
    std::uint64_t pongs = 0;
    if (pings > 0) { (void)co_await send(big_box[rng.next(self)], msg{k_ping, std::uint32_t(self), 0}); sent = 1; }
    else (void)co_await send(sink_box, msg{k_done, std::uint32_t(self), 0});
    for (;;) {
        msg m = *co_await recv(big_box[self]);
        if (m.kind == k_exit) break;
        if (m.kind == k_ping) {
            (void)co_await send(big_box[m.from], msg{k_pong, std::uint32_t(self), 0});
            continue;
        }
        ++pongs;
        if (sent < pings) {
            (void)co_await send(big_box[rng.next(self)], msg{k_ping, std::uint32_t(self), 0});
            ++sent;
        } else {
            (void)co_await send(sink_box, msg{k_done, std::uint32_t(self), 0});
        }
    }
    pongs_total += pongs;
}
inline task<> big_sink() {
    for (int done = 0; done < big_workers; ++done) (void)co_await recv(sink_box);
    for (int w = 0; w < big_workers; ++w) (void)co_await send(big_box[w], msg{k_exit, 0, 0});
}
inline std::uint64_t big(long pings) {
    executor ex{{"bench", clock_mode::real}};
    std::uint64_t pongs = 0;
    for (int w = 0; w < big_workers; ++w) spawn(ex, big_worker(w, pings, pongs));
    spawn(ex, big_sink());
    (void)ex.run();
    return pongs;
}

}  // namespace bench::rx::channels
