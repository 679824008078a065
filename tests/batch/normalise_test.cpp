// SPDX-License-Identifier: Apache-2.0
#include <weft/batch/kernels/normalise.hpp>

#include "support.hpp"

#include <gtest/gtest.h>

#include <cmath>
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
