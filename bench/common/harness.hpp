// SPDX-License-Identifier: Apache-2.0
#pragma once
// Benchmark harness (shared/BENCH.md): runs a workload `runs` times, prints
// one JSON line with the median and p10/p90 of ns per operation, plus the
// heap allocations per run observed through the global operator new.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

namespace bench {

inline std::atomic<std::size_t> allocations{0};

struct options {
    bool quick = false;
    std::string only;  // run only this workload if set
    int runs(int full) const { return quick ? std::max(3, full / 5) : full; }
    bool wants(const char* w) const { return only.empty() || only == w; }
};

inline options parse(int argc, char** argv) {
    options o;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--quick")) o.quick = true;
        else o.only = argv[i];
    }
    return o;
}

inline const char* target() {
#if defined(__x86_64__)
    return "host-x86_64";
#else
    return "host";
#endif
}

inline double percentile(std::vector<double> v, double p) {
    std::sort(v.begin(), v.end());
    double idx = p * double(v.size() - 1);
    std::size_t lo = std::size_t(idx);
    std::size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (v[hi] - v[lo]) * (idx - double(lo));
}

/// Prints one result line.
inline void report(const char* suite, const char* workload, const char* system, const char* unit,
                   const std::vector<double>& per_op, long long ops_per_run, double allocs_per_run,
                   const char* extra = "") {
    std::printf("{\"suite\":\"%s\",\"workload\":\"%s\",\"system\":\"%s\",\"target\":\"%s\","
                "\"unit\":\"%s\",\"median\":%.3f,\"p10\":%.3f,\"p90\":%.3f,\"runs\":%zu,"
                "\"ops_per_run\":%lld,\"allocs_per_run\":%.1f%s}\n",
                suite, workload, system, target(), unit, percentile(per_op, 0.5),
                percentile(per_op, 0.1), percentile(per_op, 0.9), per_op.size(), ops_per_run,
                allocs_per_run, extra);
    std::fflush(stdout);
}

/// Times `body()` (which performs `ops` operations) `runs` times, after one
/// warm-up run, and reports ns per operation.
template <class Body>
void measure(const char* suite, const char* workload, const char* system, int runs, long long ops,
             Body&& body, const char* extra = "") {
    std::fprintf(stderr, "  %-22s %-16s ...\n", workload, system);
    body();  // warm-up
    std::vector<double> per_op;
    std::size_t allocs = 0;
    for (int r = 0; r < runs; ++r) {
        std::size_t a0 = allocations.load(std::memory_order_relaxed);
        auto t0 = std::chrono::steady_clock::now();
        body();
        auto t1 = std::chrono::steady_clock::now();
        allocs += allocations.load(std::memory_order_relaxed) - a0;
        per_op.push_back(double(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count()) /
                         double(ops));
    }
    report(suite, workload, system, "ns/op", per_op, ops, double(allocs) / runs, extra);
}

}  // namespace bench

// Count every heap allocation in the benchmark process.
void* operator new(std::size_t n) {
    bench::allocations.fetch_add(1, std::memory_order_relaxed);
    if (void* p = std::malloc(n ? n : 1)) return p;
    std::abort();
}
void* operator new[](std::size_t n) { return operator new(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
