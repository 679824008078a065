// SPDX-License-Identifier: Apache-2.0
#include <weft/batch/kernels/conv3x3.hpp>

#include "support.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <random>
#include <vector>

using namespace weft::batch;

namespace {
weft::frame_pool<512, 8> lane_frames{"conv3x3_test"};

template <class N>
class conv3x3_kernel_test : public ::testing::Test {};
using types = ::testing::Types<i16, i32, f32, f64>;
TYPED_TEST_SUITE(conv3x3_kernel_test, types);

template <class N, class P>
void check(std::size_t images, std::size_t rows, std::size_t cols, std::size_t step, std::size_t lanes) {
    const std::size_t plane = rows * cols;
    auto in = batch_test::random_values<N>(images * plane, 4);
    auto kv = batch_test::random_values<N>(9, 5, -0.5, 0.5);
    conv3x3_kernel<N> k;
    for (int i = 0; i < 9; ++i) k.k[i] = kv[std::size_t(i)];
    const auto sentinel = N::from_double(0.125);
    std::vector<typename N::value> out(images * plane, sentinel);
    std::vector<const typename N::value*> ins;
    std::vector<typename N::value*> outs;
    for (std::size_t i = 0; i < images; ++i) {
        ins.push_back(in.data() + i * plane);
        outs.push_back(out.data() + i * plane);
    }
    image_batch<N> b{ins.data(), outs.data(), images, 1, rows, cols, step};
    interleaver<8> r;
    ASSERT_TRUE((conv3x3<P, N>(r, lanes, b, k)));
    for (std::size_t m = 0; m < images; ++m)
        for (std::size_t y = 0; y < rows; ++y)
            for (std::size_t x = 0; x < cols; ++x) {
                const auto got = out[m * plane + y * cols + x];
                if (y + 2 >= rows || x + 2 >= cols) {
                    ASSERT_EQ(got, sentinel);  // borders untouched
                    continue;
                }
                typename N::acc s{};
                double real = 0;
                for (std::size_t i = 0; i < 3; ++i)
                    for (std::size_t j = 0; j < 3; ++j) {
                        auto v = in[m * plane + (y + i) * cols + x + j];
                        auto w = k.k[i * 3 + j];
                        if constexpr (N::is_fixed)
                            s += typename N::acc((typename N::acc(w) * typename N::acc(v)) >> N::frac_bits);
                        real += N::to_double(w) * N::to_double(v);
                    }
                if constexpr (N::is_fixed)
                    ASSERT_EQ(got, N::narrow(s));
                else
                    ASSERT_NEAR(double(got), real, 1e-5);
            }
}
}  // namespace

TYPED_TEST(conv3x3_kernel_test, sequential_matches_reference) { check<TypeParam, sequential>(2, 6, 7, 1, 1); }
TYPED_TEST(conv3x3_kernel_test, interleaved_matches_reference) { check<TypeParam, interleaved>(6, 9, 12, 2, 4); }
TYPED_TEST(conv3x3_kernel_test, no_prefetch_matches_reference) {
    check<TypeParam, interleaved_no_prefetch>(3, 3, 3, 5, 8);
}

TEST(conv3x3_args, rejects_images_smaller_than_the_kernel) {
    image_batch<f32> b{};
    b.rows = 2;
    b.cols = 10;
    interleaver<2> r;
    EXPECT_EQ((conv3x3<interleaved, f32>(r, 2, b, conv3x3_kernel<f32>{})).code(), weft::errc::invalid);
}

TYPED_TEST(conv3x3_kernel_test, every_policy_gives_the_same_bits_on_random_batches) {
    using N = TypeParam;
    using V = typename N::value;
    for (unsigned seed = 1; seed <= 60; ++seed) {
        // 0..6 images of 3..10 x 3..12 values at an odd element offset, over
        // the whole storage range (and NaN / infinities for f32/f64).
        std::mt19937 rng(seed);
        const std::size_t images = rng() % 7, rows = 3 + rng() % 8, cols = 3 + rng() % 10, off = rng() % 4;
        const std::size_t plane = rows * cols;
        auto in = batch_test::random_values<N>(off + images * plane, seed, -4.5, 4.5);
        batch_test::sprinkle_non_finite<N>(in, off, rng, V(-std::numeric_limits<V>::infinity()));
        auto kv = batch_test::random_values<N>(9, seed + 1, -4.5, 4.5);
        conv3x3_kernel<N> k;
        for (int i = 0; i < 9; ++i) k.k[i] = kv[std::size_t(i)];
        std::vector<const V*> ins;
        for (std::size_t i = 0; i < images; ++i) ins.push_back(in.data() + off + i * plane);
        const std::size_t step = rng() % 6, lanes = 1 + seed % 8;
        auto run = [&](auto policy, std::size_t l) {
            return batch_test::image_run_bytes<N>(ins, off, plane, 1, rows, cols, step, [&](image_batch<N>& b) {
                interleaver<8> r;
                return conv3x3<decltype(policy), N>(r, l, b, k);
            });
        };
        const auto want = run(sequential{}, 1);
        ASSERT_EQ(run(interleaved{}, lanes), want) << "seed " << seed;
        ASSERT_EQ(run(interleaved_no_prefetch{}, lanes), want) << "seed " << seed;
    }
}
