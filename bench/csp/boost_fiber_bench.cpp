// SPDX-License-Identifier: Apache-2.0
// Peer: the csp workloads on Boost.Fiber (one thread, fibers, its channels).
#include "common.hpp"

#include <boost/fiber/all.hpp>

#include <vector>

namespace {
namespace bf = boost::fibers;

void pingpong(long msgs) {
    bf::unbuffered_channel<int> ping, pong;
    bf::fiber a([&] { for (long i = 0; i < msgs / 2; ++i) { ping.push(1); int v; pong.pop(v); } });
    bf::fiber b([&] { for (long i = 0; i < msgs / 2; ++i) { int v; ping.pop(v); pong.push(1); } });
    a.join();
    b.join();
}

void buffered(long msgs) {
    bf::buffered_channel<long> ch(64);
    long sum = 0;
    bf::fiber p([&] { for (long i = 0; i < msgs; ++i) ch.push(i); });
    bf::fiber c([&] { for (long i = 0; i < msgs; ++i) { long v; ch.pop(v); sum += v; } });
    p.join();
    c.join();
    if (sum < 0) std::puts("");
}

void thread_ring(long hops) {
    constexpr int n = 64;
    std::vector<bf::unbuffered_channel<long>> ring(n);
    std::vector<bf::fiber> fs;
    for (int k = 0; k < n; ++k)
        fs.emplace_back([&, k] {
            for (;;) {
                long t;
                ring[k].pop(t);
                if (t <= 0) { if (t == 0) for (int j = 0; j < n; ++j) if (j != k) ring[j].push(-1); return; }
                ring[(k + 1) % n].push(t - 1);
            }
        });
    ring[0].push(hops);
    for (auto& f : fs) f.join();
}

}  // namespace

int main(int argc, char** argv) {
    bool q = bench::quick(argc, argv);
    int runs = q ? 5 : 15;
    long ops = q ? 100'000 : 1'000'000;
    bench::measure("pingpong_rendezvous", "boost_fiber", ops, runs, pingpong);
    bench::measure("savina_pingpong", "boost_fiber", ops, runs, pingpong);
    bench::measure("throughput_buffered", "boost_fiber", ops, runs, buffered);
    bench::measure("savina_counting", "boost_fiber", ops, runs, buffered);
    bench::measure("savina_threadring", "boost_fiber", ops, runs, thread_ring);
}
