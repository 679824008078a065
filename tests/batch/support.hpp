// SPDX-License-Identifier: Apache-2.0
#pragma once
// Shared by the weft/batch tests: the frame pool lanes draw from, seeded data.
#include <weft/batch/kernels/image.hpp>
#include <weft/batch/numeric.hpp>
#include <weft/core/frame_pool.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace batch_test {

/// Seeded values in [lo, hi) converted to N's storage.
template <class N>
std::vector<typename N::value> random_values(std::size_t n, unsigned seed, double lo = -1.0,
                                             double hi = 1.0) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> d(lo, hi);
    std::vector<typename N::value> v(n);
    for (auto& x : v) x = N::from_double(d(rng));
    return v;
}

/// For floating-point N, makes `v` non-finite at irregular places from
/// `from` on (NaN, and `other` at every third index): every policy must
/// pass such values through alike. Fixed-point storage is left alone.
template <class N>
void sprinkle_non_finite(std::vector<typename N::value>& v, std::size_t from, std::mt19937& rng,
                         typename N::value other) {
    if constexpr (!N::is_fixed)
        for (std::size_t i = from; i < v.size(); i += 1 + rng() % 53)
            v[i] = i % 3 ? std::numeric_limits<typename N::value>::quiet_NaN() : other;
}

/// Runs `kernel(batch)` on `ins` into fresh output planes (`per` values
/// each, at element offset `off`, pre-filled, one spare value after the
/// last) and returns the output's bytes: NaN == NaN, bit for bit, and a
/// write outside the planes shows.
template <class N, class Kernel>
std::vector<unsigned char> image_run_bytes(const std::vector<const typename N::value*>& ins, std::size_t off,
                                           std::size_t per, std::size_t channels, std::size_t rows,
                                           std::size_t cols, std::size_t step, Kernel&& kernel) {
    using V = typename N::value;
    std::vector<V> out(off + ins.size() * per + 1, N::from_double(0.125));
    std::vector<V*> outs;
    for (std::size_t i = 0; i < ins.size(); ++i) outs.push_back(out.data() + off + i * per);
    weft::batch::image_batch<N> b{ins.data(), outs.data(), ins.size(), channels, rows, cols, step};
    EXPECT_TRUE(kernel(b));
    std::vector<unsigned char> bytes(out.size() * sizeof(V));
    std::memcpy(bytes.data(), out.data(), bytes.size());
    return bytes;
}

}  // namespace batch_test
