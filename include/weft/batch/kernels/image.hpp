// SPDX-License-Identifier: Apache-2.0
#pragma once
// A batch of images for the image kernels (normalise, conv3x3): a view on
// caller-owned planes. Each image may live anywhere; within an image, rows
// are contiguous (row-major, `cols` values per row, `channels` planes).
#include <weft/batch/numeric.hpp>

#include <cstddef>

namespace weft::batch {

/// Input and output planes of a batch of images.
template <class N>
struct image_batch {
    const typename N::value* const* inputs = nullptr;  ///< one pointer per image
    typename N::value* const* outputs = nullptr;       ///< one pointer per image
    std::size_t images = 0;          ///< number of work items
    std::size_t channels = 1;        ///< planes per image
    std::size_t rows = 0;
    std::size_t cols = 0;
    std::size_t rows_per_step = 1;   ///< rows prefetched per suspension (>= 1)

    /// Values in one plane.
    std::size_t plane() const noexcept { return rows * cols; }
    /// Bytes one lane touches per step (input and output rows).
    std::size_t step_bytes() const noexcept {
        // The lanes run 0 rows per step as 1, and no more rows than the
        // image has: report the step they take.
        std::size_t step = rows_per_step ? rows_per_step : 1;
        if (rows != 0 && step > rows) step = rows;
        // 2 * step saturated too: with rows unknown (0) a step of 2^63 rows
        // wrapped to 0 bytes, which every step cap accepts.
        return detail::saturating_mul(detail::saturating_mul(detail::saturating_mul(2, step), cols),
                                      sizeof(typename N::value));
    }
};

}  // namespace weft::batch
