// SPDX-License-Identifier: Apache-2.0
#pragma once
// Auto-tuning of an interleaved kernel: choose the lane count and step size
// so that the active set (lanes x bytes per step, seed 000 §4.3.3) sits where
// the measured speed-up peaks.
//
// The caller supplies the cache sizes of the machine (on Linux:
// weft_port/machine_info.hpp reads them from sysfs), the candidates the data
// allows (a B+Tree's step is its leaf size; an SVM's step is a whole number
// of rows) and a calibration function that runs a short sample of the work
// sequentially and interleaved and returns the ratio of their times. The
// tuner spends at most `max_trials` calibrations:
//
//   1. spread: candidates evenly spaced in log(active set), so the first
//      trials see both sides of the peak;
//   2. refine: the untried neighbours (in active-set order) of the best so far.
//
// It allocates nothing: the candidate array is the caller's and is reordered
// in place.
#include <weft/core/result.hpp>

#include <cmath>
#include <cstddef>
#include <cstdio>

namespace weft::batch {

/// Sizes of the data caches, innermost first (bytes; 0 = level absent).
struct cache_hierarchy {
    std::size_t level_bytes[4] = {};
    std::size_t levels = 0;
    /// Sum of all levels (the thesis normalises the active set by this).
    std::size_t total() const noexcept {
        std::size_t t = 0;
        for (std::size_t i = 0; i < levels && i < 4; ++i) t += level_bytes[i];
        return t;
    }
};

/// One point of the search space.
struct tune_candidate {
    std::size_t lanes = 0;
    std::size_t step_bytes = 0;
    double speedup = 0;     ///< filled in by the tuner when measured
    bool measured = false;
    std::size_t active_set() const noexcept { return lanes * step_bytes; }
};

/// What the tuner chose, and why.
struct tune_choice {
    std::size_t lanes = 0;
    std::size_t step_bytes = 0;
    std::size_t active_set_bytes = 0;
    double cache_ratio = 0;   ///< active set / total cache
    double speedup = 0;       ///< calibrated sequential / interleaved time
    std::size_t trials = 0;   ///< calibrations spent
    std::size_t cache_total_bytes = 0;

    /// One JSON object (no newline) describing the choice, for logs and reports.
    /// Returns the number of characters written (snprintf semantics).
    int to_json(char* buf, std::size_t size, const char* kernel) const noexcept {
        return std::snprintf(buf, size,
                             "{\"autotune\":\"%s\",\"lanes\":%zu,\"step_bytes\":%zu,\"active_set_bytes\":%zu,"
                             "\"cache_bytes\":%zu,\"cache_ratio\":%.4f,\"calibrated_speedup\":%.4f,\"trials\":%zu}",
                             kernel, lanes, step_bytes, active_set_bytes, cache_total_bytes, cache_ratio,
                             speedup, trials);
    }
};

/// Limits of the search.
struct tune_options {
    std::size_t max_trials = 12;  ///< calibrations at most
    std::size_t spread = 6;       ///< of which spent on the evenly spaced first pass
};

namespace detail {
inline void sort_by_active_set(tune_candidate* c, std::size_t n) noexcept {
    for (std::size_t i = 1; i < n; ++i)  // insertion sort: n is small
        for (std::size_t j = i; j > 0 && c[j].active_set() < c[j - 1].active_set(); --j) {
            tune_candidate t = c[j];
            c[j] = c[j - 1];
            c[j - 1] = t;
        }
}
}  // namespace detail

/// Picks the candidate with the best calibrated speed-up. `calibrate(c)`
/// returns sequential time / interleaved time for candidate c (> 0).
/// Not ISR-safe; allocates nothing; reorders `c` by active set.
/// Errors: errc::invalid when there is no candidate.
template <class Calibrate>
result<tune_choice> autotune(const cache_hierarchy& caches, tune_candidate* c, std::size_t n,
                             Calibrate&& calibrate, tune_options o = {}) noexcept {
    if (n == 0 || c == nullptr) return error{errc::invalid, "autotune", "candidates", 0, "no candidate"};
    detail::sort_by_active_set(c, n);
    std::size_t trials = 0, best = 0;
    bool have_best = false;
    auto try_one = [&](std::size_t i) {
        if (c[i].measured || trials >= o.max_trials) return;
        c[i].speedup = calibrate(c[i]);
        c[i].measured = true;
        ++trials;
        if (!have_best || c[i].speedup > c[best].speedup) { best = i; have_best = true; }
    };
    // 1. spread over the sorted range
    std::size_t spread = o.spread < n ? o.spread : n;
    for (std::size_t k = 0; k < spread; ++k) try_one(spread > 1 ? k * (n - 1) / (spread - 1) : 0);
    // 2. refine around the best until the budget is spent or it stops moving
    for (std::size_t radius = 1; trials < o.max_trials && radius < n; ++radius) {
        std::size_t before = best;
        if (best >= radius) try_one(best - radius);
        if (best + radius < n) try_one(best + radius);
        if (best != before) radius = 0;  // moved: look around the new best
    }
    tune_choice ch;
    ch.lanes = c[best].lanes;
    ch.step_bytes = c[best].step_bytes;
    ch.active_set_bytes = c[best].active_set();
    ch.cache_total_bytes = caches.total();
    ch.cache_ratio = caches.total() ? double(ch.active_set_bytes) / double(caches.total()) : 0;
    ch.speedup = c[best].speedup;
    ch.trials = trials;
    return ch;
}

}  // namespace weft::batch
