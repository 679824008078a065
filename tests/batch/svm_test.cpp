// SPDX-License-Identifier: Apache-2.0
#include <weft/batch/kernels/svm.hpp>

#include "support.hpp"

#include <gtest/gtest.h>

#include <vector>

using namespace weft::batch;

namespace {
weft::frame_pool<512, 8> lane_frames{"svm_test"};

// Straightforward reference: for each row, sum of per-feature products.
template <class N>
std::uint8_t reference_class(const typename N::value* w, const typename N::value* x, std::size_t f,
                             typename N::acc bias) {
    typename N::acc s{};
    for (std::size_t i = 0; i < f; ++i) {
        if constexpr (N::is_fixed)
            s += typename N::acc((typename N::acc(w[i]) * typename N::acc(x[i])) >> N::frac_bits);
        else
            s += w[i] * x[i];
    }
    return s > bias ? 1 : 0;
}

template <class N>
class svm_kernel : public ::testing::Test {};
using types = ::testing::Types<i16, i32, f32, f64>;
TYPED_TEST_SUITE(svm_kernel, types);

template <class N, class P>
void check(std::size_t tables, std::size_t rows, std::size_t f, std::size_t step, std::size_t lanes) {
    auto w = batch_test::random_values<N>(tables * f, 1);
    auto x = batch_test::random_values<N>(tables * rows * f, 2);
    std::vector<std::uint8_t> cls(tables * rows, 7);
    std::vector<svm_table<N>> t(tables);
    for (std::size_t i = 0; i < tables; ++i)
        t[i] = {w.data() + i * f, N::acc_from_double(0.01 * double(i)), x.data() + i * rows * f, rows,
                cls.data() + i * rows};
    svm_batch<N> b{t.data(), tables, f, step};
    interleaver<8> r;
    ASSERT_TRUE((svm_infer<P, N>(r, lanes, b)));
    std::size_t ones = 0;
    for (std::size_t i = 0; i < tables; ++i)
        for (std::size_t j = 0; j < rows; ++j) {
            auto want = reference_class<N>(t[i].weights, t[i].rows + j * f, f, t[i].bias);
            ASSERT_EQ(cls[i * rows + j], want) << "table " << i << " row " << j;
            ones += want;
        }
    EXPECT_GT(ones, 0u);  // the data exercise both classes
    EXPECT_LT(ones, tables * rows);
}
}  // namespace

TYPED_TEST(svm_kernel, sequential_matches_reference) { check<TypeParam, sequential>(5, 17, 33, 1, 1); }
TYPED_TEST(svm_kernel, interleaved_matches_reference) { check<TypeParam, interleaved>(9, 13, 64, 3, 4); }
TYPED_TEST(svm_kernel, interleaved_no_prefetch_matches_reference) {
    check<TypeParam, interleaved_no_prefetch>(6, 8, 129, 2, 8);
}

TEST(svm_kernel_step, step_bytes_counts_rows_and_weights) {
    svm_batch<i16> b{nullptr, 0, 100, 3};
    EXPECT_EQ(b.step_bytes(), 4u * 100 * 2);
}
