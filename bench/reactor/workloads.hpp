// SPDX-License-Identifier: Apache-2.0
#pragma once
// The reactor suite's workloads, defined once so that every system (weft
// reactors, weft channels, std_thread) does the same work: sizes, the
// message layout, Throughput's floating-point work and the checksum each
// run must produce. A run whose checksum differs did not do the work, and
// the harness marks it ("ok":false) instead of reporting a fast nothing.
#include <cmath>
#include <cstdint>

namespace bench::rx {

struct sizes {
    long tags;             ///< tag_advance: tags (one timer, one reaction)
    long chain_tags;       ///< reaction_switch: tags through the chain
    long pingpong;         ///< PingPong: round trips
    long counting;         ///< Counting: increments before the query
    long ring_hops;        ///< ThreadRing: token passes
    long throughput_per;   ///< Throughput: messages (each to every consumer)
    long meetings;         ///< Chameneos: meetings before the mall closes
    long big_pings;        ///< Big: pings each worker sends (each answered)
};

inline constexpr int chain_len = 1000;   // reaction_switch: relays in the chain
inline constexpr int ring_nodes = 100;   // ThreadRing
inline constexpr int consumers = 60;     // Throughput (Savina's default actor count)
inline constexpr int creatures = 100;    // Chameneos
inline constexpr int big_workers = 32;   // Big (a full mesh of ports on reactors)

// The std_thread peers hand every message between OS threads, so the full
// sizes stay at what one such run does in about a second on a 2-core host.
inline constexpr sizes full{10'000'000, 10'000, 100'000, 1'000'000, 20'000, 10'000, 20'000, 500};
inline constexpr sizes quick{1'000'000, 2'000, 20'000, 200'000, 5'000, 2'000, 5'000, 100};

/// Message of the actor-style workloads (a mailbox entry).
struct msg {
    std::uint32_t kind = 0;
    std::uint32_t from = 0;
    std::int64_t value = 0;
};
inline constexpr std::uint32_t k_incr = 1, k_query = 2, k_ping = 3, k_pong = 4, k_meet = 5,
                               k_exit = 6, k_done = 7;

/// Throughput: each consumer's work per message (heavy enough that a level
/// of 60 consumers is worth sharing between workers: ~1 us each).
inline double work(std::int64_t i) {
    double x = double(i), s = 0;
    for (int k = 0; k < 40; ++k) s += std::sqrt(x + k) * std::sin(x * 0.5 + k);
    return s;
}
/// Consumer `a` gets message value i * consumers + a (all systems).
inline std::int64_t throughput_value(long i, int a) { return std::int64_t(i) * consumers + a; }
inline std::uint64_t fp_checksum(double total) { return std::uint64_t(std::llround(total * 1000.0)); }

/// Chameneos colours (0, 1, 2): two creatures that meet both take the complement.
inline std::uint32_t complement(std::uint32_t a, std::uint32_t b) { return a == b ? a : 3 - a - b; }

/// Big: each worker's deterministic sequence of partners (xorshift seeded by index).
struct partner_rng {
    std::uint64_t s;
    explicit partner_rng(int worker) : s(0x9e3779b97f4a7c15ull * std::uint64_t(worker + 1)) {}
    int next(int self) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        int p = int(s % std::uint64_t(big_workers - 1));
        return p >= self ? p + 1 : p;
    }
};

// Expected checksums.
inline std::uint64_t sum_to(long n) { return std::uint64_t(n) * std::uint64_t(n + 1) / 2; }
inline std::uint64_t expect_tags(const sizes& z) { return std::uint64_t(z.tags); }
inline std::uint64_t expect_chain(const sizes& z) { return std::uint64_t(z.chain_tags) * chain_len; }
inline std::uint64_t expect_pingpong(const sizes& z) { return sum_to(z.pingpong); }
inline std::uint64_t expect_counting(const sizes& z) { return std::uint64_t(z.counting); }
/// The token starts at node 0 with ring_hops; the holder adds its index and passes it on.
inline std::uint64_t expect_ring(const sizes& z) {
    std::uint64_t s = 0;
    for (long h = 0; h < z.ring_hops; ++h) s += std::uint64_t(h % ring_nodes);
    return s;
}
/// Each consumer sums its messages in order; consumers are added in index order.
inline std::uint64_t expect_throughput(const sizes& z) {
    double total = 0;
    for (int a = 0; a < consumers; ++a) {
        double s = 0;
        for (long i = 0; i < z.throughput_per; ++i) s += work(throughput_value(i, a));
        total += s;
    }
    return fp_checksum(total);
}
inline std::uint64_t expect_chameneos(const sizes& z) { return std::uint64_t(2 * z.meetings); }
inline std::uint64_t expect_big(const sizes& z) { return std::uint64_t(big_workers) * std::uint64_t(z.big_pings); }

}  // namespace bench::rx
