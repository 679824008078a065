// SPDX-License-Identifier: Apache-2.0
// Peer: the csp workloads on std::thread with mutex/condvar channels.
#include "common.hpp"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

namespace {

/// Bounded channel; cap 0 = rendezvous (send waits until the value is taken).
template <class T>
class chan {
public:
    explicit chan(std::size_t cap = 0) : cap_(cap) {}
    void send(T v) {
        std::unique_lock l(m_);
        not_full_.wait(l, [&] { return q_.size() < (cap_ ? cap_ : 1); });
        q_.push_back(v);
        std::uint64_t my = ++pushed_;
        not_empty_.notify_one();
        if (cap_ == 0) taken_cv_.wait(l, [&] { return taken_ >= my; });
    }
    T recv() {
        std::unique_lock l(m_);
        not_empty_.wait(l, [&] { return !q_.empty(); });
        T v = q_.front();
        q_.pop_front();
        ++taken_;
        not_full_.notify_one();
        if (cap_ == 0) taken_cv_.notify_all();
        return v;
    }

private:
    std::size_t cap_;
    std::mutex m_;
    std::condition_variable not_full_, not_empty_, taken_cv_;
    std::deque<T> q_;
    std::uint64_t pushed_ = 0, taken_ = 0;
};

void pingpong(long msgs) {
    chan<int> ping, pong;
    std::thread a([&] { for (long i = 0; i < msgs / 2; ++i) { ping.send(1); pong.recv(); } });
    std::thread b([&] { for (long i = 0; i < msgs / 2; ++i) { ping.recv(); pong.send(1); } });
    a.join();
    b.join();
}

void buffered(long msgs) {
    chan<long> ch(64);
    long sum = 0;
    std::thread p([&] { for (long i = 0; i < msgs; ++i) ch.send(i); });
    std::thread c([&] { for (long i = 0; i < msgs; ++i) sum += ch.recv(); });
    p.join();
    c.join();
    if (sum < 0) std::puts("");
}

void thread_ring(long hops) {
    constexpr int n = 64;
    std::vector<chan<long>> ring(n);
    std::vector<std::thread> ts;
    for (int k = 0; k < n; ++k)
        ts.emplace_back([&, k] {
            for (;;) {
                long t = ring[k].recv();
                if (t <= 0) { if (t == 0) for (int j = 0; j < n; ++j) if (j != k) ring[j].send(-1); return; }
                ring[(k + 1) % n].send(t - 1);
            }
        });
    ring[0].send(hops);
    for (auto& t : ts) t.join();
}

}  // namespace

int main(int argc, char** argv) {
    bool q = bench::quick(argc, argv);
    int runs = q ? 3 : 7;
    long ops = q ? 4'000 : 20'000;  // ~50 us per rendezvous message: keep runs short
    bench::measure("pingpong_rendezvous", "std_thread", ops, runs, pingpong);
    bench::measure("savina_pingpong", "std_thread", ops, runs, pingpong);
    bench::measure("throughput_buffered", "std_thread", ops * 5, runs, buffered);
    bench::measure("savina_counting", "std_thread", ops * 5, runs, buffered);
    bench::measure("savina_threadring", "std_thread", ops / 4, runs, thread_ring);
}
