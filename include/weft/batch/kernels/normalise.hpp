// SPDX-License-Identifier: Apache-2.0
#pragma once
// ImageNet normalisation (seed 000, §4.3.2): out = (in - mean[c]) / std[c]
// for each channel c of an RGB image with values in [0, 1]. One work item is
// one image; a step is `rows_per_step` rows of one channel.
#include <weft/batch/interleave.hpp>
#include <weft/batch/kernels/image.hpp>
#include <weft/batch/lane.hpp>
#include <weft/batch/numeric.hpp>
#include <weft/batch/prefetch.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>

namespace weft::batch {

/// Per-channel mean and reciprocal standard deviation, in N's accumulator type.
template <class N>
struct normalise_params {
    typename N::acc mean[3];
    typename N::acc inv_std[3];  ///< 1/std (> 4: does not fit i16 storage, fits its accumulator)
};

/// The ImageNet constants: mean (0.485, 0.456, 0.406), std (0.229, 0.224, 0.225).
template <class N>
constexpr normalise_params<N> imagenet_params() noexcept {
    return {{N::acc_from_double(0.485), N::acc_from_double(0.456), N::acc_from_double(0.406)},
            {N::acc_from_double(1 / 0.229), N::acc_from_double(1 / 0.224), N::acc_from_double(1 / 0.225)}};
}

/// One value: (x - mean) * inv_std, narrowed (saturating) to storage.
template <class N>
typename N::value normalise_value(typename N::value x, typename N::acc mean,
                                  typename N::acc inv_std) noexcept {
    return N::narrow(N::mul(typename N::acc(x) - mean, inv_std));
}

namespace detail {
/// The bound normalise_fits() checks against (fixed point only: floats
/// are never refused).
template <class N>
constexpr std::size_t accumulator_limit() noexcept {
    if constexpr (N::is_fixed) return std::size_t(std::numeric_limits<typename N::acc>::max());
    else return 0;
}

/// True when (x - mean) * inv_std fits N's accumulator for every storage
/// value x, not only for the [0, 1] inputs the kernel expects: an input is
/// data, and data out of range must saturate, not overflow.
template <class N>
bool normalise_fits(const normalise_params<N>& p) noexcept {
    if constexpr (!N::is_fixed) {
        return true;
    } else {
        // In exact integer arithmetic: a check in double rounds the mean
        // and the distance, and let an i32 product 24 past INT64_MIN through.
        // Signed, at both ends of the storage range (the product is linear
        // in x, so it fits in between when it fits there): |x - mean| x
        // |inv_std| <= max refused a product of exactly the minimum, i.e.
        // i16 std 0.125 with mean 0, which the docs accept.
        using acc = typename N::acc;
        const acc ends[2] = {std::numeric_limits<typename N::value>::min(),
                             std::numeric_limits<typename N::value>::max()};
        for (std::size_t c = 0; c < 3; ++c)
            for (const acc x : ends) {
                acc d, q;
                if (__builtin_sub_overflow(x, p.mean[c], &d) || __builtin_mul_overflow(d, p.inv_std[c], &q))
                    return false;
            }
        return true;
    }
}
}  // namespace detail

/// Lane body: normalise image `item` (channels must be 3).
template <class Policy, class N>
lane normalise_lane(const image_batch<N>& b, const normalise_params<N>& p, std::size_t item) {
    const std::size_t step = b.rows_per_step ? b.rows_per_step : 1;
    const std::size_t row_bytes = b.cols * sizeof(typename N::value);
    for (std::size_t c = 0; c < 3; ++c) {
        const typename N::value* in = b.inputs[item] + c * b.plane();
        typename N::value* out = b.outputs[item] + c * b.plane();
        for (std::size_t r = 0, n = 0; r < b.rows; r += n) {  // += n: cannot wrap
            n = step < b.rows - r ? step : b.rows - r;
            Policy::hint_write(out + r * b.cols, n * row_bytes);
            co_await Policy::prefetch(in + r * b.cols, n * row_bytes);
            for (std::size_t i = r * b.cols, e = (r + n) * b.cols; i < e; ++i)
                out[i] = normalise_value<N>(in[i], p.mean[c], p.inv_std[c]);
        }
    }
}

/// Normalises every image of `b` on `runner`.
/// Errors (nothing written): errc::invalid when b.channels != 3, or when
/// some storage value x could overflow the fixed-point accumulator in
/// (x - mean) * inv_std (i16: std below 0.125-0.16, by the mean, where
/// outputs of [0, 1] inputs saturate anyway; i32: std below about 0.016);
/// those of interleaver::run.
template <class Policy, class N, std::size_t K>
status normalise(interleaver<K>& runner, std::size_t lanes, const image_batch<N>& b,
                 const normalise_params<N>& p) noexcept {
    if (b.channels != 3) return error{errc::invalid, "normalise", "image_batch", 3, "needs 3 channels"};
    if (!detail::normalise_fits(p)) {
        // error::limit is a size_t: on a 32-bit target i32's int64 bound
        // does not fit it (it read 4294967295), so the text carries it.
        if constexpr (N::is_fixed && std::uintmax_t(std::numeric_limits<typename N::acc>::max()) >
                                         std::uintmax_t(std::numeric_limits<std::size_t>::max())) {
            static_assert(std::numeric_limits<typename N::acc>::max() == INT64_MAX, "the text names int64's bound");
            return error{errc::invalid, "normalise", "normalise_params", 0,
                         "(x - mean) * inv_std can overflow the accumulator (limit 9223372036854775807)"};
        } else {
            return error{errc::invalid, "normalise", "normalise_params", detail::accumulator_limit<N>(),
                         "(x - mean) * inv_std can overflow the accumulator"};
        }
    }
    return runner.template run_under<Policy>(lanes, b.images,
        [&b, &p](std::size_t i) { return normalise_lane<Policy, N>(b, p, i); });
}

}  // namespace weft::batch
