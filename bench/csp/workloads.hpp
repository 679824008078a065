// SPDX-License-Identifier: Apache-2.0
#pragma once
// The csp workloads, defined once so that every system runs the same work:
// sizes, message layout, the floating-point work of Throughput and the
// checksum each run must produce. bench/peers/embassy/src/main.rs mirrors
// these numbers (keep the two in step; the checksums catch a mismatch).
#include <cmath>
#include <cstdint>

namespace bench::csp {

/// One message of the Savina workloads: actors' mailboxes become channels.
struct msg {
    std::uint32_t kind = 0;   ///< workload-specific tag (ping, pong, exit, ...)
    std::uint32_t from = 0;   ///< sender's index, for replies
    std::int64_t value = 0;
};

/// Sizes of one run. Every system uses the same instance (full or quick).
struct sizes {
    long pingpong_msgs;      ///< pingpong_rendezvous: messages (2 per round trip)
    long buffered_msgs;      ///< throughput_buffered: 1 producer -> 1 consumer, 64 slots
    long choose_msgs;        ///< choose_8: total over the 8 producers
    long savina_pings;       ///< PingPong: pings (each answered by a pong)
    long counting_n;         ///< Counting: increments before the query
    int ring_nodes;          ///< ThreadRing: processes in the ring
    long ring_hops;          ///< ThreadRing: token passes
    int throughput_actors;   ///< Throughput: consumers
    long throughput_per;     ///< Throughput: messages per consumer
    int chameneos;           ///< Chameneos: creatures
    long meetings;           ///< Chameneos: meetings before the mall closes
    int big_workers;         ///< Big: workers
    long big_pings;          ///< Big: pings each worker sends (each answered)
};

// Savina's defaults where a run stays short enough for std_thread on a
// shared 2-core host (ThreadRing, Chameneos and Big are scaled down; the
// shapes are unchanged).
inline constexpr sizes full{40'000, 1'000'000, 200'000, 40'000, 1'000'000, 100, 20'000,
                            60,     10'000,    100,     20'000, 120,       500};
inline constexpr sizes quick{10'000, 200'000, 40'000, 10'000, 200'000, 100, 5'000,
                             60,     2'000,   100,    5'000,  120,     100};

inline constexpr int buffered_capacity = 64;     // throughput_buffered, Counting, Throughput mailboxes
inline constexpr int choose_fanin = 8;

// Message kinds.
inline constexpr std::uint32_t k_ping = 1, k_pong = 2, k_stop = 3, k_incr = 4, k_query = 5,
                               k_meet = 6, k_change = 7, k_exit = 8, k_done = 9;

/// Savina Throughput's per-message work (its performComputation: sin(theta)^2),
/// with theta varied by the message so that nothing is hoisted out.
inline double throughput_work(std::int64_t i) {
    double s = std::sin(37.2 + double(i % 64) * 0.001);
    return s * s;
}
/// Folds each consumer's sum (summed in message order, consumers in index
/// order) into an integer checksum.
inline std::uint64_t fp_checksum(double total) { return std::uint64_t(std::llround(total * 1000.0)); }

/// Chameneos colours (0 blue, 1 red, 2 yellow) and the complement rule.
inline std::uint32_t complement(std::uint32_t a, std::uint32_t b) { return a == b ? a : 3 - a - b; }

/// Big: each worker's deterministic choice of partner (xorshift, seeded by index).
struct partner_rng {
    std::uint64_t s;
    explicit partner_rng(int worker) : s(0x9e3779b97f4a7c15ull * std::uint64_t(worker + 1)) {}
    int next(int self, int workers) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        int p = int(s % std::uint64_t(workers - 1));
        return p >= self ? p + 1 : p;  // never itself
    }
};

// Expected checksums (a run that did not do the work cannot match them).
inline std::uint64_t sum_to(long n) { return std::uint64_t(n) * std::uint64_t(n + 1) / 2; }
inline std::uint64_t expect_pingpong(const sizes& z) { return sum_to(z.pingpong_msgs / 2); }
inline std::uint64_t expect_buffered(const sizes& z) { return sum_to(z.buffered_msgs - 1); }
inline std::uint64_t expect_choose(const sizes& z) { return sum_to(z.choose_msgs - 1); }
inline std::uint64_t expect_savina_pingpong(const sizes& z) { return sum_to(z.savina_pings); }
inline std::uint64_t expect_counting(const sizes& z) { return std::uint64_t(z.counting_n); }
/// ThreadRing: each node adds its index per pass; the token visits nodes 0, 1, ... in turn.
inline std::uint64_t expect_ring(const sizes& z) {
    std::uint64_t s = 0;
    for (long h = 0; h < z.ring_hops; ++h) s += std::uint64_t(h % z.ring_nodes);
    return s;
}
inline std::uint64_t expect_throughput(const sizes& z) {
    double total = 0;
    for (int a = 0; a < z.throughput_actors; ++a) {
        double s = 0;
        for (long i = 0; i < z.throughput_per; ++i) s += throughput_work(i * z.throughput_actors + a);
        total += s;
    }
    return fp_checksum(total);
}
inline std::uint64_t expect_chameneos(const sizes& z) { return std::uint64_t(2 * z.meetings); }
inline std::uint64_t expect_big(const sizes& z) { return std::uint64_t(z.big_workers) * std::uint64_t(z.big_pings); }

}  // namespace bench::csp
