// SPDX-License-Identifier: Apache-2.0
#pragma once
// 3x3 convolution over a batch of monochrome images (seed 000, §4.3.2),
// "valid" borders: an image of rows x cols gives (rows-2) x (cols-2) values,
// stored with the input's stride (`cols`); the last two columns and rows of
// each output plane are left untouched. One work item is one image; a step
// is `rows_per_step` output rows (the lane prefetches the input rows they
// newly need, then suspends).
#include <weft/batch/interleave.hpp>
#include <weft/batch/kernels/image.hpp>
#include <weft/batch/lane.hpp>
#include <weft/batch/numeric.hpp>
#include <weft/batch/prefetch.hpp>

#include <cstddef>

namespace weft::batch {

/// A 3x3 kernel, row-major.
template <class N>
struct conv3x3_kernel {
    typename N::value k[9];
};

/// One output value at (r, c) of a plane with stride `cols`.
template <class N>
typename N::value conv3x3_at(const typename N::value* in, std::size_t cols, std::size_t r,
                             std::size_t c, const conv3x3_kernel<N>& k) noexcept {
    typename N::acc s{};
    for (std::size_t i = 0; i < 3; ++i)
        for (std::size_t j = 0; j < 3; ++j)
            s += N::mul(k.k[i * 3 + j], in[(r + i) * cols + c + j]);
    return N::narrow(s);
}

/// Lane body: convolve image `item` (first plane only).
template <class Policy, class N>
lane conv3x3_lane(const image_batch<N>& b, const conv3x3_kernel<N>& k, std::size_t item) {
    const std::size_t step = b.rows_per_step ? b.rows_per_step : 1;
    const std::size_t row_bytes = b.cols * sizeof(typename N::value);
    const typename N::value* in = b.inputs[item];
    typename N::value* out = b.outputs[item];
    const std::size_t out_rows = b.rows - 2;
    Policy::hint(in, 2 * row_bytes);  // the two rows above the first step
    for (std::size_t r = 0, n = 0; r < out_rows; r += n) {  // += n: cannot wrap
        n = step < out_rows - r ? step : out_rows - r;
        Policy::hint_write(out + r * b.cols, n * row_bytes);
        co_await Policy::prefetch(in + (r + 2) * b.cols, n * row_bytes);
        for (std::size_t i = r; i < r + n; ++i)
            for (std::size_t c = 0; c + 2 < b.cols; ++c) out[i * b.cols + c] = conv3x3_at<N>(in, b.cols, i, c, k);
    }
}

/// Convolves every image of `b` on `runner`.
/// Precondition: rows >= 3, cols >= 3 and channels >= 1 (errc::invalid
/// otherwise, nothing written).
template <class Policy, class N, std::size_t K>
status conv3x3(interleaver<K>& runner, std::size_t lanes, const image_batch<N>& b,
               const conv3x3_kernel<N>& k) noexcept {
    if (b.rows < 3 || b.cols < 3) return error{errc::invalid, "conv3x3", "image_batch", 3, "image smaller than 3x3"};
    if (b.channels == 0) return error{errc::invalid, "conv3x3", "image_batch", 1, "no channels"};
    return runner.template run_under<Policy>(lanes, b.images,
        [&b, &k](std::size_t i) { return conv3x3_lane<Policy, N>(b, k, i); });
}

}  // namespace weft::batch
