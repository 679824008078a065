// SPDX-License-Identifier: Apache-2.0
#pragma once
// The workloads on std::thread: one OS thread per actor, mailboxes are
// mutex + condition-variable queues. Same protocols as the channel
// versions (channel_programs.hpp), so the checksums agree.
#include "workloads.hpp"

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

namespace bench::rx::threads {

template <class T>
class mailbox {
public:
    void put(T v) {
        {
            std::lock_guard l(m_);
            q_.push_back(v);
        }
        cv_.notify_one();
    }
    T take() {
        std::unique_lock l(m_);
        cv_.wait(l, [&] { return !q_.empty(); });
        T v = q_.front();
        q_.pop_front();
        return v;
    }

private:
    std::mutex m_;
    std::condition_variable cv_;
    std::deque<T> q_;
};

inline std::uint64_t pingpong(long n) {
    mailbox<msg> ping_box, pong_box;
    std::uint64_t sum = 0;
    std::thread pong([&] {
        for (;;) {
            msg m = pong_box.take();
            if (m.kind == k_exit) return;
            ping_box.put(msg{k_pong, 1, m.value});
        }
    });
    for (long i = 1; i <= n; ++i) {
        pong_box.put(msg{k_ping, 0, i});
        sum += std::uint64_t(ping_box.take().value);
    }
    pong_box.put(msg{k_exit, 0, 0});
    pong.join();
    return sum;
}

inline std::uint64_t counting(long n) {
    mailbox<msg> counter_box, reply;
    std::thread counter([&] {
        std::int64_t count = 0;
        for (;;) {
            msg m = counter_box.take();
            if (m.kind == k_incr) { count += m.value; continue; }
            reply.put(msg{k_done, 0, count});
            return;
        }
    });
    for (long i = 0; i < n; ++i) counter_box.put(msg{k_incr, 0, 1});
    counter_box.put(msg{k_query, 0, 0});
    std::uint64_t out = std::uint64_t(reply.take().value);
    counter.join();
    return out;
}

inline std::uint64_t thread_ring(long hops) {
    std::vector<mailbox<long>> ring(ring_nodes);
    std::vector<std::uint64_t> sums(ring_nodes, 0);
    std::vector<std::thread> ts;
    for (int k = 0; k < ring_nodes; ++k)
        ts.emplace_back([&, k] {
            mailbox<long>& next = ring[std::size_t((k + 1) % ring_nodes)];
            for (;;) {
                long t = ring[std::size_t(k)].take();
                if (t > 0) {
                    sums[std::size_t(k)] += std::uint64_t(k);
                    next.put(t - 1);
                    continue;
                }
                long origin = t == 0 ? k : -t - 1;
                if ((k + 1) % ring_nodes != origin) next.put(t == 0 ? -(k + 1) : t);
                return;
            }
        });
    ring[0].put(hops);
    for (auto& t : ts) t.join();
    std::uint64_t s = 0;
    for (auto x : sums) s += x;
    return s;
}

inline std::uint64_t throughput(long per) {
    std::vector<mailbox<long>> boxes(consumers);
    std::vector<double> acc(consumers, 0.0);
    std::vector<std::thread> ts;
    for (int a = 0; a < consumers; ++a)
        ts.emplace_back([&, a] {
            double s = 0;
            for (long i = 0; i < per; ++i) s += work(throughput_value(boxes[std::size_t(a)].take(), a));
            acc[std::size_t(a)] = s;
        });
    for (long i = 0; i < per; ++i)
        for (auto& b : boxes) b.put(i);
    for (auto& t : ts) t.join();
    double total = 0;
    for (double x : acc) total += x;
    return fp_checksum(total);
}

inline std::uint64_t chameneos(long meetings) {
    mailbox<msg> mall_box;
    std::vector<mailbox<msg>> boxes(creatures);
    std::vector<std::uint64_t> met(creatures, 0);
    std::vector<std::thread> ts;
    for (int i = 0; i < creatures; ++i)
        ts.emplace_back([&, i] {
            std::uint32_t colour = std::uint32_t(i % 3);
            for (;;) {
                mall_box.put(msg{k_meet, std::uint32_t(i), colour});
                msg m = boxes[std::size_t(i)].take();
                if (m.kind == k_exit) return;
                ++met[std::size_t(i)];
                colour = std::uint32_t(m.value);
            }
        });
    long held = 0;
    int waiting = -1, exited = 0;
    std::uint32_t waiting_colour = 0;
    while (exited < creatures) {
        msg m = mall_box.take();
        if (held == meetings) {
            boxes[m.from].put(msg{k_exit, 0, 0});
            ++exited;
            if (waiting >= 0) { boxes[std::size_t(waiting)].put(msg{k_exit, 0, 0}); ++exited; }
            waiting = -1;
        } else if (waiting < 0) {
            waiting = int(m.from);
            waiting_colour = std::uint32_t(m.value);
        } else {
            std::int64_t both = complement(waiting_colour, std::uint32_t(m.value));
            boxes[std::size_t(waiting)].put(msg{k_meet, m.from, both});
            boxes[m.from].put(msg{k_meet, std::uint32_t(waiting), both});
            waiting = -1;
            ++held;
        }
    }
    for (auto& t : ts) t.join();
    std::uint64_t s = 0;
    for (auto x : met) s += x;
    return s;
}

inline std::uint64_t big(long pings) {
    std::vector<mailbox<msg>> boxes(big_workers);
    mailbox<msg> sink;
    std::vector<std::uint64_t> pongs(big_workers, 0);
    std::vector<std::thread> ts;
    for (int w = 0; w < big_workers; ++w)
        ts.emplace_back([&, w] {
            partner_rng rng{w};
            long sent = 0;
            if (pings > 0) { boxes[std::size_t(rng.next(w))].put(msg{k_ping, std::uint32_t(w), 0}); sent = 1; }
            else sink.put(msg{k_done, std::uint32_t(w), 0});
            for (;;) {
                msg m = boxes[std::size_t(w)].take();
                if (m.kind == k_exit) return;
                if (m.kind == k_ping) { boxes[m.from].put(msg{k_pong, std::uint32_t(w), 0}); continue; }
                ++pongs[std::size_t(w)];
                if (sent < pings) { boxes[std::size_t(rng.next(w))].put(msg{k_ping, std::uint32_t(w), 0}); ++sent; }
                else sink.put(msg{k_done, std::uint32_t(w), 0});
            }
        });
    for (int d = 0; d < big_workers; ++d) (void)sink.take();
    for (auto& b : boxes) b.put(msg{k_exit, 0, 0});
    for (auto& t : ts) t.join();
    std::uint64_t s = 0;
    for (auto x : pongs) s += x;
    return s;
}

}  // namespace bench::rx::threads
