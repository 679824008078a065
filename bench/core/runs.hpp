// SPDX-License-Identifier: Apache-2.0
#pragma once
// The switching workloads of the core suite as plain functions, one run
// each, so that two programs can time them: core_bench and core_peers
// (each system in its own process, as bench/run core has always done) and
// core_paired, which alternates weft's run and each peer's in one process,
// round after round, and reports the ratio of runs taken seconds apart.
// weft's runs (weft_runs.cpp) and the bare coroutines' (bare_runs.cpp)
// are compiled as weft is, without exceptions; the peers' (peer_runs.cpp)
// as their libraries expect.
#include <cstddef>
#include <cstdlib>

#include "trees.hpp"

namespace bench::core {

/// Seed 004's two 8-leaf trees (equal fringes, different shapes) and the
/// large pair, 65 536 leaves each; reps of each walk per run.
constexpr int small_leaves = 8, small_reps = 100'000;
constexpr int large_leaves = 1 << 16, large_reps = 8;
constexpr const char* small_extra = ",\"leaves\":8";  // result-line fields naming them
constexpr const char* large_extra = ",\"leaves\":65536";
static_assert(small_leaves == 8 && large_leaves == 65536, "the extra fields name the leaf counts");

/// The trees every same-fringe run walks, built once by the program so
/// that all systems walk the same nodes (their order in memory decides the
/// large tree's speed, trees.hpp).
struct fringe_inputs {
    const node* small_a;
    const node* small_b;
    const node* large_a;
    const node* large_b;
};

/// Owns the trees of fringe_inputs.
struct fringe_trees {
    tree small_a = make_tree(small_leaves, true), small_b = make_tree(small_leaves, false);
    tree large_a = make_tree(large_leaves, true), large_b = make_tree(large_leaves, false);
    fringe_inputs inputs() const { return {small_a.root, small_b.root, large_a.root, large_b.root}; }
};

/// One run of one workload on one system: `ops` operations.
struct timed_run {
    const char* workload;
    const char* system;
    long long ops;
    int full_runs;      // repetitions of a full (not --quick) measurement
    const char* extra;  // extra JSON fields of the result line, or ""
    void (*run)(const fringe_inputs&);
};

/// The same-fringe runs of a system whose walk is `SameFringe`: the small
/// and the large pair, each walk checked (a wrong answer stops the program).
template <bool (*SameFringe)(const node*, const node*)>
struct fringe_runs {
    template <int Reps>
    static void walk(const node* a, const node* b) {
        bool all = true;
        for (int r = 0; r < Reps; ++r) all &= SameFringe(a, b);
        if (!all) std::abort();
    }
    static void small(const fringe_inputs& in) { walk<small_reps>(in.small_a, in.small_b); }
    static void large(const fringe_inputs& in) { walk<large_reps>(in.large_a, in.large_b); }
};

struct run_table {
    const timed_run* runs;
    std::size_t count;
};
run_table weft_runs();  // yield_roundtrip, generator_1m, same_fringe(_large) on weft
run_table peer_runs();  // the same on boost_context / boost_coroutine2
run_table bare_runs();  // yield and generator as bare C++20 coroutines

}  // namespace bench::core
