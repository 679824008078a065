// SPDX-License-Identifier: Apache-2.0
#include <weft/batch/interleave.hpp>
#include <weft/batch/prefetch.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace {
weft::frame_pool<256, 4> lane_frames{"interleave_test"};

struct trace {
    std::vector<int> order;  // item * 10 + step
};

weft::batch::lane steps(trace& t, int item, int n) {
    for (int s = 0; s < n; ++s) {
        t.order.push_back(item * 10 + s);
        co_await weft::batch::interleaved::yield();
    }
}
}  // namespace

TEST(interleaver, runs_lanes_round_robin_and_refills_finished_lanes) {
    weft::batch::interleaver<4> r;
    trace t;
    int len[] = {1, 3, 2};
    auto st = r.run(2, 3, [&](std::size_t i) { return steps(t, int(i), len[i]); });
    ASSERT_TRUE(st);
    // lanes 0,1 start with items 0,1; item 0 finishes after one step and
    // lane 0 takes item 2.
    std::vector<int> want{0, 10, 11, 20, 12, 21};
    EXPECT_EQ(t.order, want);
    EXPECT_EQ(r.stats().items, 3u);
    EXPECT_EQ(r.stats().lanes, 2u);
    EXPECT_EQ(lane_frames.in_use(), 0u);
    EXPECT_LE(lane_frames.peak(), 2u);
}

TEST(interleaver, one_lane_is_sequential_order) {
    weft::batch::interleaver<4> r;
    trace t;
    ASSERT_TRUE(r.run(1, 2, [&](std::size_t i) { return steps(t, int(i), 2); }));
    EXPECT_EQ(t.order, (std::vector<int>{0, 1, 10, 11}));
}

TEST(interleaver, more_lanes_than_items_uses_only_items) {
    weft::batch::interleaver<4> r;
    trace t;
    ASSERT_TRUE(r.run(4, 1, [&](std::size_t i) { return steps(t, int(i), 1); }));
    EXPECT_EQ(r.stats().lanes, 1u);
    ASSERT_TRUE(r.run(4, 0, [&](std::size_t i) { return steps(t, int(i), 1); }));
}

TEST(interleaver, bad_lane_count_is_invalid) {
    weft::batch::interleaver<4> r;
    trace t;
    auto make = [&](std::size_t i) { return steps(t, int(i), 1); };
    EXPECT_EQ(r.run(0, 3, make).code(), weft::errc::invalid);
    EXPECT_EQ(r.run(5, 3, make).code(), weft::errc::invalid);
}

TEST(interleaver, frame_pool_exhaustion_is_reported_and_frames_freed) {
    weft::frame_pool<256, 1> tiny{"tiny"};
    weft::use_frames scope{tiny};
    weft::batch::interleaver<4> r;
    trace t;
    auto st = r.run(2, 4, [&](std::size_t i) { return steps(t, int(i), 2); });
    ASSERT_FALSE(st);
    EXPECT_EQ(st.code(), weft::errc::no_memory);
    EXPECT_STREQ(st.err().object, "tiny");
    EXPECT_EQ(tiny.in_use(), 0u);
    // Item 1 found no frame: nothing more started, item 0 ran to its end.
    EXPECT_EQ(r.stats().items, 1u);
    EXPECT_EQ(t.order, (std::vector<int>{0, 1}));
}

TEST(interleaver, a_failed_refill_lets_started_items_finish_so_the_done_set_is_a_prefix) {
    weft::batch::interleaver<4> r;
    trace t;
    // Item 0 is long, 1 and 2 short; item 3's frame is too large for any
    // pool. Items 1 and 2 finish before item 0: the run must not drop 0.
    auto make = [&](std::size_t i) {
        if (i == 3) {
            weft::frame_pool<16, 1> small{"small"};
            weft::use_frames scope{small};
            return steps(t, int(i), 1);
        }
        return steps(t, int(i), i == 0 ? 4 : 1);
    };
    auto st = r.run(2, 6, make);
    ASSERT_FALSE(st);
    EXPECT_EQ(st.code(), weft::errc::frame_too_large);
    EXPECT_EQ(r.stats().items, 3u);  // exactly items 0, 1, 2
    for (int step = 0; step < 4; ++step)
        EXPECT_NE(std::find(t.order.begin(), t.order.end(), step), t.order.end()) << "item 0, step " << step;
    EXPECT_EQ(std::count_if(t.order.begin(), t.order.end(), [](int v) { return v >= 30; }), 0);
    EXPECT_EQ(lane_frames.in_use(), 0u);
}

TEST(interleaver, a_kernel_call_checks_the_lane_count_under_every_policy) {
    weft::batch::interleaver<4> r;
    trace t;
    auto make = [&](std::size_t i) { return steps(t, int(i), 1); };
    EXPECT_EQ((r.run_under<weft::batch::sequential>(0, 3, make)).code(), weft::errc::invalid);
    EXPECT_EQ((r.run_under<weft::batch::sequential>(9, 3, make)).code(), weft::errc::invalid);
    ASSERT_TRUE((r.run_under<weft::batch::sequential>(3, 3, make)));
    EXPECT_EQ(r.stats().lanes, 1u);
    ASSERT_TRUE((r.run_under<weft::batch::interleaved>(3, 3, make)));
    EXPECT_EQ(r.stats().lanes, 3u);
}

TEST(interleaver, runs_again_after_an_error_and_names_the_pool_and_its_limit) {
    weft::batch::interleaver<4> r;
    trace t;
    {
        weft::frame_pool<256, 2> two{"two_lanes"};
        weft::use_frames scope{two};
        auto st = r.run(3, 5, [&](std::size_t i) { return steps(t, int(i), 2); });
        ASSERT_FALSE(st);
        EXPECT_EQ(st.code(), weft::errc::no_memory);
        EXPECT_STREQ(st.err().message().c_str(), "frame pool 'two_lanes': all slots in use (limit 2)");
        EXPECT_EQ(r.stats().items, 2u);  // items 0 and 1, each once
        EXPECT_EQ(t.order, (std::vector<int>{0, 10, 1, 11}));
        EXPECT_EQ(two.in_use(), 0u);
    }
    // The same runner, the rest of the items, from the default pool.
    t.order.clear();
    ASSERT_TRUE(r.run(3, 3, [&](std::size_t i) { return steps(t, int(i) + 2, 2); }));
    EXPECT_EQ(r.stats().items, 3u);
    EXPECT_EQ(t.order, (std::vector<int>{20, 30, 40, 21, 31, 41}));
    EXPECT_EQ(lane_frames.in_use(), 0u);
}
