// SPDX-License-Identifier: Apache-2.0
#include <weft/batch/lane.hpp>

#include <gtest/gtest.h>

namespace {
weft::frame_pool<256, 2> lane_frames{"lane_test"};

// noinline: Clang may elide the frame of a coroutine whose ramp is inlined
// into a caller that destroys it (CoroElide); these tests count pool slots.
[[gnu::noinline]] weft::batch::lane count_to(int n, int* out) {
    for (int i = 0; i < n; ++i) {
        *out = i;
        co_await std::suspend_always{};
    }
    *out = n;
}
}  // namespace

TEST(lane, starts_suspended_and_runs_step_by_step) {
    int v = -1;
    auto l = count_to(2, &v);
    ASSERT_TRUE(l.valid());
    EXPECT_EQ(v, -1);
    l.resume();
    EXPECT_EQ(v, 0);
    l.resume();
    EXPECT_EQ(v, 1);
    EXPECT_FALSE(l.done());
    l.resume();
    EXPECT_EQ(v, 2);
    EXPECT_TRUE(l.done());
}

TEST(lane, frame_returns_to_pool_on_reset_and_is_reused) {
    int v = 0;
    auto a = count_to(1, &v);
    ASSERT_TRUE(a.valid());
    EXPECT_EQ(lane_frames.in_use(), 1u);
    a.reset();
    EXPECT_FALSE(a.valid());
    EXPECT_EQ(lane_frames.in_use(), 0u);
}

TEST(lane, pool_exhaustion_is_an_error_value_naming_the_pool) {
    int v = 0;
    auto a = count_to(1, &v), b = count_to(1, &v);
    auto c = count_to(1, &v);
    EXPECT_TRUE(a.valid());
    EXPECT_TRUE(b.valid());
    ASSERT_FALSE(c.valid());
    EXPECT_EQ(c.err().code, weft::errc::no_memory);
    EXPECT_STREQ(c.err().object, "lane_test");
}

TEST(lane, move_transfers_ownership) {
    int v = 0;
    auto a = count_to(1, &v);
    weft::batch::lane b = std::move(a);
    EXPECT_FALSE(a.valid());
    EXPECT_TRUE(b.valid());
    EXPECT_EQ(lane_frames.in_use(), 1u);
}
