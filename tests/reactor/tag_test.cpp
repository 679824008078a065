// SPDX-License-Identifier: Apache-2.0
#include <weft/reactor/tag.hpp>

#include <gtest/gtest.h>

using namespace weft;
using weft::reactors::tag;

TEST(tag, orders_by_time_then_microstep) {
    EXPECT_LT((tag{1, 5}), (tag{2, 0}));
    EXPECT_LT((tag{2, 0}), (tag{2, 1}));
    EXPECT_EQ((tag{3, 1}), (tag{3, 1}));
    EXPECT_LT((tag{INT64_MAX - 1, 0}), weft::reactors::never_tag);
}

TEST(tag, zero_delay_is_one_microstep_later) {
    EXPECT_EQ(reactors::delay_tag(tag{5, 2}, 0ms), (tag{5, 3}));
    EXPECT_EQ(reactors::delay_tag(tag{5, 2}, 1ns), (tag{6, 0}));
    EXPECT_EQ(reactors::delay_tag(tag{0, 0}, 10ms), (tag{10'000'000, 0}));
}
