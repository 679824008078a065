// SPDX-License-Identifier: Apache-2.0
#pragma once
// Numeric types of the batch kernels (seed 000, table 4.2):
//
//   name  storage  format                       accumulator
//   i16   int16_t  fixed point, scale 2^13      int32_t (products rescaled to 2^13)
//   i32   int32_t  fixed point, scale 2^26      int64_t (products rescaled to 2^26)
//   f32   float    IEEE 754                     float
//   f64   double   IEEE 754                     double
//
// Fixed-point products are (a * b) >> frac_bits in the accumulator type; the
// shift of a negative value is arithmetic (defined since C++20), so results
// are bit-exact on every target.
#include <cstddef>
#include <cstdint>
#include <limits>

namespace weft::batch {

namespace detail {
/// a * b, or SIZE_MAX if that does not fit: a step's size reported for a
/// `rows_per_step` of "all of them" (SIZE_MAX) must not wrap to 0, which
/// every step cap would accept.
constexpr std::size_t saturating_mul(std::size_t a, std::size_t b) noexcept {
    std::size_t p = 0;
    return __builtin_mul_overflow(a, b, &p) ? ~std::size_t{0} : p;
}

/// a + b, or SIZE_MAX if that does not fit (a size that wrapped would read
/// as small).
constexpr std::size_t saturating_add(std::size_t a, std::size_t b) noexcept {
    std::size_t s = 0;
    return __builtin_add_overflow(a, b, &s) ? ~std::size_t{0} : s;
}

template <class Value, class Acc, int FracBits>
struct fixed_point {
    using value = Value;
    using acc = Acc;
    static constexpr int frac_bits = FracBits;
    static constexpr bool is_fixed = true;
    static constexpr Acc one = Acc(1) << FracBits;
    /// Products of two storage values a sum may add without overflowing
    /// Acc, whatever the values (the largest product is min x min):
    /// 16383 for i16, 2^27 - 1 for i32. svm_infer refuses longer rows.
    static constexpr std::size_t max_sum_terms = std::size_t(
        std::numeric_limits<Acc>::max() /
        ((Acc(std::numeric_limits<Value>::min()) * Acc(std::numeric_limits<Value>::min())) >> FracBits));

    /// Nearest representable value of x, saturated to the storage range;
    /// NaN gives 0.
    static constexpr Value from_double(double x) noexcept { return round_to<Value>(x); }
    /// An accumulator-scale constant (may exceed the storage range),
    /// saturated to the accumulator range; NaN gives 0.
    static constexpr Acc acc_from_double(double x) noexcept { return round_to<Acc>(x); }
    static constexpr double to_double(Acc v) noexcept { return double(v) / double(one); }
    /// a * b at the same scale. Precondition: the raw product fits in Acc
    /// (always true for two storage values).
    static constexpr Acc mul(Acc a, Acc b) noexcept { return Acc((a * b) >> FracBits); }
    /// Accumulator to storage, saturating.
    static constexpr Value narrow(Acc v) noexcept {
        if (v > Acc(std::numeric_limits<Value>::max())) return std::numeric_limits<Value>::max();
        if (v < Acc(std::numeric_limits<Value>::min())) return std::numeric_limits<Value>::min();
        return Value(v);
    }

private:
    template <class Int>
    static constexpr Int round_to(double x) noexcept {
        double s = x * double(one);
        // Converting a NaN or out-of-range double to an integer is
        // undefined (x86 gives the minimum, UBSan aborts): clamp first.
        if (s != s) return 0;
        if (s >= double(std::numeric_limits<Int>::max())) return std::numeric_limits<Int>::max();
        if (s <= double(std::numeric_limits<Int>::min())) return std::numeric_limits<Int>::min();
        // Not s + 0.5 then truncate: that sum rounds in double (the largest
        // double below 0.5 gave 1, an odd integer above 2^52 the next even
        // one). The fraction s - trunc(s) is exact; ties go away from zero.
        Int t = Int(s);
        const double frac = s - double(t);
        if (frac >= 0.5) ++t;
        else if (frac <= -0.5) --t;
        return t;
    }
};

template <class Value>
struct floating_point {
    using value = Value;
    using acc = Value;
    static constexpr bool is_fixed = false;
    static constexpr std::size_t max_sum_terms = std::numeric_limits<std::size_t>::max();
    static constexpr Value from_double(double x) noexcept { return Value(x); }
    static constexpr Value acc_from_double(double x) noexcept { return Value(x); }
    static constexpr double to_double(Value v) noexcept { return double(v); }
    static constexpr Value mul(Value a, Value b) noexcept { return a * b; }
    static constexpr Value narrow(Value v) noexcept { return v; }
};
}  // namespace detail

/// 16-bit fixed point, 13 fractional bits (range [-4, 4)).
struct i16 : detail::fixed_point<std::int16_t, std::int32_t, 13> {
    static constexpr const char* name = "i16";
};
/// 32-bit fixed point, 26 fractional bits (range [-32, 32)).
/// Products use a 64-bit intermediate; sums are int64_t.
struct i32 : detail::fixed_point<std::int32_t, std::int64_t, 26> {
    static constexpr const char* name = "i32";
};
/// IEEE single precision.
struct f32 : detail::floating_point<float> {
    static constexpr const char* name = "f32";
};
/// IEEE double precision.
struct f64 : detail::floating_point<double> {
    static constexpr const char* name = "f64";
};

}  // namespace weft::batch
