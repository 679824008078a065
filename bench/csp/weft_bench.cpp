// SPDX-License-Identifier: Apache-2.0
// The csp workloads on weft (one executor, one thread).
#include "common.hpp"

#include <weft/core.hpp>
#include <weft/csp.hpp>

using namespace weft;
using namespace weft::csp;

namespace {
frame_pool<1024, 128> frames{"bench"};

template <class Make>
void run_tasks(Make&& make) {
    executor ex{{"bench", clock_mode::real}};
    make(ex);
    ex.run();
}

// pingpong_rendezvous / Savina PingPong: ping sends, pong replies; ns per message.
void pingpong(long msgs) {
    channel<int> ping{"ping"}, pong{"pong"};
    run_tasks([&](executor& ex) {
        auto a = [&](long n) -> task<> { for (long i = 0; i < n; ++i) { (void)co_await send(ping, 1); (void)co_await recv(pong); } };
        auto b = [&](long n) -> task<> { for (long i = 0; i < n; ++i) { (void)co_await recv(ping); (void)co_await send(pong, 1); } };
        (void)ex.spawn(a(msgs / 2));
        (void)ex.spawn(b(msgs / 2));
    });
}

// throughput_buffered / Savina Counting: one producer, one consumer, N=64.
void buffered(long msgs) {
    channel<long, 64> ch{"count"};
    long sum = 0;
    run_tasks([&](executor& ex) {
        auto p = [&](long n) -> task<> { for (long i = 0; i < n; ++i) (void)co_await send(ch, i); };
        auto c = [&](long n) -> task<> { for (long i = 0; i < n; ++i) sum += *co_await recv(ch); };
        (void)ex.spawn(p(msgs));
        (void)ex.spawn(c(msgs));
    });
    if (sum < 0) std::puts("");
}

// choose_8: a consumer receives from the first ready of 8 rendezvous channels.
void choose8(long msgs) {
    channel<int> ch[8] = {channel<int>{"c0"}, channel<int>{"c1"}, channel<int>{"c2"}, channel<int>{"c3"},
                          channel<int>{"c4"}, channel<int>{"c5"}, channel<int>{"c6"}, channel<int>{"c7"}};
    run_tasks([&](executor& ex) {
        auto p = [&](int k, long n) -> task<> { for (long i = 0; i < n; ++i) (void)co_await send(ch[k], k); };
        auto c = [&](long n) -> task<> {
            for (long i = 0; i < n; ++i)
                (void)co_await choose(recv(ch[0]), recv(ch[1]), recv(ch[2]), recv(ch[3]),
                                      recv(ch[4]), recv(ch[5]), recv(ch[6]), recv(ch[7]));
        };
        for (int k = 0; k < 8; ++k) (void)ex.spawn(p(k, msgs / 8));
        (void)ex.spawn(c(msgs / 8 * 8));
    });
}

// Savina ThreadRing: a token passes `hops` times around a ring of 64 tasks.
void thread_ring(long hops) {
    constexpr int n = 64;
    static channel<long> ring[n];
    run_tasks([&](executor& ex) {
        auto node = [&](int k) -> task<> {
            for (;;) {
                long t = *co_await recv(ring[k]);
                if (t <= 0) { if (t == 0) for (int j = 0; j < n; ++j) if (j != k) (void)ring[j].try_send(-1); co_return; }
                (void)co_await send(ring[(k + 1) % n], t - 1);
            }
        };
        auto start = [&](long h) -> task<> { (void)co_await send(ring[0], h); };
        for (int k = 0; k < n; ++k) (void)ex.spawn(node(k));
        (void)ex.spawn(start(hops));
    });
}
}  // namespace

int main(int argc, char** argv) {
    bool q = bench::quick(argc, argv);
    int runs = q ? 5 : 15;
    long ops = q ? 200'000 : 2'000'000;
    bench::measure("pingpong_rendezvous", "weft", ops, runs, pingpong);
    bench::measure("savina_pingpong", "weft", ops, runs, pingpong);
    bench::measure("throughput_buffered", "weft", ops, runs, buffered);
    bench::measure("savina_counting", "weft", ops, runs, buffered);
    bench::measure("choose_8", "weft", ops, runs, choose8);
    bench::measure("savina_threadring", "weft", ops, runs, thread_ring);
}
