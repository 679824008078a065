// SPDX-License-Identifier: Apache-2.0
#include <weft/batch/kernels/normalise.hpp>

#include "support.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

using namespace weft::batch;

namespace {
weft::frame_pool<512, 8> lane_frames{"normalise_test"};

template <class N>
class normalise_kernel : public ::testing::Test {};
using types = ::testing::Types<i16, i32, f32, f64>;
TYPED_TEST_SUITE(normalise_kernel, types);

const double mean[3] = {0.485, 0.456, 0.406}, stdev[3] = {0.229, 0.224, 0.225};

template <class N, class P>
void check(std::size_t images, std::size_t rows, std::size_t cols, std::size_t step, std::size_t lanes) {
    const std::size_t plane = rows * cols, per = 3 * plane;
    auto in = batch_test::random_values<N>(images * per, 3, 0.0, 1.0);
    std::vector<typename N::value> out(images * per);
    std::vector<const typename N::value*> ins;
    std::vector<typename N::value*> outs;
    for (std::size_t i = 0; i < images; ++i) {
        ins.push_back(in.data() + i * per);
        outs.push_back(out.data() + i * per);
    }
    image_batch<N> b{ins.data(), outs.data(), images, 3, rows, cols, step};
    interleaver<8> r;
    const auto p = imagenet_params<N>();
    ASSERT_TRUE((normalise<P, N>(r, lanes, b, p)));
    for (std::size_t i = 0; i < images * per; ++i) {
        const std::size_t c = (i % per) / plane;
        if constexpr (N::is_fixed) {
            // bit-exact: (x - mean) * (1/std) >> frac, saturated
            typename N::acc d = typename N::acc(in[i]) - p.mean[c];
            typename N::acc v = (d * p.inv_std[c]) >> N::frac_bits;
            ASSERT_EQ(out[i], N::narrow(v)) << i;
            // and close to the real-valued result
            ASSERT_NEAR(N::to_double(out[i]), (N::to_double(in[i]) - mean[c]) / stdev[c], 2e-3);
        } else {
            ASSERT_NEAR(double(out[i]), (double(in[i]) - mean[c]) / stdev[c], 1e-5) << i;
        }
    }
}
}  // namespace

TYPED_TEST(normalise_kernel, sequential_matches_reference) { check<TypeParam, sequential>(3, 7, 11, 1, 1); }
TYPED_TEST(normalise_kernel, interleaved_matches_reference) { check<TypeParam, interleaved>(7, 9, 16, 2, 3); }
TYPED_TEST(normalise_kernel, no_prefetch_matches_reference) {
    check<TypeParam, interleaved_no_prefetch>(4, 5, 5, 4, 8);
}

TEST(normalise_kernel_args, rejects_non_rgb_batches) {
    image_batch<f32> b{};
    b.channels = 1;
    interleaver<2> r;
    EXPECT_EQ((normalise<interleaved, f32>(r, 2, b, imagenet_params<f32>())).code(), weft::errc::invalid);
}

TEST(normalise_kernel_args, i16_extreme_inputs_stay_within_the_accumulator) {
    // ImageNet constants: the largest |x - mean| x (1/std) over the whole
    // Q2.13 range (x = -4, std 0.224) is 1.34e9 < 2^31: accepted, saturated.
    std::vector<std::int16_t> in(3 * 2, -32768), out(3 * 2, 0);
    in[1] = in[3] = in[5] = 32767;
    const std::int16_t* ins[] = {in.data()};
    std::int16_t* outs[] = {out.data()};
    image_batch<i16> b{ins, outs, 1, 3, 1, 2, 1};
    interleaver<2> r;
    ASSERT_TRUE((normalise<sequential, i16>(r, 1, b, imagenet_params<i16>())));
    for (std::size_t i = 0; i < out.size(); ++i) EXPECT_EQ(out[i], i % 2 ? 32767 : -32768) << i;
}

TEST(normalise_kernel_args, params_that_can_overflow_the_accumulator_are_invalid) {
    // std 0.1 in i16: (4 - 0.5) x 10 in Q2.13 is 35 x 2^26 > 2^31, so an
    // input at the top of the storage range overflowed int32 (undefined;
    // in practice the output wrapped to a wrong sign).
    normalise_params<i16> p = imagenet_params<i16>();
    p.inv_std[1] = i16::acc_from_double(1 / 0.1);
    std::vector<std::int16_t> in(3, 32767), out(3, 7);
    const std::int16_t* ins[] = {in.data()};
    std::int16_t* outs[] = {out.data()};
    image_batch<i16> b{ins, outs, 1, 3, 1, 1, 1};
    interleaver<2> r;
    auto st = normalise<sequential, i16>(r, 1, b, p);
    ASSERT_FALSE(st);
    EXPECT_EQ(st.code(), weft::errc::invalid);
    EXPECT_STREQ(st.err().object, "normalise_params");
    EXPECT_EQ(out, (std::vector<std::int16_t>(3, 7)));  // nothing written
    // i32 holds the same parameters.
    normalise_params<i32> q = imagenet_params<i32>();
    q.inv_std[1] = i32::acc_from_double(1 / 0.1);
    std::vector<std::int32_t> in32(3, std::numeric_limits<std::int32_t>::max()), out32(3);
    const std::int32_t* ins32[] = {in32.data()};
    std::int32_t* outs32[] = {out32.data()};
    image_batch<i32> b32{ins32, outs32, 1, 3, 1, 1, 1};
    ASSERT_TRUE((normalise<sequential, i32>(r, 1, b32, q)));
    EXPECT_EQ(out32[1], std::numeric_limits<std::int32_t>::max());
}

// The bound is checked exactly: a mean of about 1.3e9 (raw Q5.26) and
// inv_std 103 put (INT32_MIN - mean) x inv_std 24 below INT64_MIN, which
// a check in double rounded to the limit and accepted (the output then
// wrapped to INT32_MAX). One less on inv_std fits, and saturates.
TEST(normalise_kernel_args, i32_params_past_the_accumulator_by_a_rounding_error_are_invalid) {
    constexpr std::int64_t mean = 89547299181203496;
    normalise_params<i32> p{};
    for (int c = 0; c < 3; ++c) p.mean[c] = mean, p.inv_std[c] = 103;
    std::vector<std::int32_t> in(3, std::numeric_limits<std::int32_t>::min()), out(3, 7);
    const std::int32_t* ins[] = {in.data()};
    std::int32_t* outs[] = {out.data()};
    image_batch<i32> b{ins, outs, 1, 3, 1, 1, 1};
    interleaver<2> r;
    auto st = normalise<sequential, i32>(r, 1, b, p);
    ASSERT_FALSE(st);
    EXPECT_EQ(st.code(), weft::errc::invalid);
    EXPECT_STREQ(st.err().object, "normalise_params");
    EXPECT_EQ(out, (std::vector<std::int32_t>(3, 7)));  // nothing written
    for (int c = 0; c < 3; ++c) p.inv_std[c] = 102;      // 2^63 - |product| > 0
    ASSERT_TRUE((normalise<sequential, i32>(r, 1, b, p)));
    EXPECT_EQ(out, (std::vector<std::int32_t>(3, std::numeric_limits<std::int32_t>::min())));
}

TYPED_TEST(normalise_kernel, every_policy_gives_the_same_bits_on_random_batches) {
    using N = TypeParam;
    using V = typename N::value;
    for (unsigned seed = 1; seed <= 60; ++seed) {
        // 0..6 images of 0..9 x 0..13 values at an odd element offset, over
        // the whole storage range (and NaN / infinities for f32/f64).
        std::mt19937 rng(seed);
        const std::size_t images = rng() % 7, rows = rng() % 10, cols = rng() % 14, off = rng() % 4;
        const std::size_t per = 3 * rows * cols;
        auto in = batch_test::random_values<N>(off + images * per, seed, -4.5, 4.5);
        batch_test::sprinkle_non_finite<N>(in, off, rng, V(std::numeric_limits<V>::infinity()));
        std::vector<const V*> ins;
        for (std::size_t i = 0; i < images; ++i) ins.push_back(in.data() + off + i * per);
        const std::size_t step = rng() % 6, lanes = 1 + seed % 8;
        auto run = [&](auto policy, std::size_t l) {
            return batch_test::image_run_bytes<N>(ins, off, per, 3, rows, cols, step, [&](image_batch<N>& b) {
                interleaver<8> r;
                return normalise<decltype(policy), N>(r, l, b, imagenet_params<N>());
            });
        };
        const auto want = run(sequential{}, 1);
        ASSERT_EQ(run(interleaved{}, lanes), want) << "seed " << seed;
        ASSERT_EQ(run(interleaved_no_prefetch{}, lanes), want) << "seed " << seed;
    }
}
