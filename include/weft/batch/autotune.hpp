// SPDX-License-Identifier: Apache-2.0
#pragma once
// Auto-tuning of an interleaved kernel: choose the lane count and step size
// (and whether to interleave at all) from short calibrations.
//
// The caller supplies the cache sizes of the machine (on Linux:
// weft_port/machine_info.hpp reads them from sysfs), the candidates the data
// allows (a B+Tree's step is its leaf size; an SVM's step is a whole number
// of rows) and a calibration function that runs a short sample of the work
// sequentially and interleaved, back to back, and returns ONE paired ratio
// (sequential time / interleaved time). The search:
//
//   1. cap:    candidates whose step (bytes prefetched per suspension) exceeds
//              `max_step_bytes` (default: half the L1) are not tried — a
//              step larger than that evicts its own prefetched lines;
//   2. screen: the remaining candidates, nearest first to the start point
//              (active set = `start_l1_fraction` x L1: the measured peaks
//              on an x86-64 host lie at 0.015-0.1 x L1, bench/batch), one
//              paired sample each, at most `max_trials` (give a budget that
//              covers the grid when calibration is cheap);
//   3. final:  successive halving: the best third gets two more samples,
//              then the best `finalists` get `final_runs` more; the one
//              with the highest median wins. Extra samples are taken
//              round-robin across the candidates of a round (A B C A B C,
//              not A A B B C C): on a shared machine the load comes in
//              bursts, and a burst must hit every contender alike instead
//              of crowning the one it happened to land on;
//   4. decide: if that median is below `min_gain`, interleaving does not pay
//              and the choice is "sequential" (interleave == false).
//
// What a calibration sample must look like is the caller's part, and it
// decides whether the tuner can be right at all (bench/batch measured the
// misses): run the data set the real work runs (or a sample of
// representative_sample_bytes(): one that misses the caches the same way),
// and pair the two executions in ABBA order (paired_ratio) so that a load
// change during the sample cancels instead of biasing the ratio.
//
// It allocates nothing: the candidate array is the caller's and is reordered
// in place (and each candidate keeps its last median in `speedup`).
#include <weft/batch/numeric.hpp>
#include <weft/core/result.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <utility>

namespace weft::batch {

/// Sizes of the data caches, innermost first (bytes; 0 = level absent).
struct cache_hierarchy {
    std::size_t level_bytes[4] = {};
    std::size_t levels = 0;
    /// Sum of all levels (the thesis normalises the active set by this);
    /// SIZE_MAX if that does not fit. Saturating: a wrapped sum (levels
    /// given as "unbounded", SIZE_MAX) read as a tiny cache, and shrank
    /// representative_sample_bytes() to the sample it is there to avoid.
    std::size_t total() const noexcept {
        std::size_t t = 0;
        for (std::size_t i = 0; i < levels && i < 4; ++i) t = detail::saturating_add(t, level_bytes[i]);
        return t;
    }
    /// Size of the innermost level, or 0 if unknown.
    std::size_t l1() const noexcept { return levels ? level_bytes[0] : 0; }
};

/// One point of the search space.
struct tune_candidate {
    std::size_t lanes = 0;
    std::size_t step_bytes = 0;
    double speedup = 0;     ///< median calibrated ratio, filled in by the tuner
    bool measured = false;
    std::uint8_t variant = 0;  ///< the caller's tag (e.g. which policy); carried, not interpreted
    std::size_t active_set() const noexcept { return detail::saturating_mul(lanes, step_bytes); }
};

/// What the tuner chose, and why.
struct tune_choice {
    bool interleave = true;     ///< false: run sequentially (interleaving did not pay)
    std::size_t lanes = 0;      ///< 1 when !interleave
    std::size_t step_bytes = 0; ///< best interleaved candidate's step (also when !interleave)
    std::size_t active_set_bytes = 0; ///< best interleaved candidate's (best_lanes x step_bytes)
    double cache_ratio = 0;     ///< that active set / total cache
    double l1_ratio = 0;        ///< that active set / L1
    double speedup = 0;         ///< median calibrated ratio of the choice (1 for sequential)
    double best_interleaved = 0;///< median ratio of the best interleaved candidate
    std::size_t trials = 0;     ///< paired calibration samples spent
    std::size_t capped = 0;     ///< candidates skipped by the step cap
    std::size_t cache_total_bytes = 0;
    std::size_t best_lanes = 0; ///< lanes of the best interleaved candidate
    std::uint8_t variant = 0;   ///< tag of the best interleaved candidate

    /// One JSON object (no newline) describing the choice, for logs and reports.
    /// Returns the number of characters written (snprintf semantics).
    int to_json(char* buf, std::size_t size, const char* kernel) const noexcept {
        return std::snprintf(buf, size,
                             "{\"autotune\":\"%s\",\"interleave\":%s,\"lanes\":%zu,\"step_bytes\":%zu,"
                             "\"active_set_bytes\":%zu,\"cache_bytes\":%zu,\"cache_ratio\":%.6f,\"l1_ratio\":%.4f,"
                             "\"calibrated_speedup\":%.4f,\"best_interleaved\":%.4f,\"best_lanes\":%zu,"
                             "\"variant\":%u,\"trials\":%zu,\"capped\":%zu}",
                             kernel, interleave ? "true" : "false", lanes, step_bytes, active_set_bytes,
                             cache_total_bytes, cache_ratio, l1_ratio, speedup, best_interleaved, best_lanes,
                             unsigned(variant), trials, capped);
    }
};

/// Limits of the search.
struct tune_options {
    std::size_t max_trials = 16;      ///< screening samples at most (one per candidate)
    std::size_t finalists = 3;        ///< candidates re-measured after screening
    std::size_t final_runs = 5;       ///< extra paired samples per finalist
    double min_gain = 1.03;           ///< interleave only if the median ratio reaches this
    std::size_t max_step_bytes = 0;   ///< step cap; 0 = L1 / 2 (no cap if L1 unknown)
    double start_l1_fraction = 0.03;  ///< screening starts at active set = this x L1
    std::size_t promotion_passes = 2; ///< re-rankings per halving round that may sample newcomers
};

namespace detail {
/// Distance of a candidate from the start point, in log2 of the active set.
inline double tune_distance(const tune_candidate& c, double start) noexcept {
    double a = double(c.active_set() ? c.active_set() : 1);
    return start > 0 ? std::fabs(std::log2(a / start)) : a;
}

/// Insertion sort (n is small) by a key; allocates nothing.
template <class Key>
void sort_by(tune_candidate* c, std::size_t n, Key key) noexcept {
    for (std::size_t i = 1; i < n; ++i)
        for (std::size_t j = i; j > 0 && key(c[j]) < key(c[j - 1]); --j) {
            tune_candidate t = c[j];
            c[j] = c[j - 1];
            c[j - 1] = t;
        }
}

/// Median of the first n values of v (n <= 16; sorts v in place).
inline double median_of(double* v, std::size_t n) noexcept {
    for (std::size_t i = 1; i < n; ++i)
        for (std::size_t j = i; j > 0 && v[j] < v[j - 1]; --j) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    // Halved before the sum: (a + b) / 2 of two huge finite samples is
    // infinite, the very value a sample may not be. Halving is exact, so
    // ordinary values give the same bits.
    return n == 0 ? 0 : n % 2 ? v[n / 2] : v[n / 2 - 1] / 2 + v[n / 2] / 2;
}
}  // namespace detail

/// One paired calibration sample in ABBA order: sequential, interleaved,
/// interleaved, sequential; returns (s1 + s2) / (i1 + i2). A load that rises
/// or falls steadily during the sample weighs on both halves alike (a plain
/// "sequential then interleaved" pair charges it to the second run).
/// `cost(interleaved)` runs the work once and returns its cost (> 0).
template <class Cost>
double paired_ratio(Cost&& cost) noexcept {
    const double s1 = cost(false);
    const double i1 = cost(true);
    const double i2 = cost(true);
    const double s2 = cost(false);
    return (s1 + s2) / (i1 + i2);
}

/// Bytes of data a calibration sample should cover so that it meets the
/// caches as the whole data set does: all of it when it fits in twice the
/// total cache, otherwise at least twice the total cache and four active
/// sets. A smaller sample of a large set can fit (or half-fit) the last
/// level and then measures a different kernel: bench/batch calibrated on
/// half of a 2x-cache set and the tuner's pick lost to sequential (0.86x)
/// where its samples had said 2.3x.
inline std::size_t representative_sample_bytes(const cache_hierarchy& caches, std::size_t data_bytes,
                                               std::size_t active_set_bytes) noexcept {
    // Saturating: a wrapped product (1 GiB active sets on a 32-bit target)
    // would shrink the sample to the very size this rule is there to avoid.
    constexpr std::size_t max = std::numeric_limits<std::size_t>::max();
    const std::size_t total = caches.total();
    std::size_t want = total > max / 2 ? max : 2 * total;
    const std::size_t sets = active_set_bytes > max / 4 ? max : 4 * active_set_bytes;
    if (want < sets) want = sets;
    return data_bytes < want ? data_bytes : want;
}

/// Chooses lanes and step (or sequential) for a kernel. `calibrate(c)`
/// returns one paired sample of sequential time / interleaved time for
/// candidate c (> 0). Calls: max_trials to screen, then 2 per candidate of
/// the best third and final_runs per finalist, once more for each candidate
/// promoted into those sets (at most promotion_passes refills per round);
/// max_trials 0 screens one candidate, final_runs 0 stops after screening.
/// Not ISR-safe; allocates nothing (about 11 KiB of stack); reorders `c`:
/// the ranked candidates first (best first), capped ones last.
/// Errors: errc::invalid when there is no candidate or one has no lanes,
/// when o.min_gain is NaN or o.start_l1_fraction is NaN or negative,
/// when a sample is NaN or infinite (object "calibrate"; the tuner stops
/// at that sample), when more than
/// tune_max_screened candidates would be screened (o.max_trials and
/// enough eligible candidates), or when 3 + o.final_runs exceeds
/// tune_max_samples: the tuner keeps that many, and would otherwise drop
/// the rest without saying so.
/// Capacities of autotune()'s fixed tables (on the stack).
inline constexpr std::size_t tune_max_screened = 64;  ///< candidates ranked after screening
inline constexpr std::size_t tune_max_samples = 16;   ///< paired samples per candidate

template <class Calibrate>
result<tune_choice> autotune(const cache_hierarchy& caches, tune_candidate* c, std::size_t n,
                             Calibrate&& calibrate, tune_options o = {}) noexcept {
    // Limit 1 (as conv3x3's "no channels"): 0 printed no limit at all.
    if (n == 0 || c == nullptr) return error{errc::invalid, "autotune", "candidates", 1, "no candidate"};
    for (std::size_t i = 0; i < n; ++i)
        if (c[i].lanes == 0) return error{errc::invalid, "autotune", "candidates", 1, "a candidate has 0 lanes"};
    if (o.final_runs > tune_max_samples - 3)  // not 3 + final_runs: that wraps for a huge request
        return error{errc::invalid, "autotune", "final_runs", tune_max_samples - 3,
                     "more samples per finalist than the tuner keeps"};
    // NaN compares false: a NaN min_gain chose sequential whatever the
    // samples said, and a NaN or negative start point ranked by bytes as
    // if no L1 were known, both without a word. Infinities are thresholds
    // ("never", "always") and stay allowed.
    if (std::isnan(o.min_gain))
        return error{errc::invalid, "autotune", "min_gain", 0, "min_gain is NaN"};
    if (!(o.start_l1_fraction >= 0))
        return error{errc::invalid, "autotune", "start_l1_fraction", 0, "start_l1_fraction is negative or NaN"};
    const std::size_t cap = o.max_step_bytes ? o.max_step_bytes : caches.l1() / 2;
    const double start = o.start_l1_fraction * double(caches.l1());
    // 1. cap: eligible candidates first, nearest to the start point first.
    std::size_t eligible = 0;
    for (std::size_t i = 0; i < n; ++i) {
        c[i].measured = false;
        c[i].speedup = 0;
        if (cap == 0 || c[i].step_bytes <= cap) ++eligible;
    }
    tune_choice ch;
    if (eligible == 0) eligible = n;  // nothing under the cap: try everything rather than nothing
    else ch.capped = n - eligible;
    // Over the cap or not is the first key, not an offset added to the
    // distance: without a known L1 the distance is in bytes and outgrew any
    // offset, and an infinite start made all distances inf.
    detail::sort_by(c, n, [&](const tune_candidate& x) {
        const bool over = cap != 0 && x.step_bytes > cap && ch.capped != 0;
        return std::pair<bool, double>{over, detail::tune_distance(x, start)};
    });
    // 2. screen
    const std::size_t screened = eligible < o.max_trials ? eligible : (o.max_trials ? o.max_trials : 1);
    if (screened > tune_max_screened)
        return error{errc::invalid, "autotune", "max_trials", tune_max_screened,
                     "more candidates to screen than the tuner ranks"};
    // NaN compares false, so a NaN sample (0/0 from a clock too coarse for
    // the sample) would sit anywhere in the ranking, and an infinite one
    // would win: either is a broken calibration, reported rather than ranked.
    bool bad = false;
    auto sample = [&](const tune_candidate& x) {
        const double v = calibrate(x);
        if (!(v >= -std::numeric_limits<double>::max() && v <= std::numeric_limits<double>::max())) bad = true;
        return v;
    };
    const error bad_sample{errc::invalid, "autotune", "calibrate", 0, "sample is not a finite number"};
    for (std::size_t i = 0; i < screened; ++i) {
        c[i].speedup = sample(c[i]);
        c[i].measured = true;
        if (bad) return bad_sample;
    }
    ch.trials = screened;
    // 3. final, by successive halving: the best third gets two more samples
    //    (median of 3), then the best `finalists` get `final_runs` more; the
    //    highest median wins. A lucky single sample cannot win on its own,
    //    and an unlucky one cannot lose for good: after each round the
    //    candidates are re-ranked (medians of the sampled ones against the
    //    single screening values of the rest) and whoever moved into the top
    //    set is sampled too (at most `promotion_passes` times per round).
    //    Samples of a round are taken round-robin (see the header comment).
    double samples[tune_max_screened][tune_max_samples];
    std::size_t count[tune_max_screened] = {};
    std::size_t ord[tune_max_screened];  // ranking, as indices into c[0..keep)
    const std::size_t keep = screened;
    detail::sort_by(c, screened, [](const tune_candidate& x) { return -x.speedup; });
    for (std::size_t i = 0; i < keep; ++i) {
        samples[i][count[i]++] = c[i].speedup;
        ord[i] = i;
    }
    // Stable re-ranking; with `target`, candidates that reached it come first.
    auto rank = [&](std::size_t target) {
        auto before = [&](std::size_t x, std::size_t y) {
            const bool fx = count[x] >= target, fy = count[y] >= target;
            return fx != fy ? fx : c[x].speedup > c[y].speedup;
        };
        for (std::size_t i = 1; i < keep; ++i)
            for (std::size_t j = i; j > 0 && before(ord[j], ord[j - 1]); --j) {
                const std::size_t t = ord[j];
                ord[j] = ord[j - 1];
                ord[j - 1] = t;
            }
    };
    auto round = [&](std::size_t top, std::size_t target) {
        for (std::size_t pass = 0; pass <= o.promotion_passes; ++pass) {
            rank(0);
            bool sampled = false;
            for (bool any = true; any;) {  // A B C A B C ...
                any = false;
                for (std::size_t i = 0; i < top; ++i) {
                    const std::size_t j = ord[i];
                    if (count[j] >= target) continue;
                    samples[j][count[j]++] = sample(c[j]);
                    ++ch.trials;
                    if (bad) return;
                    any = sampled = true;
                }
            }
            for (std::size_t i = 0; i < top; ++i) {
                const std::size_t j = ord[i];
                double v[tune_max_samples];
                for (std::size_t k = 0; k < count[j]; ++k) v[k] = samples[j][k];
                c[j].speedup = detail::median_of(v, count[j]);
            }
            if (!sampled) break;  // the top set was already fully sampled
        }
        rank(target);  // the winner must be a fully sampled candidate
    };
    const std::size_t fin = o.finalists ? (o.finalists < keep ? o.finalists : keep) : 1;
    const std::size_t third = (keep + 2) / 3 > fin ? (keep + 2) / 3 : fin;
    if (o.final_runs > 0) {
        round(third, 3);
        if (!bad) round(fin, 3 + o.final_runs);
        if (bad) return bad_sample;
    }
    {
        tune_candidate sorted[tune_max_screened];
        for (std::size_t i = 0; i < keep; ++i) sorted[i] = c[ord[i]];
        for (std::size_t i = 0; i < keep; ++i) c[i] = sorted[i];
    }
    // 4. decide
    const tune_candidate& best = c[0];
    ch.best_interleaved = best.speedup;
    ch.best_lanes = best.lanes;
    ch.variant = best.variant;
    ch.interleave = best.speedup >= o.min_gain;
    ch.lanes = ch.interleave ? best.lanes : 1;
    ch.step_bytes = best.step_bytes;
    ch.speedup = ch.interleave ? best.speedup : 1.0;
    ch.active_set_bytes = best.active_set();
    ch.cache_total_bytes = caches.total();
    ch.cache_ratio = caches.total() ? double(ch.active_set_bytes) / double(caches.total()) : 0;
    ch.l1_ratio = caches.l1() ? double(ch.active_set_bytes) / double(caches.l1()) : 0;
    return ch;
}

}  // namespace weft::batch
