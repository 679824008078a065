// SPDX-License-Identifier: Apache-2.0
// Peer: the csp workloads on std::thread, one thread per process, with
// mutex/condition-variable channels (peer_workloads.hpp holds the work).
#include "peer_workloads.hpp"

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

namespace {

/// Bounded channel; capacity 0 = rendezvous (send returns once the value is taken).
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

struct threads {
    template <class T> struct rendezvous : chan<T> { rendezvous() : chan<T>(0) {} };
    template <class T> struct buffered : chan<T> { explicit buffered(std::size_t cap) : chan<T>(cap) {} };
    struct group {
        std::vector<std::thread> ts;
        template <class F> void spawn(F f) { ts.emplace_back(std::move(f)); }
        void join() { for (auto& t : ts) t.join(); }
    };
};

struct std_thread_system : bench::csp::peer_workloads<threads> {
    static constexpr const char* why_no_choose =
        "std::thread has no selective receive over several channels";
};

}  // namespace

int main(int argc, char** argv) {
    bench::config cfg = bench::parse(argc, argv);
    // A rendezvous costs a thread microseconds: fewer runs, same work per run.
    bench::run_suite<std_thread_system>(cfg, "std_thread", cfg.quick ? 3 : 7);
    return bench::exit_status();
}
