// SPDX-License-Identifier: Apache-2.0
#pragma once
// Timing and reporting for the reactor suite (shared/BENCH.md): one JSON
// line per (workload, system) with the wall-clock median, p10 and p90 of
// ns per operation, the process CPU time per operation (on a shared,
// loaded host the wall clock also counts time spent descheduled), the heap
// allocations per run, and the run's checksum with whether it matched.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <new>
#include <vector>

namespace bench::rx {

inline std::atomic<std::uint64_t> allocations{0};

/// Set when a run's checksum differed: bench_reactor then exits with 1, so
/// that bench/run reactor fails instead of reporting a fast nothing.
inline bool failed = false;

inline double cpu_ns() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e9 + double(ts.tv_nsec);
}

inline double quantile(std::vector<double> v, double q) {
    std::sort(v.begin(), v.end());
    double at = q * double(v.size() - 1);
    std::size_t lo = std::size_t(at), hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (v[hi] - v[lo]) * (at - double(lo));
}

/// Runs `body` (which performs `ops` operations and returns its checksum)
/// once to warm up, then `runs` times; prints one line.
template <class Body>
void measure(const char* workload, const char* system, int runs, long ops, std::uint64_t expect,
             Body&& body, const char* extra = "") {
    std::fprintf(stderr, "  %-16s %-12s%s\n", workload, system, extra);
    bool ok = body() == expect;
    std::vector<double> wall, cpu;
    std::uint64_t allocs = 0, sum = 0;
    for (int r = 0; r < runs; ++r) {
        std::uint64_t a0 = allocations.load(std::memory_order_relaxed);
        double c0 = cpu_ns();
        auto t0 = std::chrono::steady_clock::now();
        sum = body();
        auto t1 = std::chrono::steady_clock::now();
        double c1 = cpu_ns();
        allocs += allocations.load(std::memory_order_relaxed) - a0;
        ok = ok && sum == expect;
        wall.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / double(ops));
        cpu.push_back((c1 - c0) / double(ops));
    }
    if (!ok) {
        std::fprintf(stderr, "  %s/%s: checksum %llu, expected %llu\n", workload, system,
                     (unsigned long long)sum, (unsigned long long)expect);
        failed = true;
    }
    std::printf("{\"suite\":\"reactor\",\"workload\":\"%s\",\"system\":\"%s\",\"target\":\"host-x86_64\","
                "\"unit\":\"ns/op\",\"median\":%.2f,\"p10\":%.2f,\"p90\":%.2f,\"cpu_median\":%.2f,"
                "\"runs\":%d,\"ops_per_run\":%ld,\"allocs_per_run\":%.1f,\"checksum\":%llu,\"ok\":%s%s}\n",
                workload, system, quantile(wall, 0.5), quantile(wall, 0.1), quantile(wall, 0.9),
                quantile(cpu, 0.5), runs, ops, double(allocs) / runs, (unsigned long long)sum,
                ok ? "true" : "false", extra);
    std::fflush(stdout);
}

}  // namespace bench::rx

// Count every heap allocation of the process (weft's runs must show 0).
void* operator new(std::size_t n) {
    bench::rx::allocations.fetch_add(1, std::memory_order_relaxed);
    if (void* p = std::malloc(n ? n : 1)) return p;
    std::abort();
}
void* operator new[](std::size_t n) { return operator new(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
