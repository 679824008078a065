// SPDX-License-Identifier: Apache-2.0
#include <weft/batch/numeric.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

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

TEST(numeric, nan_converts_to_zero_not_to_an_undefined_integer) {
    // A NaN from a broken sensor or a 0/0 must not reach a float-to-int
    // conversion: that is undefined (x86 gives INT_MIN, UBSan aborts).
    volatile double nan = std::nan("");
    EXPECT_EQ(i16::from_double(nan), 0);
    EXPECT_EQ(i32::from_double(nan), 0);
    EXPECT_EQ(i16::acc_from_double(nan), 0);
    EXPECT_EQ(i32::acc_from_double(nan), 0);
}

TEST(numeric, accumulator_constants_saturate_at_the_accumulator_range) {
    volatile double big = 1e6, inf = std::numeric_limits<double>::infinity();
    EXPECT_EQ(i16::acc_from_double(big), std::numeric_limits<std::int32_t>::max());
    EXPECT_EQ(i16::acc_from_double(-big), std::numeric_limits<std::int32_t>::min());
    EXPECT_EQ(i32::acc_from_double(inf), std::numeric_limits<std::int64_t>::max());
    EXPECT_EQ(i32::acc_from_double(-inf), std::numeric_limits<std::int64_t>::min());
    EXPECT_EQ(i16::from_double(inf), 32767);
    EXPECT_EQ(i16::acc_from_double(0.5), 4096);
}
