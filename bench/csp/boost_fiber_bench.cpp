// SPDX-License-Identifier: Apache-2.0
// Peer: the csp workloads on Boost.Fiber: fibers on one thread (the default
// round-robin scheduler) and its unbuffered/buffered channels
// (peer_workloads.hpp holds the work).
#include "peer_workloads.hpp"

#include <boost/fiber/all.hpp>

#include <cstddef>
#include <vector>

namespace {
namespace bf = boost::fibers;

// buffered_channel needs a power-of-two size and holds one value less:
// round up so that it holds at least the capacity the workload asks for.
inline std::size_t ring_for(std::size_t cap) {
    std::size_t r = 2;
    while (r < cap + 1) r *= 2;
    return r;
}

struct fibers {
    template <class T> struct rendezvous {
        bf::unbuffered_channel<T> c;
        void send(T v) { c.push(v); }
        T recv() { T v; c.pop(v); return v; }
    };
    template <class T> struct buffered {
        bf::buffered_channel<T> c;
        explicit buffered(std::size_t cap) : c(ring_for(cap)) {}
        void send(T v) { c.push(v); }
        T recv() { T v; c.pop(v); return v; }
    };
    struct group {
        std::vector<bf::fiber> fs;
        template <class F> void spawn(F f) { fs.emplace_back(std::move(f)); }
        void join() { for (auto& f : fs) f.join(); }
    };
};

struct boost_fiber_system : bench::csp::peer_workloads<fibers> {
    static constexpr const char* why_no_choose =
        "Boost.Fiber channels have no select over several channels";
};

}  // namespace

int main(int argc, char** argv) {
    bench::config cfg = bench::parse(argc, argv);
    bench::run_suite<boost_fiber_system>(cfg, "boost_fiber", cfg.quick ? 7 : 21);
    return bench::exit_status();
}
