// SPDX-License-Identifier: Apache-2.0
#include <weft/batch/numeric.hpp>

#include <gtest/gtest.h>

using namespace weft::batch;

TEST(numeric, fixed_point_scales_match_the_thesis) {
    EXPECT_EQ(i16::one, 1 << 13);
    EXPECT_EQ(i32::one, std::int64_t(1) << 26);
    EXPECT_EQ(i16::from_double(0.5), 4096);
    EXPECT_EQ(i32::from_double(-0.25), -(1 << 24));
}

TEST(numeric, fixed_point_saturates_at_the_storage_range) {
    EXPECT_EQ(i16::from_double(10.0), 32767);
    EXPECT_EQ(i16::from_double(-10.0), -32768);
    EXPECT_EQ(i16::narrow(1 << 20), 32767);
    EXPECT_EQ(i16::narrow(-(1 << 20)), -32768);
}

TEST(numeric, fixed_point_multiply_is_arithmetic_shift_of_the_product) {
    EXPECT_EQ(i16::mul(i16::from_double(0.5), i16::from_double(0.5)), i16::from_double(0.25));
    EXPECT_EQ(i16::mul(-1, 1), -1);  // floor, not truncation toward zero
    EXPECT_EQ(i32::mul(i32::from_double(-0.5), i32::from_double(0.5)), i32::from_double(-0.25));
    EXPECT_NEAR(i16::to_double(i16::mul(i16::from_double(1.5), i16::from_double(-2.0))), -3.0, 1e-3);
}

TEST(numeric, floating_types_are_plain) {
    EXPECT_EQ(f32::mul(2.f, 3.f), 6.f);
    EXPECT_EQ(f64::from_double(0.1), 0.1);
    static_assert(!f64::is_fixed && i32::is_fixed);
}
