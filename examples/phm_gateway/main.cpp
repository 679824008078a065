// SPDX-License-Identifier: Apache-2.0
// PHM gateway (seed 000, chapter 5): a simulated wireless sensor fleet sends
// each measurement (F features, int16 fixed point 2^13, MT19937-seeded) as
// one UDP datagram over loopback; the gateway files them per sensor, then
// runs every sensor's linear SVM over its M measurements, once sequentially
// and once interleaved (weft::batch, auto-tuned), flushing the caches before
// each run, and prints a status per sensor plus time, instructions and cache
// misses of both executions.
//
// This is an application: it allocates its data sets at start-up. The
// weft::batch code it calls does not allocate.
#include "collator.hpp"
#include "link.hpp"
#include "options.hpp"

#include <weft/batch/batch.hpp>
#include <weft_port/machine_info.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

using namespace weft::batch;

namespace {
weft::frame_pool<512, 16> lane_frames{"phm_lanes"};
interleaver<8> runner;

using phm::params;

struct fleet {
    std::vector<std::int16_t> truth;    // S*M*F features, as the sensors measured them
    std::vector<std::int16_t> weights;  // S*F
    std::vector<std::int32_t> bias;     // S
};

fleet simulate(const params& p) {
    std::mt19937 rng(p.seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    fleet f;
    f.truth.resize(p.sensors * p.measurements * p.features);
    f.weights.resize(p.sensors * p.features);
    f.bias.resize(p.sensors);
    for (auto& w : f.weights) w = i16::from_double(u(rng));
    const double sd = std::sqrt(double(p.features)) / 3.0;  // sd of w.x for uniform w, x
    for (auto& b : f.bias) b = i16::acc_from_double((2.0 + 0.5 * u(rng)) * sd);
    for (auto& x : f.truth) x = i16::from_double(u(rng));
    return f;
}

// ---- inference ------------------------------------------------------------

struct gateway_data {
    std::vector<svm_table<i16>> tables;
    std::vector<std::uint8_t> classes;
};

// Start-up storage, laid out as in the thesis' gateway (seed 000 §5.3.1,
// Algorithm 1): every sensor's model (weights[s]) and every sensor's
// collated measurements are separate memory regions, placed in a shuffled
// order with a gap, as a long-running gateway's allocator would leave them;
// nothing is allocated after start-up.
struct sensor_storage {
    std::vector<std::int16_t> values_arena, weights_arena;
    std::vector<std::int16_t*> values;         // values[s]: M x F
    std::vector<const std::int16_t*> weights;  // weights[s]: F

    sensor_storage(const params& p, const fleet& f) {
        const std::size_t S = p.sensors, M = p.measurements, F = p.features;
        const std::size_t vslot = (M * F + 64 + 31) / 32 * 32, wslot = (F + 64 + 31) / 32 * 32;
        values_arena.assign(S * vslot, 0);
        weights_arena.assign(S * wslot, 0);
        std::vector<std::uint32_t> place(S), wplace(S);
        for (std::size_t s = 0; s < S; ++s) place[s] = wplace[s] = std::uint32_t(s);
        std::shuffle(place.begin(), place.end(), std::mt19937(p.seed + 1));
        std::shuffle(wplace.begin(), wplace.end(), std::mt19937(p.seed + 2));
        values.resize(S);
        weights.resize(S);
        for (std::size_t s = 0; s < S; ++s) {
            values[s] = values_arena.data() + place[s] * vslot;
            std::int16_t* w = weights_arena.data() + wplace[s] * wslot;
            std::copy(f.weights.begin() + std::ptrdiff_t(s * F), f.weights.begin() + std::ptrdiff_t((s + 1) * F), w);
            weights[s] = w;
        }
    }
};

std::vector<unsigned char> flush_buffer;
void flush_caches() {
    // Write then read a buffer larger than every cache level (thesis §5.3.5).
    for (std::size_t i = 0; i < flush_buffer.size(); i += 64) flush_buffer[i] = std::uint8_t(i);
    volatile unsigned sum = 0;
    for (std::size_t i = 0; i < flush_buffer.size(); i += 64) sum = sum + flush_buffer[i];
}

struct run_cost {
    double ns = 0, instructions = 0, misses = 0;
};

weft::port::perf_counters* counters = nullptr;

template <class P>
run_cost run_once(const svm_batch<i16>& b, std::size_t lanes) {
    flush_caches();
    if (counters) counters->start();
    auto t0 = weft::port::now_ns();
    auto st = svm_infer<P, i16>(runner, lanes, b);
    auto t1 = weft::port::now_ns();
    if (counters) counters->stop();
    if (!st) { std::fprintf(stderr, "phm_gateway: %s\n", st.err().message().c_str()); std::exit(1); }
    run_cost c{double(t1 - t0), 0, 0};
    if (counters) {
        c.instructions = double(counters->value(weft::port::perf_counters::instructions));
        c.misses = double(counters->value(weft::port::perf_counters::cache_misses));
    }
    return c;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

struct comparison {
    run_cost seq, inter;
    tune_choice tuned;
    std::size_t rows_per_step = 1;
    bool same_results = true;
};

comparison infer(const params& p, const fleet& f, const sensor_storage& st, gateway_data& g,
                 const cache_hierarchy& caches) {
    const std::size_t S = p.sensors, M = p.measurements, F = p.features;
    g.tables.assign(S, {});
    g.classes.assign(S * M, 0);
    for (std::size_t s = 0; s < S; ++s)
        g.tables[s] = {st.weights[s], f.bias[s], st.values[s], M, &g.classes[s * M]};
    svm_batch<i16> b{g.tables.data(), S, F, 1};

    // [docs:phm_autotune]
    // Candidates: lanes 2..8 (no more than sensors) x rows per step 1..8
    // (the tuner caps the step at L1/2 and may answer "sequential"). One
    // calibration = one paired sample, caches flushed before each half, as
    // in the measurement below.
    tune_candidate cands[7 * 4];
    std::size_t n = 0;
    for (std::size_t lanes = 2; lanes <= 8 && lanes <= S; ++lanes)
        for (std::size_t rps : {1u, 2u, 4u, 8u}) cands[n++] = {lanes, (rps + 1) * F * sizeof(std::int16_t)};
    auto rows_of = [F](std::size_t step_bytes) { return step_bytes / (F * sizeof(std::int16_t)) - 1; };
    auto calibrate = [&](const tune_candidate& c) {
        svm_batch<i16> t = b;
        t.rows_per_step = rows_of(c.step_bytes);
        return run_once<sequential>(t, 1).ns / run_once<interleaved>(t, c.lanes).ns;
    };
    tune_options opt;
    opt.max_trials = 16;
    opt.finalists = 3;
    opt.final_runs = 4;
    auto choice = autotune(caches, cands, n, calibrate, opt);
    if (!choice) {
        std::fprintf(stderr, "phm_gateway: %s\n", choice.err().message().c_str());
        std::exit(1);
    }
    // [docs:phm_autotune]
    comparison out;
    out.tuned = *choice;
    out.rows_per_step = rows_of(choice->step_bytes);
    svm_batch<i16> tuned = b;
    tuned.rows_per_step = out.rows_per_step;
    const std::size_t lanes = choice->interleave ? choice->lanes : choice->best_lanes;

    std::vector<double> sn, si, sq_i, in_i, sq_m, in_m;
    std::vector<std::uint8_t> reference;
    for (int r = 0; r < p.runs; ++r) {  // alternate the two executions (thesis §5.3.5)
        run_cost a = run_once<sequential>(b, 1);
        if (r == 0) reference = g.classes;
        std::fill(g.classes.begin(), g.classes.end(), 2);
        // The best interleaved candidate is measured even when the tuner
        // chose sequential, so the table shows what interleaving would cost.
        run_cost c = run_once<interleaved>(tuned, lanes);
        out.same_results = out.same_results && g.classes == reference;
        sn.push_back(a.ns); si.push_back(c.ns);
        sq_i.push_back(a.instructions); in_i.push_back(c.instructions);
        sq_m.push_back(a.misses); in_m.push_back(c.misses);
    }
    out.seq = {median(sn), median(sq_i), median(sq_m)};
    out.inter = {median(si), median(in_i), median(in_m)};
    return out;
}

std::string fmt_count(double v) {
    if (!counters) return "n/a";
    char b[32];
    std::snprintf(b, sizeof b, "%.0f", v);
    return b;
}

int run_config(const params& p, const cache_hierarchy& caches, bool print_status) {
    fleet f = simulate(p);
    sensor_storage st(p, f);
    std::vector<std::uint8_t> seen(p.sensors * p.measurements);
    phm::collator col(st.values.data(), seen.data(), p.sensors, p.measurements, p.features);
    phm::link_report link = phm::transfer(p, f.truth.data(), col);
    if (!link.complete) {
        std::fprintf(stderr, "phm_gateway: only %zu of %zu measurements arrived\n", col.stored(),
                     p.sensors * p.measurements);
        return 1;
    }
    gateway_data g;
    comparison c = infer(p, f, st, g, caches);
    const double inter_saving = 1 - c.inter.ns / c.seq.ns;
    const double saving = c.tuned.interleave ? inter_saving : 0.0;  // the tuned choice's saving
    if (print_status) {
        std::printf("PHM gateway: %zu sensors x %zu measurements x %zu features (i16, 2^13), seed %u\n",
                    p.sensors, p.measurements, p.features, p.seed);
        std::printf("network: %zu datagrams over UDP 127.0.0.1 in %.3f s (%zu not from the fleet); stored %zu, "
                    "rejected %zu (truncated %zu, oversized %zu, unknown_sensor %zu, other %zu), duplicates %zu\n",
                    link.received, link.seconds, link.foreign, col.stored(), col.rejected(),
                    col.count(phm::outcome::truncated),
                    col.count(phm::outcome::oversized), col.count(phm::outcome::unknown_sensor),
                    col.rejected() - col.count(phm::outcome::truncated) - col.count(phm::outcome::oversized) -
                        col.count(phm::outcome::unknown_sensor),
                    col.count(phm::outcome::duplicate));
        for (std::size_t s = 0; s < p.sensors; ++s) {
            std::size_t over = 0;
            for (std::size_t m = 0; m < p.measurements; ++m) over += g.classes[s * p.measurements + m];
            std::printf("sensor %3zu: %-5s (%zu of %zu measurements over threshold)\n", s, over ? "FAULT" : "ok",
                        over, p.measurements);
        }
        std::printf("\n%-44s %12s %14s %14s\n", "execution (median of runs, caches flushed)", "time [us]",
                    "instructions", "cache misses");
        std::printf("%-44s %12.1f %14s %14s\n", "sequential", c.seq.ns / 1e3, fmt_count(c.seq.instructions).c_str(),
                    fmt_count(c.seq.misses).c_str());
        char label[64];
        std::snprintf(label, sizeof label, "interleaved (%zu lanes, %zu row/step)",
                      c.tuned.interleave ? c.tuned.lanes : c.tuned.best_lanes, c.rows_per_step);
        std::printf("%-44s %12.1f %14s %14s\n", label, c.inter.ns / 1e3, fmt_count(c.inter.instructions).c_str(),
                    fmt_count(c.inter.misses).c_str());
        std::printf("interleaved vs sequential: %+.1f%% time saved (speed-up %.3fx); results identical: %s\n",
                    100 * inter_saving, c.seq.ns / c.inter.ns, c.same_results ? "yes" : "NO");
        std::printf("auto-tuner (calibrated %.3fx, %zu samples): %s\n", c.tuned.best_interleaved, c.tuned.trials,
                    c.tuned.interleave ? "interleave" : "sequential (interleaving does not pay here)");
        if (!counters) std::printf("(hardware counters unavailable on this machine: time only)\n");
    }
    std::printf("{\"suite\":\"batch\",\"workload\":\"phm_gateway\",\"system\":\"weft\",\"target\":\"%s\","
                "\"unit\":\"ratio\",\"baseline\":\"sequential\",\"median\":%.4f,\"sensors\":%zu,\"measurements\":%zu,"
                "\"features\":%zu,\"runs\":%d,\"sequential_ns\":%.0f,\"interleaved_ns\":%.0f,\"saving\":%.4f,"
                "\"lanes\":%zu,\"rows_per_step\":%zu,\"active_set_bytes\":%zu,\"cache_bytes\":%zu,"
                "\"sequential_instructions\":%s,\"interleaved_instructions\":%s,\"sequential_cache_misses\":%s,"
                "\"interleaved_cache_misses\":%s,\"rejected\":%zu,\"identical\":%s,\"tuner_choice\":\"%s\","
                "\"interleaved_saving\":%.4f,\"calibrated\":%.4f,\"layout\":\"per_sensor_regions\"}\n",
                weft::port::target_name(), c.tuned.interleave ? c.seq.ns / c.inter.ns : 1.0, p.sensors, p.measurements, p.features, p.runs,
                c.seq.ns, c.inter.ns, saving, c.tuned.interleave ? c.tuned.lanes : c.tuned.best_lanes, c.rows_per_step, c.tuned.active_set_bytes,
                caches.total(), counters ? fmt_count(c.seq.instructions).c_str() : "null",
                counters ? fmt_count(c.inter.instructions).c_str() : "null",
                counters ? fmt_count(c.seq.misses).c_str() : "null",
                counters ? fmt_count(c.inter.misses).c_str() : "null", col.rejected(), c.same_results ? "true" : "false",
                c.tuned.interleave ? "interleaved" : "sequential", inter_saving, c.tuned.best_interleaved);
    std::fflush(stdout);
    return c.same_results ? 0 : 1;
}
}  // namespace

int main(int argc, char** argv) {
    params p;
    if (const char* why = phm::parse(argc, argv, p)) {
        std::fprintf(stderr, "%s\n", why);
        return 2;
    }
    const bool sweep = p.sweep, quick = p.quick;
    weft::port::cache_source src;
    auto lv = weft::port::read_cache_levels(&src);
    cache_hierarchy caches;
    for (std::size_t i = 0; i < 4; ++i) caches.level_bytes[i] = lv.level_bytes[i];
    caches.levels = lv.levels;
    flush_buffer.assign(2 * caches.total(), 0);
    static weft::port::perf_counters pc;
    if (pc.available()) counters = &pc;
    else std::fprintf(stderr, "phm_gateway: %s; reporting time only\n", pc.why());
    if (!sweep) return run_config(p, caches, true);

    std::vector<std::size_t> S{10, 20, 30, 40, 50}, M{10, 50, 100}, F{128, 512, 1024, 2048};
    if (quick) S = {10, 50}, M = {10, 100}, F = {128, 2048};
    int rc = 0;
    for (auto s : S)
        for (auto m : M)
            for (auto fe : F) {
                params q = p;
                q.sensors = s, q.measurements = m, q.features = fe;
                std::fprintf(stderr, "phm_gateway: S %zu M %zu F %zu\n", s, m, fe);
                rc |= run_config(q, caches, false);
            }
    return rc;
}
