// SPDX-License-Identifier: Apache-2.0
#pragma once
// Shared by the weft/batch tests: the frame pool lanes draw from, seeded data.
#include <weft/batch/numeric.hpp>
#include <weft/core/frame_pool.hpp>

#include <cstddef>
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

}  // namespace batch_test
