// SPDX-License-Identifier: Apache-2.0
// Review 11 of weft/batch: every kernel and the interleaver against a plain
// reference on many seeded shapes (lanes that do not divide the items,
// empty and one-item batches, early finishers, odd steps), the fixed-point
// helpers against std::round, normalise's acceptance rule against exact
// 128-bit arithmetic, and the tuner's counters against what it sampled.
// Deterministic: seeded generators, synthetic costs, no clock.
#include <weft/batch/batch.hpp>

#include "support.hpp"
#include "support/weft_test.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <vector>

using namespace weft::batch;

namespace {
weft::frame_pool<512, 64> lane_frames{"review11_test"};

// --- interleaver reference ---------------------------------------------------

// A lane that appends its item to `trace` at each of its n + 1 steps.
[[gnu::noinline]] lane traced(std::vector<std::size_t>& trace, std::size_t item, std::size_t n) {
    trace.push_back(item);
    for (std::size_t s = 0; s < n; ++s) {
        co_await interleaved::yield();
        trace.push_back(item);
    }
}

// The documented schedule: slots filled in item order, resumed round-robin,
// a finished lane's slot refilled at once (resumed on the next round).
std::vector<std::size_t> reference_schedule(std::size_t lanes, std::size_t items,
                                            const std::vector<std::size_t>& steps) {
    std::vector<std::size_t> trace;
    if (lanes > items) lanes = items;
    std::vector<long> item_of(lanes, -1);
    std::vector<std::size_t> left(lanes, 0);
    std::size_t next = 0, live = 0;
    for (; live < lanes && next < items; ++live, ++next) {
        item_of[live] = long(next);
        left[live] = steps[next] + 1;
    }
    while (live > 0)
        for (std::size_t k = 0; k < lanes; ++k) {
            if (item_of[k] < 0) continue;
            trace.push_back(std::size_t(item_of[k]));
            if (--left[k] != 0) continue;
            if (next < items) {
                item_of[k] = long(next);
                left[k] = steps[next] + 1;
                ++next;
            } else {
                item_of[k] = -1;
                --live;
            }
        }
    return trace;
}
}  // namespace

TEST(review11_interleaver, schedule_matches_the_reference_on_many_shapes) {
    interleaver<64> r;
    std::mt19937 rng(11);
    for (int round = 0; round < 400; ++round) {
        const std::size_t items = round < 20 ? std::size_t(round % 4) : rng() % 150;
        const std::size_t lanes = 1 + rng() % 64;
        std::vector<std::size_t> steps(items);
        for (auto& s : steps) s = (rng() % 4 == 0) ? 0 : rng() % 9;  // many finish at once
        std::vector<std::size_t> trace;
        ASSERT_TRUE(r.run(lanes, items, [&](std::size_t i) { return traced(trace, i, steps[i]); }))
            << items << " items, " << lanes << " lanes";
        const auto want = reference_schedule(lanes, items, steps);
        ASSERT_EQ(trace, want) << items << " items, " << lanes << " lanes";
        EXPECT_EQ(r.stats().items, items);
        EXPECT_EQ(r.stats().lanes, lanes < items ? lanes : items);
        EXPECT_EQ(r.stats().resumes, want.size());
        EXPECT_EQ(lane_frames.in_use(), 0u);
    }
}

// A pool of p slots under a run asking for more lanes: the run reports the
// pool, every started item finishes once, the prefix is exact, and the
// pool is empty afterwards; with run_under<sequential> one lane suffices.
TEST(review11_interleaver, pool_exhaustion_reports_the_pool_and_leaves_it_empty) {
    interleaver<16> r;
    for (std::size_t p = 1; p <= 4; ++p)
        for (std::size_t lanes = 1; lanes <= 16; ++lanes)
            for (std::size_t items : {0u, 1u, 2u, 5u, 17u}) {
                std::vector<std::size_t> trace;
                weft::frame_pool<512, 4> pool{"lanes4"};
                weft::status st{};
                {
                    // A pool with exactly p free slots: fill the rest.
                    weft::use_frames scope{pool};
                    std::vector<lane> hold;
                    for (std::size_t h = p; h < 4; ++h) hold.push_back(traced(trace, 999, 0));
                    st = r.run(lanes, items, [&](std::size_t i) { return traced(trace, i, i % 3); });
                    for (auto& l : hold) ASSERT_TRUE(l.valid());
                }
                const std::size_t want_lanes = std::min({lanes, items, p});
                const bool fails = std::min(lanes, items) > p;
                if (fails) {
                    ASSERT_FALSE(st);
                    EXPECT_EQ(st.code(), weft::errc::no_memory);
                    EXPECT_STREQ(st.err().message().c_str(), "frame pool 'lanes4': all slots in use (limit 4)");
                    EXPECT_EQ(r.stats().items, p) << p << " " << lanes << " " << items;
                } else {
                    ASSERT_TRUE(st) << st.err().message().c_str();
                    EXPECT_EQ(r.stats().items, items);
                }
                EXPECT_EQ(r.stats().lanes, want_lanes);
                EXPECT_EQ(pool.in_use(), 0u);
                std::vector<int> seen(items, 0);
                for (auto i : trace) if (i < items) ++seen[i];
                for (std::size_t i = 0; i < items; ++i)
                    EXPECT_EQ(seen[i] > 0, i < r.stats().items) << i;
            }
}

// --- numeric ------------------------------------------------------------------

namespace {
template <class Int>
Int reference_round(double x, double one) {
    const double s = x * one;
    if (std::isnan(s)) return 0;
    const long double r = std::round((long double)s);  // ties away from zero
    if (r >= (long double)std::numeric_limits<Int>::max()) return std::numeric_limits<Int>::max();
    if (r <= (long double)std::numeric_limits<Int>::min()) return std::numeric_limits<Int>::min();
    return Int(r);
}

template <class N>
void check_rounding(std::mt19937_64& rng) {
    using V = typename N::value;
    using A = typename N::acc;
    const double one = double(N::one);
    std::vector<double> xs;
    const double vmax = double(std::numeric_limits<V>::max()) / one;
    const double amax = double(std::numeric_limits<A>::max()) / one;
    for (int i = 0; i < 20000; ++i) {
        std::uniform_real_distribution<double> d(-1.2 * vmax, 1.2 * vmax), e(-1.2 * amax, 1.2 * amax);
        const double k = std::floor(d(rng) * one);
        xs.push_back(d(rng));
        xs.push_back(e(rng));
        xs.push_back((k + 0.5) / one);                                // a tie
        xs.push_back(std::nextafter((k + 0.5) / one, 0.0));           // just below a tie
        xs.push_back(std::nextafter((k + 0.5) / one, 1e300));         // just above
        xs.push_back(-(k + 0.5) / one);
        xs.push_back(std::ldexp(double(rng() >> 11), int(rng() % 80) - 60) * ((rng() & 1) ? 1 : -1));
    }
    for (double lim : {double(std::numeric_limits<V>::max()), double(std::numeric_limits<V>::min()),
                       double(std::numeric_limits<A>::max()), double(std::numeric_limits<A>::min())})
        for (double off : {-1.0, -0.5, -0.49, 0.0, 0.49, 0.5, 1.0})
            xs.push_back((lim + off) / one);
    for (double x : xs) {
        ASSERT_EQ(N::from_double(x), reference_round<V>(x, one)) << N::name << " " << x;
        ASSERT_EQ(N::acc_from_double(x), reference_round<A>(x, one)) << N::name << " " << x;
    }
}
}  // namespace

TEST(review11_numeric, from_double_and_acc_from_double_match_round_half_away_then_saturate) {
    std::mt19937_64 rng(1111);
    check_rounding<i16>(rng);
    check_rounding<i32>(rng);
}

TEST(review11_numeric, mul_is_the_floored_exact_product) {
    std::mt19937_64 rng(5);
    for (int i = 0; i < 100000; ++i) {
        const std::int16_t a = std::int16_t(rng()), b = std::int16_t(rng());
        ASSERT_EQ(i16::mul(a, b), std::int32_t(std::floor(double(a) * double(b) / 8192.0)));
        const std::int32_t c = std::int32_t(rng()), d = std::int32_t(rng());
        const __int128 p = (__int128)c * d;
        ASSERT_EQ(i32::mul(c, d), std::int64_t(p >> 26));
    }
}

// --- normalise's acceptance rule ------------------------------------------------

namespace {
// Exact: accepted iff x - mean and (x - mean) * inv_std fit the accumulator
// for every storage value x (the extremes are at x = min and x = max).
template <class N>
bool reference_fits(const normalise_params<N>& p) {
    using A = typename N::acc;
    const __int128 amin = std::numeric_limits<A>::min(), amax = std::numeric_limits<A>::max();
    for (int c = 0; c < 3; ++c)
        for (__int128 x : {(__int128)std::numeric_limits<typename N::value>::min(),
                           (__int128)std::numeric_limits<typename N::value>::max()}) {
            const __int128 d = x - p.mean[c];
            if (d < amin || d > amax) return false;
            const __int128 q = d * p.inv_std[c];
            if (q < amin || q > amax) return false;
        }
    return true;
}

template <class N>
typename N::value reference_normalise(typename N::value x, typename N::acc mean, typename N::acc k) {
    const __int128 q = (((__int128)x - mean) * k) >> N::frac_bits;
    if (q > std::numeric_limits<typename N::value>::max()) return std::numeric_limits<typename N::value>::max();
    if (q < std::numeric_limits<typename N::value>::min()) return std::numeric_limits<typename N::value>::min();
    return typename N::value(q);
}

template <class N>
void check_normalise_params(std::mt19937_64& rng) {
    using A = typename N::acc;
    using V = typename N::value;
    std::size_t accepted = 0, refused = 0;
    for (int round = 0; round < 4000; ++round) {
        normalise_params<N> p{};
        for (int c = 0; c < 3; ++c) {
            const int kind = int(rng() % 4);
            A m, k;
            if (kind == 0) {  // near the boundary of acceptance
                m = A(std::int64_t(rng() % 65536) - 32768) * (sizeof(A) == 8 ? 65536 : 1);
                const __int128 dmax = std::max<__int128>((__int128)std::numeric_limits<V>::max() - m,
                                                         (__int128)m - std::numeric_limits<V>::min());
                const __int128 kl = (__int128)std::numeric_limits<A>::max() / dmax;
                k = A(kl + __int128(std::int64_t(rng() % 5) - 2));
                if (rng() & 1) k = A(-k);
            } else if (kind == 1) {
                m = A(rng());
                k = A(rng() % 64) - 32;
            } else if (kind == 2) {
                m = N::acc_from_double(std::uniform_real_distribution<double>(-1, 2)(rng));
                k = N::acc_from_double(std::uniform_real_distribution<double>(-12, 12)(rng));
            } else {
                m = std::numeric_limits<A>::min() + A(rng() % 3);
                k = A(rng() % 3);
            }
            p.mean[c] = m;
            p.inv_std[c] = k;
        }
        const bool want = reference_fits<N>(p);
        ASSERT_EQ(detail::normalise_fits<N>(p), want)
            << N::name << " mean " << std::int64_t(p.mean[0]) << "," << std::int64_t(p.mean[1]) << ","
            << std::int64_t(p.mean[2]) << " inv_std " << std::int64_t(p.inv_std[0]) << ","
            << std::int64_t(p.inv_std[1]) << "," << std::int64_t(p.inv_std[2]);
        (want ? accepted : refused) += 1;
        if (!want) continue;
        // Accepted: every storage value, also the extremes, as the reference.
        std::vector<V> in(3 * 7);
        for (std::size_t i = 0; i < in.size(); ++i)
            in[i] = i % 7 == 0 ? std::numeric_limits<V>::min() : i % 7 == 1 ? std::numeric_limits<V>::max() : V(rng());
        std::vector<V> out(in.size(), 0);
        const V* ins[] = {in.data()};
        V* outs[] = {out.data()};
        image_batch<N> b{ins, outs, 1, 3, 1, 7, 1};
        interleaver<2> r;
        ASSERT_TRUE((normalise<interleaved, N>(r, 2, b, p)));
        for (std::size_t i = 0; i < in.size(); ++i)
            ASSERT_EQ(out[i], reference_normalise<N>(in[i], p.mean[i / 7], p.inv_std[i / 7])) << i;
    }
    EXPECT_GT(accepted, 100u);
    EXPECT_GT(refused, 100u);
}
}  // namespace

TEST(review11_normalise, acceptance_is_exactly_no_overflow_for_any_storage_value) {
    std::mt19937_64 rng(77);
    check_normalise_params<i16>(rng);
    check_normalise_params<i32>(rng);
}

// --- kernels against references -------------------------------------------------

namespace {
template <class N>
typename N::acc ref_mul(typename N::value a, typename N::value b) {
    if constexpr (N::is_fixed)
        return typename N::acc(((__int128)a * b) >> N::frac_bits);
    else
        return a * b;
}

template <class N, class P>
void svm_against_reference(std::mt19937_64& rng) {
    using V = typename N::value;
    interleaver<8> r;
    for (int round = 0; round < 60; ++round) {
        const std::size_t tables = round < 3 ? std::size_t(round) : rng() % 20;
        const std::size_t features = rng() % 4 == 0 ? 0 : 1 + rng() % 40;
        const std::size_t step = rng() % 5 == 0 ? std::size_t(-1) : rng() % 6;
        const std::size_t lanes = 1 + rng() % 8;
        std::vector<std::vector<V>> w(tables), x(tables);
        std::vector<std::vector<std::uint8_t>> cls(tables);
        std::vector<svm_table<N>> ts(tables);
        for (std::size_t t = 0; t < tables; ++t) {
            const std::size_t rows = rng() % 3 == 0 ? rng() % 2 : rng() % 23;
            w[t] = batch_test::random_values<N>(features + 1, unsigned(rng()), -4, 4);
            x[t] = batch_test::random_values<N>(rows * features + 1, unsigned(rng()), -4, 4);
            cls[t].assign(rows + 1, 7);
            ts[t] = svm_table<N>{w[t].data(), N::acc_from_double(double(int(rng() % 9) - 4) / 4), x[t].data(), rows,
                                 cls[t].data()};
        }
        svm_batch<N> b{ts.data(), tables, features, step};
        ASSERT_TRUE((svm_infer<P, N>(r, lanes, b)));
        for (std::size_t t = 0; t < tables; ++t) {
            for (std::size_t row = 0; row < ts[t].row_count; ++row) {
                typename N::acc s{};
                for (std::size_t f = 0; f < features; ++f) s += ref_mul<N>(w[t][f], x[t][row * features + f]);
                ASSERT_EQ(cls[t][row], s > ts[t].bias ? 1 : 0) << N::name << " table " << t << " row " << row;
            }
            ASSERT_EQ(cls[t][ts[t].row_count], 7) << "wrote past table " << t;
        }
        EXPECT_EQ(r.stats().items, tables);
    }
}

template <class N, class P>
void conv_against_reference(std::mt19937_64& rng) {
    using V = typename N::value;
    interleaver<8> r;
    for (int round = 0; round < 60; ++round) {
        const std::size_t images = round < 3 ? std::size_t(round) : rng() % 12;
        const std::size_t rows = 3 + rng() % 9, cols = 3 + rng() % 9;
        const std::size_t step = rng() % 5 == 0 ? std::size_t(-1) : rng() % 5;
        const std::size_t lanes = 1 + rng() % 8;
        const std::size_t plane = rows * cols;
        auto in = batch_test::random_values<N>(images * plane + 1, unsigned(rng()), -4, 4);
        auto kv = batch_test::random_values<N>(9, unsigned(rng()), -4, 4);
        conv3x3_kernel<N> k;
        for (int i = 0; i < 9; ++i) k.k[i] = kv[std::size_t(i)];
        const V sentinel = N::from_double(0.125);
        std::vector<V> out(images * plane + 1, sentinel);
        std::vector<const V*> ins;
        std::vector<V*> outs;
        // Images in reverse order in memory: slot i must go to outs[i].
        for (std::size_t i = 0; i < images; ++i) {
            ins.push_back(in.data() + (images - 1 - i) * plane);
            outs.push_back(out.data() + (images - 1 - i) * plane);
        }
        image_batch<N> b{ins.data(), outs.data(), images, 1 + rng() % 3, rows, cols, step};
        ASSERT_TRUE((conv3x3<P, N>(r, lanes, b, k)));
        for (std::size_t m = 0; m < images; ++m)
            for (std::size_t y = 0; y < rows; ++y)
                for (std::size_t xx = 0; xx < cols; ++xx) {
                    const V got = outs[m][y * cols + xx];
                    if (y + 2 >= rows || xx + 2 >= cols) {
                        ASSERT_EQ(std::memcmp(&got, &sentinel, sizeof(V)), 0);
                        continue;
                    }
                    typename N::acc s{};
                    for (std::size_t i = 0; i < 3; ++i)
                        for (std::size_t j = 0; j < 3; ++j) s += ref_mul<N>(k.k[i * 3 + j], ins[m][(y + i) * cols + xx + j]);
                    const V want = N::narrow(s);
                    ASSERT_EQ(std::memcmp(&got, &want, sizeof(V)), 0)
                        << N::name << " image " << m << " (" << y << "," << xx << ") " << rows << "x" << cols;
                }
        ASSERT_EQ(std::memcmp(&out[images * plane], &sentinel, sizeof(V)), 0);
    }
}

template <class N, class P>
void normalise_against_reference(std::mt19937_64& rng) {
    using V = typename N::value;
    interleaver<8> r;
    const auto p = imagenet_params<N>();
    for (int round = 0; round < 60; ++round) {
        const std::size_t images = round < 3 ? std::size_t(round) : rng() % 12;
        const std::size_t rows = rng() % 7, cols = rng() % 9;
        const std::size_t step = rng() % 5 == 0 ? std::size_t(-1) : rng() % 5;
        const std::size_t lanes = 1 + rng() % 8;
        const std::size_t per = 3 * rows * cols;
        auto in = batch_test::random_values<N>(images * per + 1, unsigned(rng()), -4, 4);
        const V sentinel = N::from_double(0.125);
        std::vector<V> out(images * per + 1, sentinel);
        std::vector<const V*> ins;
        std::vector<V*> outs;
        for (std::size_t i = 0; i < images; ++i) {
            ins.push_back(in.data() + (images - 1 - i) * per);
            outs.push_back(out.data() + (images - 1 - i) * per);
        }
        image_batch<N> b{ins.data(), outs.data(), images, 3, rows, cols, step};
        ASSERT_TRUE((normalise<P, N>(r, lanes, b, p)));
        for (std::size_t m = 0; m < images; ++m)
            for (std::size_t i = 0; i < per; ++i) {
                const std::size_t c = i / (rows * cols);
                V want;
                if constexpr (N::is_fixed)
                    want = reference_normalise<N>(ins[m][i], p.mean[c], p.inv_std[c]);
                else
                    want = (ins[m][i] - p.mean[c]) * p.inv_std[c];
                ASSERT_EQ(std::memcmp(&outs[m][i], &want, sizeof(V)), 0) << N::name << " image " << m << " " << i;
            }
        ASSERT_EQ(std::memcmp(&out[images * per], &sentinel, sizeof(V)), 0);
    }
}

template <class N>
void all_kernels(std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    svm_against_reference<N, sequential>(rng);
    svm_against_reference<N, interleaved>(rng);
    svm_against_reference<N, interleaved_no_prefetch>(rng);
    conv_against_reference<N, sequential>(rng);
    conv_against_reference<N, interleaved>(rng);
    conv_against_reference<N, interleaved_no_prefetch>(rng);
    normalise_against_reference<N, sequential>(rng);
    normalise_against_reference<N, interleaved>(rng);
    normalise_against_reference<N, interleaved_no_prefetch>(rng);
}
}  // namespace

TEST(review11_kernels, i16_against_reference) { all_kernels<i16>(16); }
TEST(review11_kernels, i32_against_reference) { all_kernels<i32>(32); }
TEST(review11_kernels, f32_against_reference) { all_kernels<f32>(33); }
TEST(review11_kernels, f64_against_reference) { all_kernels<f64>(64); }

// B+Tree: random chains (one leaf, empty leaves, duplicate and negative
// keys), random start leaves, ranges that run off the end of the chain.
TEST(review11_kernels, bptree_against_reference) {
    std::mt19937_64 rng(99);
    interleaver<8> r;
    for (int round = 0; round < 300; ++round) {
        const std::size_t leaves = 1 + rng() % 30;
        const std::size_t cap = rng() % 6;
        const std::size_t lb = bptree_leaf::bytes_for(cap);
        std::vector<std::uint64_t> arena(leaves * lb / 8 + 1);
        std::vector<std::uint32_t> place(leaves);
        std::iota(place.begin(), place.end(), 0u);
        std::shuffle(place.begin(), place.end(), rng);
        auto* base = reinterpret_cast<unsigned char*>(arena.data());
        bptree_leaf* first = bptree_build_chain(base, lb, place.data(), leaves, std::uint32_t(cap));
        std::vector<bptree_leaf*> chain;
        for (bptree_leaf* l = first; l; l = const_cast<bptree_leaf*>(l->next)) chain.push_back(l);
        ASSERT_EQ(chain.size(), leaves);
        for (auto* l : chain) {  // ragged leaves, duplicate and extreme keys
            l->count = std::uint32_t(rng() % (cap + 1));
            for (std::uint32_t k = 0; k < l->count; ++k)
                l->keys()[k] = rng() % 3 == 0 ? std::numeric_limits<std::int32_t>::min()
                               : rng() % 3 == 0 ? std::numeric_limits<std::int32_t>::max() : std::int32_t(rng() % 7) - 3;
        }
        const std::size_t ranges = round < 3 ? std::size_t(round) : rng() % 20;
        const std::size_t per = rng() % 8;
        std::vector<const bptree_leaf*> starts(ranges);
        std::vector<std::size_t> start_idx(ranges);
        for (std::size_t i = 0; i < ranges; ++i) {
            start_idx[i] = rng() % (leaves + 1);  // leaves: a null start
            starts[i] = start_idx[i] < leaves ? chain[start_idx[i]] : nullptr;
        }
        std::vector<std::int64_t> sums(ranges + 1, -99);
        bptree_scan_set s{starts.data(), ranges, per, lb, sums.data()};
        const std::size_t lanes = 1 + rng() % 8;
        const int pol = int(rng() % 3);
        const auto st = pol == 0 ? bptree_scan<sequential>(r, lanes, s)
                        : pol == 1 ? bptree_scan<interleaved>(r, lanes, s)
                                   : bptree_scan<interleaved_no_prefetch>(r, lanes, s);
        ASSERT_TRUE(st);
        for (std::size_t i = 0; i < ranges; ++i) {
            std::int64_t want = 0;
            for (std::size_t j = start_idx[i]; j < leaves && j < start_idx[i] + per; ++j)
                for (std::uint32_t k = 0; k < chain[j]->count; ++k) want += chain[j]->keys()[k];
            ASSERT_EQ(sums[i], want) << "round " << round << " range " << i;
        }
        ASSERT_EQ(sums[ranges], -99);
    }
}

// --- step sizes ----------------------------------------------------------------

// A rows_per_step of "all of them" must not wrap to a small step (which every
// cap accepts), also for an image batch whose row count is not known yet.
TEST(review11_kernels, image_step_bytes_saturates_for_any_huge_rows_per_step) {
    const std::size_t max = std::numeric_limits<std::size_t>::max();
    for (std::size_t rows : {std::size_t(0), std::size_t(10)})
        for (std::size_t rps : {max, max / 2 + 1, max / 2, std::size_t(1) << 62}) {
            image_batch<f32> b{nullptr, nullptr, 1, 3, rows, 10, rps};
            image_batch<f32> one{nullptr, nullptr, 1, 3, rows, 10, 1};
            EXPECT_GE(b.step_bytes(), one.step_bytes()) << rows << " rows, " << rps;
        }
}

// --- autotune -----------------------------------------------------------------

namespace {
std::uint64_t mix(std::uint64_t z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
cache_hierarchy caches32k() {
    cache_hierarchy c;
    c.level_bytes[0] = 32 << 10;
    c.level_bytes[1] = 1 << 20;
    c.levels = 2;
    return c;
}
double med(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
}  // namespace

// On random grids, options and noisy costs: the choice is one of the
// candidates, the trial count is the number of calibrations, no candidate
// gets more samples than the tuner keeps, the winner is fully sampled and
// its reported median is that of its samples and the highest among the
// fully sampled, and nothing over the cap is tried while eligible ones wait.
TEST(review11_autotune, choice_and_counters_agree_with_the_samples) {
    std::mt19937_64 rng(2024);
    for (int round = 0; round < 400; ++round) {
        const std::size_t n = 1 + rng() % 80;
        std::vector<tune_candidate> cs(n);
        for (std::size_t i = 0; i < n; ++i) {
            cs[i].lanes = 1 + rng() % 8;
            cs[i].step_bytes = std::size_t(64) << (rng() % 12);
            cs[i].variant = std::uint8_t(i);  // identity of the candidate
        }
        tune_options o;
        o.max_trials = rng() % 70;
        o.finalists = rng() % 6;
        o.final_runs = rng() % 14;
        o.promotion_passes = rng() % 4;
        o.min_gain = 1.0 + double(rng() % 10) / 100;
        std::map<std::uint8_t, std::vector<double>> got;
        std::size_t calls = 0;
        const std::uint64_t seed = rng();
        const std::size_t cap = caches32k().l1() / 2;
        bool eligible_exists = false;
        for (auto& c : cs) eligible_exists |= c.step_bytes <= cap;
        bool over_cap = false;
        auto res = autotune(caches32k(), cs.data(), n, [&](const tune_candidate& c) {
            ++calls;
            if (eligible_exists && c.step_bytes > cap) over_cap = true;
            const double base = 0.8 + double(mix(seed ^ c.variant) % 1000) / 1000;
            const double noise = 1 + (double(mix(seed + calls) % 200) - 100) / 1000;
            got[c.variant].push_back(base * noise);
            return base * noise;
        }, o);
        std::size_t eligible = 0;
        for (auto& c : cs) eligible += c.step_bytes <= cap;
        if (eligible == 0) eligible = n;
        const std::size_t screened = std::min(eligible, o.max_trials ? o.max_trials : std::size_t(1));
        if (screened > tune_max_screened) {
            ASSERT_FALSE(res);
            EXPECT_EQ(calls, 0u);
            continue;
        }
        ASSERT_TRUE(res) << res.err().message().c_str();
        const tune_choice& ch = *res;
        EXPECT_FALSE(over_cap) << "round " << round;
        EXPECT_EQ(ch.trials, calls) << "round " << round;
        for (auto& [v, s] : got) EXPECT_LE(s.size(), 3 + o.final_runs) << "round " << round;
        const auto& w = got[ch.variant];
        EXPECT_EQ(ch.variant, cs[0].variant);
        EXPECT_EQ(ch.best_lanes, cs[0].lanes);
        EXPECT_EQ(ch.step_bytes, cs[0].step_bytes);
        const std::size_t full = o.final_runs ? 3 + o.final_runs : 1;
        ASSERT_EQ(w.size(), full) << "round " << round;
        EXPECT_DOUBLE_EQ(ch.best_interleaved, med(w)) << "round " << round;
        for (auto& [v, s] : got)
            if (s.size() == full) {
                EXPECT_LE(med(s), ch.best_interleaved) << "round " << round;
            }
        EXPECT_EQ(ch.interleave, ch.best_interleaved >= o.min_gain);
        EXPECT_EQ(ch.lanes, ch.interleave ? cs[0].lanes : 1u);
        EXPECT_EQ(ch.active_set_bytes, cs[0].lanes * cs[0].step_bytes);
        std::size_t capped = 0;
        for (auto& c : cs) capped += c.step_bytes > cap;
        EXPECT_EQ(ch.capped, capped == n ? 0 : capped);
        std::size_t measured = 0;
        for (auto& c : cs) measured += c.measured;
        EXPECT_EQ(measured, screened);
        EXPECT_EQ(got.size(), screened) << "round " << round;
    }
}

// The refusal names the accumulator's bound also for i32 (int64): on a
// 32-bit target error::limit (a size_t) read 4294967295 there.
TEST(review11_normalise, i32_refusal_names_the_int64_bound) {
    normalise_params<i32> p{{0, 0, 0}, {std::numeric_limits<std::int64_t>::max(), 1, 1}};
    std::vector<std::int32_t> in(3, 0), out(3, 7);
    const std::int32_t* ins[] = {in.data()};
    std::int32_t* outs[] = {out.data()};
    image_batch<i32> b{ins, outs, 1, 3, 1, 1, 1};
    interleaver<2> r;
    auto st = normalise<interleaved, i32>(r, 2, b, p);
    ASSERT_FALSE(st);
    EXPECT_STREQ(st.err().message().c_str(),
                 "normalise 'normalise_params': (x - mean) * inv_std can overflow the accumulator "
                 "(limit 9223372036854775807)");
    EXPECT_EQ(out, (std::vector<std::int32_t>(3, 7)));
}

// Extreme options end, spend what they report, and choose a candidate.
TEST(review11_autotune, extreme_options_terminate_and_count_their_samples) {
    const std::size_t max = std::numeric_limits<std::size_t>::max();
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    std::mt19937_64 rng(3);
    for (int round = 0; round < 200; ++round) {
        const std::size_t n = 1 + rng() % 64;
        std::vector<tune_candidate> cs(n);
        for (std::size_t i = 0; i < n; ++i) cs[i] = {1 + rng() % 8, std::size_t(16) << (rng() % 14)};
        tune_options o;
        const std::size_t pick[] = {0, 1, 2, 63, 64, max};
        o.max_trials = pick[rng() % 6];
        o.finalists = pick[rng() % 6];
        o.final_runs = rng() % 14;
        o.promotion_passes = pick[rng() % 6];
        const double fr[] = {0, -1, nan, inf, 0.03, 1e-300};
        o.start_l1_fraction = fr[rng() % 6];
        o.max_step_bytes = rng() % 3 == 0 ? 16 : 0;
        const double mg[] = {nan, -inf, inf, 1.03};
        o.min_gain = mg[rng() % 4];
        cache_hierarchy caches = rng() % 2 ? caches32k() : cache_hierarchy{};
        std::size_t calls = 0;
        auto res = autotune(caches, cs.data(), n, [&](const tune_candidate& c) {
            ++calls;
            return 0.5 + double(mix(calls * 31 + c.lanes * 7 + c.step_bytes) % 1000) / 1000;
        }, o);
        // NaN, or a negative start point, is refused before any sample.
        if (std::isnan(o.min_gain) || !(o.start_l1_fraction >= 0)) {
            ASSERT_FALSE(res);
            EXPECT_EQ(res.code(), weft::errc::invalid);
            EXPECT_EQ(calls, 0u);
            continue;
        }
        ASSERT_TRUE(res) << res.err().message().c_str();
        EXPECT_EQ(res->trials, calls);
        EXPECT_LE(calls, n * (3 + o.final_runs));
        if (res->interleave) {
            EXPECT_EQ(res->lanes, cs[0].lanes);
        } else {
            EXPECT_EQ(res->lanes, 1u);
            EXPECT_EQ(res->speedup, 1.0);
        }
    }
}

// A kernel inside a task, its lanes sharing one pool with the task: the
// pool runs out in the first fill, the kernel reports the pool, the prefix
// is done, a retry from stats().items finishes, every slot comes back and
// the executor is still usable.
TEST(review11_interleaver, pool_exhaustion_inside_a_task_leaves_the_executor_usable) {
    weft::frame_pool<512, 4> shared{"shared"};
    weft::use_frames scope{shared};
    weft::executor ex{weft::test::virtual_clock()};
    const std::size_t T = 6, F = 5, R = 3;
    std::vector<i16::value> w(F, i16::from_double(0.5)), x(T * R * F);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = i16::from_double(double(int(i % 7) - 3) / 4);
    std::vector<std::uint8_t> cls(T * R, 9);
    std::vector<svm_table<i16>> ts(T);
    for (std::size_t t = 0; t < T; ++t) ts[t] = {w.data(), 0, x.data() + t * R * F, R, cls.data() + t * R};
    interleaver<8> r;
    std::string first, second;
    std::size_t done_first = 0;
    auto body = [&]() -> weft::task<> {
        svm_batch<i16> b{ts.data(), T, F, 1};
        auto st = svm_infer<interleaved>(r, 4, b);
        first = weft::test::text(st);
        done_first = r.stats().items;
        svm_batch<i16> rest{ts.data() + done_first, T - done_first, F, 1};
        second = weft::test::text(svm_infer<interleaved>(r, 2, rest));
        co_return;
    };
    ASSERT_TRUE(ex.spawn(body()));
    EXPECT_EQ(ex.run(), weft::run_outcome::completed);
    EXPECT_EQ(first, "frame pool 'shared': all slots in use (limit 4)");
    EXPECT_EQ(done_first, 3u);
    EXPECT_EQ(second, "ok");
    for (std::size_t t = 0; t < T; ++t)
        for (std::size_t row = 0; row < R; ++row) {
            std::int32_t s = 0;
            for (std::size_t f = 0; f < F; ++f) s += i16::mul(w[f], x[(t * R + row) * F + f]);
            EXPECT_EQ(cls[t * R + row], s > 0 ? 1 : 0) << t << "," << row;
        }
    EXPECT_EQ(shared.in_use(), 0u);
    bool again = false;
    auto later = [&]() -> weft::task<> { again = true; co_return; };  // outlives its task
    ASSERT_TRUE(ex.spawn(later()));
    EXPECT_EQ(ex.run(), weft::run_outcome::completed);
    EXPECT_TRUE(again);
}

// std 0.125 with mean 0 in i16 (inv_std 8.0 = 65536 raw): the largest
// product is -32768 x 65536 = INT32_MIN, which fits; docs/batch.md refuses
// only std *below* 0.125. The check compared |x - mean| x |inv_std| with
// INT32_MAX and refused it. Same for i32 at std 1/64 (inv_std 2^32).
// The exact rule is signed: x - mean and the product fit for every x.
TEST(review11_normalise, a_product_of_exactly_the_accumulator_minimum_is_accepted) {
    interleaver<2> r;
    {
        normalise_params<i16> p{{0, 0, 0}, {65536, 65536, 65536}};
        ASSERT_EQ(i16::acc_from_double(1 / 0.125), 65536);
        std::vector<std::int16_t> in = {-32768, 32767, -1, 0, 1, 4096, -32768, 32767, 5};
        std::vector<std::int16_t> out(in.size(), 7);
        const std::int16_t* ins[] = {in.data()};
        std::int16_t* outs[] = {out.data()};
        image_batch<i16> b{ins, outs, 1, 3, 1, 3, 1};
        ASSERT_TRUE((normalise<interleaved, i16>(r, 2, b, p)));
        for (std::size_t i = 0; i < in.size(); ++i) EXPECT_EQ(out[i], reference_normalise<i16>(in[i], 0, 65536)) << i;
        // Negated, the low end gives +2^31: that one overflows, refused.
        for (auto& k : p.inv_std) k = -65536;
        EXPECT_FALSE((normalise<interleaved, i16>(r, 2, b, p)));
        // x - mean of exactly INT32_MIN with inv_std 1 fits as well.
        normalise_params<i16> q{{std::numeric_limits<std::int32_t>::max() - 32767, 0, 0}, {1, 1, 1}};
        EXPECT_TRUE(detail::normalise_fits<i16>(q));
    }
    {
        const std::int64_t k = std::int64_t(1) << 32;
        normalise_params<i32> p{{0, 0, 0}, {k, k, k}};
        std::vector<std::int32_t> in = {std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max(), 3};
        std::vector<std::int32_t> out(in.size(), 7);
        const std::int32_t* ins[] = {in.data()};
        std::int32_t* outs[] = {out.data()};
        image_batch<i32> b{ins, outs, 1, 3, 1, 1, 1};
        ASSERT_TRUE((normalise<sequential, i32>(r, 1, b, p)));
        for (std::size_t i = 0; i < in.size(); ++i) EXPECT_EQ(out[i], reference_normalise<i32>(in[i], 0, k)) << i;
    }
}

// The tuner refuses an infinite sample ("an infinite one always won"), but
// the median of an even number of huge finite samples was (a + b) / 2,
// which overflowed to infinity: the choice reported an infinite ratio and
// to_json wrote "inf" (not JSON).
TEST(review11_autotune, the_median_of_huge_finite_samples_stays_finite) {
    const double big = std::numeric_limits<double>::max();
    tune_candidate cs[2] = {{2, 256}, {4, 256}};
    tune_options o;
    o.final_runs = 1;  // 1 + 2 + 1 = 4 samples: an even count
    auto r = autotune(caches32k(), cs, 2, [&](const tune_candidate& c) { return c.lanes == 4 ? big : 1.5; }, o);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->lanes, 4u);
    EXPECT_TRUE(std::isfinite(r->speedup)) << r->speedup;
    EXPECT_EQ(r->speedup, big);
    char json[512];
    ASSERT_GT(r->to_json(json, sizeof json, "k"), 0);
    EXPECT_EQ(std::strstr(json, "inf"), nullptr) << json;
    // Halving before adding changes nothing for ordinary values.
    double v[4] = {1.1, 1.3, 1.7, 0.9};
    EXPECT_EQ(detail::median_of(v, 4), (1.1 + 1.3) / 2);
}

// Every error names the object and the limit: the tuner's candidate errors
// printed none ("autotune 'candidates': a candidate has 0 lanes").
TEST(review11_autotune, candidate_errors_name_the_limit) {
    tune_candidate cs[2] = {{2, 256}, {0, 256}};
    auto one = [](const tune_candidate&) { return 1.5; };
    EXPECT_STREQ(autotune(caches32k(), cs, 2, one).err().message().c_str(),
                 "autotune 'candidates': a candidate has 0 lanes (limit 1)");
    EXPECT_STREQ(autotune(caches32k(), cs, 0, one).err().message().c_str(),
                 "autotune 'candidates': no candidate (limit 1)");
}
