// SPDX-License-Identifier: Apache-2.0
// bench/run core — the peers, on the same workloads as core_bench.cpp:
// std_thread (mutex + condition variable), and the switching workloads of
// peer_runs.cpp (boost_context, boost_coroutine2) and bare_runs.cpp (bare
// C++20 coroutines), shared with core_paired. Built with exceptions on, as
// these libraries expect.
#include <condition_variable>
#include <mutex>
#include <thread>

#include "measure_runs.hpp"

namespace {
constexpr const char* suite = "core";

void std_thread_yield_roundtrip(const bench::options& o) {
    const long n = 100'000;  // round trips; 2n switches
    bench::measure(suite, "yield_roundtrip", "std_thread", o.runs(7), 2 * n, [&] {
        std::mutex m;
        std::condition_variable cv;
        int turn = 0;
        std::thread other([&] {
            for (long i = 0; i < n; ++i) {
                std::unique_lock<std::mutex> lk(m);
                cv.wait(lk, [&] { return turn == 1; });
                turn = 0;
                cv.notify_one();
            }
        });
        for (long i = 0; i < n; ++i) {
            std::unique_lock<std::mutex> lk(m);
            turn = 1;
            cv.notify_one();
            cv.wait(lk, [&] { return turn == 0; });
        }
        other.join();
    });
}

void spawn_complete(const bench::options& o) {
    const long n = 20'000;
    bench::measure(suite, "spawn_complete", "std_thread", o.runs(7), n, [&] {
        for (long i = 0; i < n; ++i) {
            std::thread t([] {});
            t.join();
        }
    });
}

}  // namespace

int main(int argc, char** argv) {
    auto o = bench::parse(argc, argv);
    if (o.wants("yield_roundtrip")) std_thread_yield_roundtrip(o);
    const bench::core::fringe_trees trees;
    bench::core::measure_runs(o, bench::core::peer_runs(), trees.inputs());
    bench::core::measure_runs(o, bench::core::bare_runs(), trees.inputs());
    if (o.wants("spawn_complete")) spawn_complete(o);
}
