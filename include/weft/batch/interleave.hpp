// SPDX-License-Identifier: Apache-2.0
#pragma once
// weft::batch::interleaver — runs K lanes round-robin over a list of items
// (the thesis' coroutine_runner, seed 000 listing 5.1, without its vectors
// and heap frames).
//
// Lane life cycle (numbers cited in run()):
//
//   (1) make(item)      (2) resume()          (3) done()
//   ─────────────► suspended ───────► running ───────► finished
//                        ▲    co_await    │                │ (4) reset(): slot back to the pool,
//                        └────────────────┘                │     make(next item) reuses it
//                                                          ▼
//                                                 no items left: slot idle
#include <weft/batch/lane.hpp>
#include <weft/core/result.hpp>

#include <cstddef>
#include <cstdint>

namespace weft::batch {

/// Counters of the last run (for reports and tests).
struct interleave_stats {
    std::size_t lanes = 0;    ///< lanes actually used (fewer than asked if a frame failed in the first fill)
    std::size_t items = 0;    ///< items completed
    std::uint64_t resumes = 0;  ///< lane resumptions (steps)
};

/// Round-robin runner with room for at most `MaxLanes` lanes (static, no heap).
template <std::size_t MaxLanes>
class interleaver {
    static_assert(MaxLanes >= 1 && MaxLanes <= 64,
                  "interleaver<MaxLanes>: MaxLanes must be in 1..64");

public:
    /// Largest lane count run() accepts.
    static constexpr std::size_t max_lanes = MaxLanes;

    /// Runs `make(i)` (returning a weft::batch::lane) for every i in
    /// [0, items), at most `lanes` at a time, resuming them round-robin.
    /// lanes == 1 is the sequential order. Does not allocate except lane
    /// frames from the frame pools. Not ISR-safe, not reentrant.
    /// Errors: errc::invalid if lanes is 0 or > MaxLanes, or if make()
    /// returns an empty lane that carries no error; the pool's error
    /// (no_memory / frame_too_large) if a lane frame cannot be created —
    /// then no further item starts, the lanes already running finish, and
    /// exactly the items [0, stats().items) are done: a caller can retry
    /// from there.
    template <class Make>
    status run(std::size_t lanes, std::size_t items, Make&& make) noexcept {
        stats_ = {};
        for (lane& l : slot_) l = lane{};  // forget errors of an earlier run
        if (lanes == 0 || lanes > MaxLanes) return lane_count_error();
        if (lanes > items) lanes = items;
        std::size_t next = 0, live = 0;
        error failed{};
        // A lane that cannot be created stops the issue of items; those
        // already started run to their end, so the done set stays a prefix.
        auto start = [&](lane& l) {
            if (next == items || failed) return false;
            l = make(next);
            if (!l.valid()) {
                // An empty lane without a pool error is make()'s doing, not
                // the pools': say so rather than blame memory.
                failed = l.err() ? l.err()
                                 : error{errc::invalid, "interleaver", "make", 0, "make returned an empty lane"};
                return false;
            }
            ++next;
            return true;
        };
        while (live < lanes && start(slot_[live])) ++live;  // (1)
        // Refills reuse these slots, so a pool that ran out during the first
        // fill leaves fewer lanes in use than asked for.
        stats_.lanes = live;
        while (live > 0) {
            for (std::size_t k = 0; k < lanes; ++k) {
                lane& l = slot_[k];
                if (!l.valid()) continue;
                l.resume();  // (2)
                ++stats_.resumes;
                if (!l.done()) continue;
                l.reset();  // (3)(4)
                ++stats_.items;
                if (!start(l)) --live;
            }
        }
        if (failed) return failed;
        return {};
    }

    /// run() as a kernel under `Policy` does it: one lane unless the policy
    /// interleaves. `lanes` is checked either way, so a call that is wrong
    /// under one policy is wrong under all.
    template <class Policy, class Make>
    status run_under(std::size_t lanes, std::size_t items, Make&& make) noexcept {
        if (lanes == 0 || lanes > MaxLanes) {
            stats_ = {};  // as run() does: stale counters would misplace a retry
            return lane_count_error();
        }
        return run(Policy::interleaves ? lanes : 1, items, static_cast<Make&&>(make));
    }

    /// Counters of the most recent run().
    const interleave_stats& stats() const noexcept { return stats_; }

private:
    static error lane_count_error() noexcept {
        return error{errc::invalid, "interleaver", "lanes", MaxLanes, "lane count out of range"};
    }
    lane slot_[MaxLanes]{};
    interleave_stats stats_{};
};

}  // namespace weft::batch
