// SPDX-License-Identifier: Apache-2.0
#pragma once
// The csp workloads written once for the blocking-style peers (std_thread,
// boost_fiber), which differ only in their channel types and in what runs
// a process (a thread or a fiber). `R` provides:
//   R::rendezvous<T>            default-constructible; send(T), T recv()
//   R::buffered<T>              constructed with a capacity; send(T), T recv()
//   R::group                    spawn(f) starts a process; join() waits for all
// The shapes mirror weft_bench.cpp line by line (same messages, same order).
#include "common.hpp"

#include <deque>

namespace bench::csp {

template <class R>
struct peer_workloads {
    template <class T> using rendezvous = typename R::template rendezvous<T>;
    template <class T> using buffered = typename R::template buffered<T>;
    using group = typename R::group;

    static std::uint64_t pingpong(const sizes& z) {
        rendezvous<long> ping, pong;
        std::uint64_t sum = 0;
        long n = z.pingpong_msgs / 2;
        group g;
        g.spawn([&] { for (long i = 1; i <= n; ++i) { ping.send(i); sum += std::uint64_t(pong.recv()); } });
        g.spawn([&] { for (long i = 0; i < n; ++i) pong.send(ping.recv()); });
        g.join();
        return sum;
    }

    static std::uint64_t buffered_1to1(const sizes& z) {
        buffered<long> ch(buffered_capacity);
        std::uint64_t sum = 0;
        long n = z.buffered_msgs;
        group g;
        g.spawn([&] { for (long i = 0; i < n; ++i) ch.send(i); });
        g.spawn([&] { for (long i = 0; i < n; ++i) sum += std::uint64_t(ch.recv()); });
        g.join();
        return sum;
    }

    static std::uint64_t savina_pingpong(const sizes& z) {
        buffered<msg> ping(1), pong(1);
        std::uint64_t sum = 0;
        long n = z.savina_pings;
        group g;
        g.spawn([&] {
            for (long i = 1; i <= n; ++i) {
                pong.send(msg{k_ping, 0, i});
                sum += std::uint64_t(ping.recv().value);
            }
            pong.send(msg{k_stop, 0, 0});
        });
        g.spawn([&] {
            for (;;) {
                msg m = pong.recv();
                if (m.kind == k_stop) return;
                ping.send(msg{k_pong, 1, m.value});
            }
        });
        g.join();
        return sum;
    }

    static std::uint64_t counting(const sizes& z) {
        buffered<msg> box(buffered_capacity), reply(1);
        std::uint64_t out = 0;
        long n = z.counting_n;
        group g;
        g.spawn([&] {
            std::int64_t count = 0;
            for (;;) {
                msg m = box.recv();
                if (m.kind == k_incr) { ++count; continue; }
                reply.send(msg{k_done, 0, count});
                return;
            }
        });
        g.spawn([&] {
            for (long i = 0; i < n; ++i) box.send(msg{k_incr, 0, 1});
            box.send(msg{k_query, 0, 0});
            out = std::uint64_t(reply.recv().value);
        });
        g.join();
        return out;
    }

    static std::uint64_t thread_ring(const sizes& z) {
        const int n = z.ring_nodes;
        std::deque<rendezvous<long>> ring(static_cast<std::size_t>(n));
        std::deque<std::uint64_t> sums(std::size_t(n), 0);
        group g;
        for (int k = 0; k < n; ++k)
            g.spawn([&, k] {
                rendezvous<long>& next = ring[std::size_t((k + 1) % n)];
                for (;;) {
                    long t = ring[std::size_t(k)].recv();
                    if (t > 0) {
                        sums[std::size_t(k)] += std::uint64_t(k);
                        next.send(t - 1);
                        continue;
                    }
                    long origin = t == 0 ? k : -t - 1;
                    if ((k + 1) % n != origin) next.send(t == 0 ? -(k + 1) : t);
                    return;
                }
            });
        ring[0].send(z.ring_hops);
        g.join();
        std::uint64_t s = 0;
        for (auto v : sums) s += v;
        return s;
    }

    static std::uint64_t throughput(const sizes& z) {
        const int actors = z.throughput_actors;
        const long per = z.throughput_per;
        std::deque<buffered<msg>> box;
        for (int a = 0; a < actors; ++a) box.emplace_back(buffered_capacity);
        std::deque<double> sums(std::size_t(actors), 0.0);
        group g;
        for (int a = 0; a < actors; ++a)
            g.spawn([&, a] {
                double s = 0;
                for (long i = 0; i < per; ++i) s += throughput_work(box[std::size_t(a)].recv().value);
                sums[std::size_t(a)] = s;
            });
        g.spawn([&] {
            for (long i = 0; i < per; ++i)
                for (int a = 0; a < actors; ++a) box[std::size_t(a)].send(msg{0, 0, i * actors + a});
        });
        g.join();
        double total = 0;
        for (double s : sums) total += s;
        return fp_checksum(total);
    }

    static std::uint64_t chameneos(const sizes& z) {
        const int creatures = z.chameneos;
        const long meetings = z.meetings;
        buffered<msg> mall(static_cast<std::size_t>(creatures));
        std::deque<buffered<msg>> box;
        for (int i = 0; i < creatures; ++i) box.emplace_back(1);
        std::uint64_t sum = 0;
        group g;
        g.spawn([&] {
            long held = 0;
            int waiting = -1, done = 0;
            while (done < creatures) {
                msg m = mall.recv();
                if (m.kind == k_done) { sum += std::uint64_t(m.value); ++done; continue; }
                if (held == meetings) {
                    box[m.from].send(msg{k_exit, 0, 0});
                    if (waiting >= 0) box[std::size_t(waiting)].send(msg{k_exit, 0, 0});
                    waiting = -1;
                } else if (waiting < 0) {
                    waiting = int(m.from);
                } else {
                    box[std::size_t(waiting)].send(msg{k_meet, m.from, m.value});
                    waiting = -1;
                    ++held;
                }
            }
        });
        for (int i = 0; i < creatures; ++i)
            g.spawn([&, i] {
                std::uint32_t colour = std::uint32_t(i % 3);
                std::int64_t met = 0;
                for (;;) {
                    mall.send(msg{k_meet, std::uint32_t(i), colour});
                    msg m = box[std::size_t(i)].recv();
                    if (m.kind == k_exit) break;
                    ++met;
                    if (m.kind == k_meet) {
                        colour = complement(colour, std::uint32_t(m.value));
                        box[m.from].send(msg{k_change, std::uint32_t(i), colour});
                    } else {
                        colour = std::uint32_t(m.value);
                    }
                }
                mall.send(msg{k_done, std::uint32_t(i), met});
            });
        g.join();
        return sum;
    }

    static std::uint64_t big(const sizes& z) {
        const int workers = z.big_workers;
        const long pings = z.big_pings;
        std::deque<buffered<msg>> box;
        for (int i = 0; i < workers; ++i) box.emplace_back(std::size_t(workers + 1));
        buffered<msg> sink(static_cast<std::size_t>(workers));
        std::uint64_t sum = 0;
        group g;
        for (int self = 0; self < workers; ++self)
            g.spawn([&, self] {
                partner_rng rng{self};
                long sent = 1;
                std::int64_t pongs = 0;
                box[std::size_t(rng.next(self, workers))].send(msg{k_ping, std::uint32_t(self), 0});
                for (;;) {
                    msg m = box[std::size_t(self)].recv();
                    if (m.kind == k_ping) {
                        box[m.from].send(msg{k_pong, std::uint32_t(self), 0});
                    } else if (m.kind == k_pong) {
                        ++pongs;
                        if (sent < pings) {
                            ++sent;
                            box[std::size_t(rng.next(self, workers))].send(msg{k_ping, std::uint32_t(self), 0});
                        } else {
                            sink.send(msg{k_done, std::uint32_t(self), pongs});
                        }
                    } else {
                        return;
                    }
                }
            });
        g.spawn([&] {
            for (int i = 0; i < workers; ++i) sum += std::uint64_t(sink.recv().value);
            for (int i = 0; i < workers; ++i) box[std::size_t(i)].send(msg{k_exit, 0, 0});
        });
        g.join();
        return sum;
    }
};

}  // namespace bench::csp
