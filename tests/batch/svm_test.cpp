// SPDX-License-Identifier: Apache-2.0
#include <weft/batch/kernels/svm.hpp>

#include "support.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
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

TEST(svm_kernel_limits, i16_sums_up_to_the_accumulator_bound_exactly) {
    // Every product at its largest ((-4) x (-4) = 16 = 2^17 in Q2.13): the
    // int32 sum of 16383 of them is the largest that cannot overflow.
    const std::size_t f = i16::max_sum_terms;
    ASSERT_EQ(f, 16383u);
    std::vector<std::int16_t> w(f, -32768), x(2 * f, -32768);
    x[f] = 0;  // second row: one product fewer
    std::uint8_t cls[2] = {7, 7};
    const std::int32_t full = std::int32_t(f) << 17;
    svm_table<i16> t{w.data(), full - 1, x.data(), 2, cls};
    interleaver<2> r;
    ASSERT_TRUE((svm_infer<interleaved, i16>(r, 2, svm_batch<i16>{&t, 1, f, 1})));
    EXPECT_EQ(cls[0], 1);  // full > full - 1
    EXPECT_EQ(cls[1], 0);
}

TEST(svm_kernel_limits, more_features_than_the_accumulator_holds_is_invalid) {
    // 16384 such products sum to 2^31: int32 overflows (undefined; in
    // practice the sum wraps to -2^31 and the row is classed 0).
    const std::size_t f = 16384;
    std::vector<std::int16_t> w(f, -32768), x(f, -32768);
    std::uint8_t cls = 7;
    svm_table<i16> t{w.data(), 0, x.data(), 1, &cls};
    interleaver<2> r;
    auto st = svm_infer<sequential, i16>(r, 1, svm_batch<i16>{&t, 1, f, 1});
    ASSERT_FALSE(st);
    EXPECT_EQ(st.code(), weft::errc::invalid);
    EXPECT_STREQ(st.err().object, "features");
    EXPECT_EQ(st.err().limit, 16383u);
    EXPECT_EQ(cls, 7);  // nothing written
    // i32 sums in int64: the same width is fine there.
    std::vector<std::int32_t> w32(f, std::numeric_limits<std::int32_t>::min()), x32(f, w32[0]);
    svm_table<i32> t32{w32.data(), 0, x32.data(), 1, &cls};
    ASSERT_TRUE((svm_infer<sequential, i32>(r, 1, svm_batch<i32>{&t32, 1, f, 1})));
    EXPECT_EQ(cls, 1);
}

namespace {
// One random batch: ragged tables (0..20 rows each), 0..70 features, data
// starting at an odd element offset, values over the whole storage range
// (and, for f32/f64, a sprinkling of NaN and infinities).
template <class N>
struct random_svm {
    std::vector<typename N::value> w, x;
    std::vector<svm_table<N>> t;
    std::size_t rows = 0;
    svm_batch<N> b;

    explicit random_svm(unsigned seed) {
        std::mt19937 rng(seed);
        const std::size_t tables = rng() % 12, f = rng() % 71, off = rng() % 4;
        std::vector<std::size_t> rc(tables);
        for (auto& r : rc) rows += r = rng() % 21;
        w = batch_test::random_values<N>(off + tables * f, seed, -4.5, 4.5);
        x = batch_test::random_values<N>(off + rows * f, seed + 1, -4.5, 4.5);
        if constexpr (!N::is_fixed)
            for (std::size_t i = off; i < x.size(); i += 1 + rng() % 97)
                x[i] = i % 3 ? std::numeric_limits<typename N::value>::quiet_NaN()
                             : std::numeric_limits<typename N::value>::infinity() * (i % 2 ? 1 : -1);
        t.resize(tables);
        for (std::size_t i = 0, r0 = 0; i < tables; r0 += rc[i++])
            t[i] = {w.data() + off + i * f, N::acc_from_double(0.1 * double(i % 5) - 0.2),
                    x.data() + off + r0 * f, rc[i], nullptr};
        b = {t.data(), tables, f, rng() % 10};  // rows_per_step 0 counts as 1
    }
    template <class P>
    std::vector<std::uint8_t> run(std::size_t lanes) {
        std::vector<std::uint8_t> cls(rows, 7);
        for (std::size_t i = 0, r0 = 0; i < t.size(); r0 += t[i++].row_count) t[i].classes = cls.data() + r0;
        interleaver<8> r;
        EXPECT_TRUE((svm_infer<P, N>(r, lanes, b)));
        return cls;
    }
};
}  // namespace

TYPED_TEST(svm_kernel, every_policy_gives_the_same_bits_on_random_batches) {
    for (unsigned seed = 1; seed <= 60; ++seed) {
        random_svm<TypeParam> s(seed);
        const std::size_t lanes = 1 + seed % 8;
        const auto want = s.template run<sequential>(1);
        ASSERT_EQ(s.template run<interleaved>(lanes), want) << "seed " << seed;
        ASSERT_EQ(s.template run<interleaved_no_prefetch>(lanes), want) << "seed " << seed;
        ASSERT_EQ(s.template run<sequential>(lanes), want) << "seed " << seed;
        for (auto c : want) ASSERT_LE(c, 1) << "seed " << seed << ": a row was not scored";
    }
}
