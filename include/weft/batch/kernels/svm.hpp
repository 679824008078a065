// SPDX-License-Identifier: Apache-2.0
#pragma once
// Linear SVM inference (seed 000, fig. 4.3 and listing 5.2): for each row x
// of a table, class = (w · x > bias). One work item is one table (in the
// gateway: one sensor's measurements with that sensor's weights). A step is
// `rows_per_step` rows: the lane prefetches them, suspends, then scores them.
#include <weft/batch/interleave.hpp>
#include <weft/batch/lane.hpp>
#include <weft/batch/numeric.hpp>
#include <weft/batch/prefetch.hpp>

#include <cstddef>
#include <cstdint>

namespace weft::batch {

/// One table: rows x features values, row-major, and its model.
template <class N>
struct svm_table {
    const typename N::value* weights = nullptr;  ///< `features` weights
    typename N::acc bias{};                      ///< class 1 iff w · x > bias
    const typename N::value* rows = nullptr;     ///< row_count * features values
    std::size_t row_count = 0;
    std::uint8_t* classes = nullptr;             ///< output: row_count values 0/1
};

/// The tables to score: a view on caller-owned storage.
template <class N>
struct svm_batch {
    const svm_table<N>* tables = nullptr;
    std::size_t table_count = 0;   ///< number of work items
    std::size_t features = 0;      ///< values per row (same for every table)
    std::size_t rows_per_step = 1; ///< rows prefetched per suspension (>= 1)

    /// Bytes one lane touches per step: its rows plus its (resident) weights.
    std::size_t step_bytes() const noexcept {
        // The lane runs 0 rows per step as 1: report the step it takes
        // (saturated: SIZE_MAX rows per step means all of a table's).
        const std::size_t rows = rows_per_step ? rows_per_step : 1;
        const std::size_t with_weights = rows == ~std::size_t{0} ? rows : rows + 1;
        return detail::saturating_mul(detail::saturating_mul(with_weights, features), sizeof(typename N::value));
    }
};

/// w · x over `features` values, in the accumulator type of N.
template <class N>
typename N::acc svm_score(const typename N::value* w, const typename N::value* x,
                          std::size_t features) noexcept {
    typename N::acc s{};
    for (std::size_t i = 0; i < features; ++i) s += N::mul(w[i], x[i]);
    return s;
}

/// Lane body: classify every row of table `item`.
template <class Policy, class N>
lane svm_lane(const svm_batch<N>& b, std::size_t item) {
    const svm_table<N>& t = b.tables[item];
    const std::size_t f = b.features;
    const std::size_t step = b.rows_per_step ? b.rows_per_step : 1;
    Policy::hint_write(t.classes, t.row_count);
    co_await Policy::prefetch(t.weights, f * sizeof(typename N::value));
    for (std::size_t r = 0, n = 0; r < t.row_count; r += n) {  // += n: cannot wrap
        n = step < t.row_count - r ? step : t.row_count - r;
        const typename N::value* x = t.rows + r * f;
        co_await Policy::prefetch(x, n * f * sizeof(typename N::value));
        for (std::size_t j = 0; j < n; ++j, x += f)
            t.classes[r + j] = svm_score<N>(t.weights, x, f) > t.bias ? 1 : 0;
    }
}

/// Scores every table of `b` on `runner` (one lane when Policy is sequential).
/// Errors: errc::invalid when features exceeds N::max_sum_terms (i16: 16383;
/// a longer int32 sum can overflow), nothing written; those of interleaver::run.
template <class Policy, class N, std::size_t K>
status svm_infer(interleaver<K>& runner, std::size_t lanes, const svm_batch<N>& b) noexcept {
    if (b.features > N::max_sum_terms)
        return error{errc::invalid, "svm_batch", "features", N::max_sum_terms, "w . x can overflow the accumulator"};
    return runner.template run_under<Policy>(lanes, b.table_count,
        [&b](std::size_t i) { return svm_lane<Policy, N>(b, i); });
}

}  // namespace weft::batch
