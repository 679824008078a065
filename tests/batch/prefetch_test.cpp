// SPDX-License-Identifier: Apache-2.0
#include <weft/batch/prefetch.hpp>
#include <weft/batch/lane.hpp>

#include <gtest/gtest.h>

namespace {
weft::frame_pool<256, 2> lane_frames{"prefetch_test"};

template <class P>
weft::batch::lane two_steps(const int* data, int* out) {
    co_await P::prefetch(data, sizeof(int) * 64);
    *out += data[0];
    co_await P::yield();
    *out += data[63];
}
}  // namespace

TEST(prefetch, sequential_never_suspends) {
    static_assert(weft::batch::step_operation<false>::await_ready());
    int data[64] = {};
    data[0] = 1;
    data[63] = 2;
    int out = 0;
    auto l = two_steps<weft::batch::sequential>(data, &out);
    l.resume();  // initial suspension only
    EXPECT_TRUE(l.done());
    EXPECT_EQ(out, 3);
}

TEST(prefetch, interleaved_suspends_at_each_step) {
    int data[64] = {};
    data[0] = 1;
    data[63] = 2;
    int out = 0;
    auto l = two_steps<weft::batch::interleaved>(data, &out);
    l.resume();
    EXPECT_EQ(out, 0);
    l.resume();
    EXPECT_EQ(out, 1);
    l.resume();
    EXPECT_TRUE(l.done());
    EXPECT_EQ(out, 3);
}

TEST(prefetch, no_prefetch_policy_suspends_too) {
    int data[64] = {};
    int out = 0;
    auto l = two_steps<weft::batch::interleaved_no_prefetch>(data, &out);
    l.resume();
    EXPECT_FALSE(l.done());
    static_assert(!weft::batch::interleaved_no_prefetch::prefetches);
}

TEST(prefetch, prefetching_any_range_is_harmless) {
    char buf[300] = {};
    weft::batch::prefetch_read(buf + 1, sizeof buf - 1);
    weft::batch::prefetch_write(buf, 0);
    weft::batch::prefetch_read(nullptr, 128);  // prefetch never faults
    SUCCEED();
}
