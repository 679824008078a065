// SPDX-License-Identifier: Apache-2.0
// Adversarial review of weft/batch: edge sizes, failures mid-run, limits of
// the tuner's inputs, counters that must agree with what happened. Every
// test is deterministic (synthetic lanes and cost functions, no clock).
#include <weft/batch/batch.hpp>

#include "support.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

using namespace weft::batch;

namespace {
weft::frame_pool<256, 8> lane_frames{"review2_test"};

// A lane that counts its visits to `item` and suspends `n` times: it needs
// exactly n + 1 resumptions.
[[gnu::noinline]] lane visits(std::vector<int>& seen, std::size_t item, std::size_t n) {
    ++seen[item];
    for (std::size_t s = 0; s < n; ++s) co_await interleaved::yield();
}

// Step count of item i: irregular, so lanes finish out of order.
std::size_t steps_of(std::size_t i) { return (i * 7 + 3) % 5; }
}  // namespace

// --- interleaver -----------------------------------------------------------

TEST(review2_interleaver, every_item_runs_exactly_once_for_all_small_sizes_and_lane_counts) {
    interleaver<8> r;
    for (std::size_t items = 0; items <= 13; ++items)
        for (std::size_t lanes = 1; lanes <= 8; ++lanes) {
            std::vector<int> seen(items + 1, 0);  // one spare: an item past the end shows
            ASSERT_TRUE(r.run(lanes, items, [&](std::size_t i) { return visits(seen, i, steps_of(i)); }));
            std::uint64_t resumes = 0;
            for (std::size_t i = 0; i < items; ++i) {
                EXPECT_EQ(seen[i], 1) << items << " items, " << lanes << " lanes, item " << i;
                resumes += steps_of(i) + 1;
            }
            EXPECT_EQ(seen[items], 0);
            EXPECT_EQ(r.stats().items, items);
            EXPECT_EQ(r.stats().lanes, lanes < items ? lanes : items);
            EXPECT_EQ(r.stats().resumes, resumes);
            EXPECT_EQ(lane_frames.in_use(), 0u);
        }
}

TEST(review2_interleaver, a_lane_count_over_max_is_invalid_even_with_no_items_and_names_the_limit) {
    interleaver<4> r;
    std::vector<int> seen(1, 0);
    auto make = [&](std::size_t i) { return visits(seen, i, 0); };
    auto st = r.run(5, 0, make);
    ASSERT_FALSE(st);
    EXPECT_EQ(st.code(), weft::errc::invalid);
    EXPECT_STREQ(st.err().message().c_str(), "interleaver 'lanes': lane count out of range (limit 4)");
    st = r.run_under<sequential>(5, 0, make);
    EXPECT_STREQ(st.err().message().c_str(), "interleaver 'lanes': lane count out of range (limit 4)");
}

// A pool with room for two lanes while three are asked for: only two lanes
// ever ran, and stats() said three.
TEST(review2_interleaver, stats_lanes_counts_the_lanes_that_actually_started) {
    interleaver<4> r;
    std::vector<int> seen(5, 0);
    {
        weft::frame_pool<256, 2> two{"two"};
        weft::use_frames scope{two};
        auto st = r.run(3, 5, [&](std::size_t i) { return visits(seen, i, 1); });
        ASSERT_FALSE(st);
        EXPECT_EQ(st.code(), weft::errc::no_memory);
    }
    EXPECT_EQ(r.stats().items, 2u);
    EXPECT_EQ(r.stats().lanes, 2u);
    EXPECT_EQ(r.stats().resumes, 4u);
}

// The documented retry contract, at every failure point: the frame of item
// k cannot be created. Items [0, k) are done exactly once, nothing at or
// past k ran, every frame went back, the counters say so, and the same
// runner finishes the rest.
TEST(review2_interleaver, a_frame_failure_at_any_item_leaves_exactly_the_prefix_done_and_the_runner_reusable) {
    interleaver<8> r;
    const std::size_t items = 11;
    for (std::size_t lanes = 1; lanes <= 8; ++lanes)
        for (std::size_t k = 0; k < items; ++k) {
            std::vector<int> seen(items, 0);
            auto st = r.run(lanes, items, [&](std::size_t i) {
                if (i == k) {
                    weft::frame_pool<16, 1> small{"too_small"};
                    weft::use_frames scope{small};
                    return visits(seen, i, steps_of(i));
                }
                return visits(seen, i, steps_of(i));
            });
            ASSERT_FALSE(st);
            EXPECT_EQ(st.code(), weft::errc::frame_too_large);
            EXPECT_EQ(r.stats().items, k) << lanes << " lanes, failing item " << k;
            EXPECT_EQ(r.stats().lanes, lanes < k ? lanes : k) << lanes << " lanes, failing item " << k;
            std::uint64_t resumes = 0;
            for (std::size_t i = 0; i < items; ++i) {
                EXPECT_EQ(seen[i], i < k ? 1 : 0) << lanes << " lanes, failing item " << k << ", item " << i;
                if (i < k) resumes += steps_of(i) + 1;
            }
            EXPECT_EQ(r.stats().resumes, resumes);
            EXPECT_EQ(lane_frames.in_use(), 0u);
            // Retry from the prefix on the same runner.
            ASSERT_TRUE(r.run(lanes, items - k, [&](std::size_t i) { return visits(seen, k + i, 0); }));
            for (std::size_t i = 0; i < items; ++i) EXPECT_EQ(seen[i], 1);
        }
}

// stats() after a call refused for its lane count: run() clears the
// counters, run_under() (every kernel's entry) left the previous run's, so
// a caller retrying "from stats().items" would skip items.
TEST(review2_interleaver, run_under_refusing_the_lane_count_clears_the_stats_as_run_does) {
    interleaver<4> r;
    std::vector<int> seen(8, 0);
    auto make = [&](std::size_t i) { return visits(seen, i, 1); };
    ASSERT_TRUE(r.run(2, 5, make));
    ASSERT_EQ(r.stats().items, 5u);
    EXPECT_FALSE(r.run(0, 8, make));
    EXPECT_EQ(r.stats().items, 0u);
    EXPECT_EQ(r.stats().lanes, 0u);

    ASSERT_TRUE(r.run(2, 5, make));
    EXPECT_FALSE((r.run_under<interleaved>(0, 8, make)));
    EXPECT_EQ(r.stats().items, 0u);
    EXPECT_EQ(r.stats().lanes, 0u);
    EXPECT_EQ(r.stats().resumes, 0u);
    ASSERT_TRUE(r.run(2, 5, make));
    EXPECT_FALSE((r.run_under<sequential>(9, 8, make)));
    EXPECT_EQ(r.stats().items, 0u);
}

// A make() that returns an empty lane without an error (no frame pool
// failed) was reported as a bare "no_memory" naming nothing.
TEST(review2_interleaver, an_empty_lane_from_make_is_a_named_error_and_keeps_the_prefix) {
    interleaver<4> r;
    std::vector<int> seen(6, 0);
    auto st = r.run(2, 6, [&](std::size_t i) { return i == 3 ? lane{} : visits(seen, i, 1); });
    ASSERT_FALSE(st);
    EXPECT_EQ(st.code(), weft::errc::invalid);
    EXPECT_STREQ(st.err().kind, "interleaver");
    EXPECT_STREQ(st.err().object, "make");
    EXPECT_EQ(r.stats().items, 3u);
    EXPECT_EQ(seen, (std::vector<int>{1, 1, 1, 0, 0, 0}));
    EXPECT_EQ(lane_frames.in_use(), 0u);
}

// --- kernels at edge sizes --------------------------------------------------

TEST(review2_kernels, step_bytes_of_rows_per_step_zero_is_that_of_one_row) {
    // The lanes run rows_per_step == 0 as 1; the step the tuner is told
    // must be the step they take.
    EXPECT_EQ((svm_batch<i16>{nullptr, 0, 100, 0}.step_bytes()), (svm_batch<i16>{nullptr, 0, 100, 1}.step_bytes()));
    image_batch<f32> a{nullptr, nullptr, 0, 3, 4, 10, 0}, b{nullptr, nullptr, 0, 3, 4, 10, 1};
    EXPECT_EQ(a.step_bytes(), b.step_bytes());
    EXPECT_GT(a.step_bytes(), 0u);
}

// A rows_per_step of "all of them" (SIZE_MAX) reports the step the lanes
// take, not a size that wrapped to 0 (which every step cap accepts): the
// image's rows at most, a table's saturated; the active set saturates too.
TEST(review3_kernels, step_bytes_of_a_huge_rows_per_step_does_not_wrap) {
    const std::size_t huge = std::numeric_limits<std::size_t>::max();
    EXPECT_EQ((image_batch<f32>{nullptr, nullptr, 1, 3, 10, 10, std::size_t(1) << 63}.step_bytes()),
              (image_batch<f32>{nullptr, nullptr, 1, 3, 10, 10, 10}.step_bytes()));
    EXPECT_EQ((image_batch<f32>{nullptr, nullptr, 1, 3, 10, 10, 10}.step_bytes()), 2u * 10u * 10u * sizeof(float));
    EXPECT_EQ((svm_batch<f32>{nullptr, 1, 100, huge}.step_bytes()), huge);
    EXPECT_EQ((svm_batch<f32>{nullptr, 1, 100, 4}.step_bytes()), 5u * 100u * sizeof(float));
    EXPECT_EQ((tune_candidate{4, huge}.active_set()), huge);
}

// Rows advance by the rows a step took, so a rows_per_step past half the
// address space ends the loop instead of wrapping round to row 2 for ever.
TEST(review3_kernels, a_step_longer_than_half_the_rows_range_ends_the_row_loop) {
    const std::size_t huge = std::numeric_limits<std::size_t>::max();
    float in[1] = {0.f}, out[1] = {7.f};
    const float* ins[] = {in};
    float* outs[] = {out};
    image_batch<f32> b{ins, outs, 1, 3, huge, /*cols*/ 0, huge / 2 + 2};  // a 0-wide image touches nothing
    interleaver<2> r;
    EXPECT_TRUE((normalise<sequential, f32>(r, 1, b, imagenet_params<f32>())));
    EXPECT_EQ(out[0], 7.f);
}

// conv3x3 refuses a batch without channels (it wrote the first plane).
TEST(review3_kernels, conv3x3_without_channels_is_refused_and_writes_nothing) {
    std::vector<float> in(9, 1.f), out(9, 7.f);
    const float* ins[] = {in.data()};
    float* outs[] = {out.data()};
    image_batch<f32> b{ins, outs, 1, /*channels*/ 0, 3, 3, 1};
    interleaver<2> r;
    auto st = conv3x3<sequential, f32>(r, 1, b, conv3x3_kernel<f32>{{1, 1, 1, 1, 1, 1, 1, 1, 1}});
    ASSERT_FALSE(st);
    EXPECT_STREQ(st.err().message().c_str(), "conv3x3 'image_batch': no channels (limit 1)");
    EXPECT_EQ(out, std::vector<float>(9, 7.f));
}

// normalise's refusal names the accumulator's limit.
TEST(review3_kernels, normalise_refusal_names_the_accumulator_limit) {
    normalise_params<i16> p{{0, 0, 0}, {std::numeric_limits<std::int32_t>::max(), 1, 1}};
    std::vector<std::int16_t> in(3, 0), out(3, 7);
    const std::int16_t* ins[] = {in.data()};
    std::int16_t* outs[] = {out.data()};
    image_batch<i16> b{ins, outs, 1, 3, 1, 1, 1};
    interleaver<2> r;
    auto st = normalise<interleaved, i16>(r, 2, b, p);
    ASSERT_FALSE(st);
    EXPECT_STREQ(st.err().message().c_str(),
                 "normalise 'normalise_params': (x - mean) * inv_std can overflow the accumulator (limit 2147483647)");
    EXPECT_EQ(out, (std::vector<std::int16_t>(3, 7)));
}

TEST(review2_kernels, conv3x3_of_the_smallest_image_writes_one_value_and_nothing_else) {
    using V = i16::value;
    interleaver<8> r;
    const std::size_t images = 5;
    std::vector<V> in(images * 9), out(images * 9 + 1, V(77));
    std::vector<const V*> ins;
    std::vector<V*> outs;
    for (std::size_t i = 0; i < images; ++i) {
        for (std::size_t j = 0; j < 9; ++j) in[i * 9 + j] = i16::from_double(0.01 * double(i + j));
        ins.push_back(in.data() + i * 9);
        outs.push_back(out.data() + i * 9);
    }
    conv3x3_kernel<i16> k{};
    for (auto& v : k.k) v = i16::from_double(0.5);
    // rows_per_step far above the image: clamped to the one output row.
    image_batch<i16> b{ins.data(), outs.data(), images, 1, 3, 3, std::size_t(-1)};
    ASSERT_TRUE((conv3x3<interleaved>(r, 8, b, k)));
    for (std::size_t i = 0; i < images; ++i) {
        EXPECT_EQ(out[i * 9], conv3x3_at<i16>(ins[i], 3, 0, 0, k)) << i;
        for (std::size_t j = 1; j < 9; ++j) EXPECT_EQ(out[i * 9 + j], V(77)) << i << "," << j;
    }
    EXPECT_EQ(out[images * 9], V(77));
}

TEST(review2_kernels, kernel_argument_errors_name_the_object_and_the_limit) {
    interleaver<4> r;
    svm_batch<i16> s{nullptr, 1, i16::max_sum_terms + 1, 1};
    EXPECT_STREQ((svm_infer<interleaved>(r, 2, s)).err().message().c_str(),
                 "svm_batch 'features': w . x can overflow the accumulator (limit 16383)");
    image_batch<f32> tiny{nullptr, nullptr, 1, 1, 2, 5, 1};
    EXPECT_STREQ((conv3x3<interleaved>(r, 2, tiny, conv3x3_kernel<f32>{})).err().message().c_str(),
                 "conv3x3 'image_batch': image smaller than 3x3 (limit 3)");
    image_batch<f32> mono{nullptr, nullptr, 1, 1, 4, 4, 1};
    EXPECT_STREQ((normalise<interleaved>(r, 2, mono, imagenet_params<f32>())).err().message().c_str(),
                 "normalise 'image_batch': needs 3 channels (limit 3)");
}

// A kernel's own argument check returns before the runner is touched:
// stats() still describes the previous run (documented in docs/batch.md).
TEST(review2_kernels, a_kernel_argument_error_leaves_the_runner_and_the_outputs_alone) {
    interleaver<4> r;
    std::vector<int> seen(3, 0);
    ASSERT_TRUE(r.run(2, 3, [&](std::size_t i) { return visits(seen, i, 0); }));
    std::uint8_t cls[2] = {7, 7};
    const i16::value row[2] = {0, 0};
    svm_table<i16> t{row, 0, row, 1, cls};
    svm_batch<i16> s{&t, 1, i16::max_sum_terms + 1, 1};
    EXPECT_EQ((svm_infer<interleaved>(r, 2, s)).code(), weft::errc::invalid);
    EXPECT_EQ(cls[0], 7);
    EXPECT_EQ(r.stats().items, 3u);
}

// --- numeric ----------------------------------------------------------------

TEST(review2_numeric, from_double_rounds_to_nearest_below_one_half) {
    // x + 0.5 rounds up in double for the largest double below 0.5.
    const double h = std::nextafter(0.5, 0.0);
    EXPECT_EQ(i16::from_double(h / 8192), 0);
    EXPECT_EQ(i16::from_double(-h / 8192), 0);
    EXPECT_EQ(i16::from_double(0.5 / 8192), 1);  // ties away from zero, as before
    EXPECT_EQ(i16::from_double(-0.5 / 8192), -1);
    EXPECT_EQ(i16::from_double(1.5 / 8192), 2);
    EXPECT_EQ(i16::from_double(4.0), 32767);
    EXPECT_EQ(i16::from_double(-4.0), -32768);
    EXPECT_EQ(i16::from_double(-5.0), -32768);
}

TEST(review2_numeric, acc_from_double_keeps_an_exact_integer_above_two_to_the_52) {
    // 2^52 + 1 is exact in double; adding 0.5 rounded it to 2^52 + 2.
    const double v = std::ldexp(1.0, 52) + 1;
    EXPECT_EQ(i32::acc_from_double(v / double(i32::one)), std::int64_t(4503599627370497));
    EXPECT_EQ(i32::acc_from_double(-v / double(i32::one)), -std::int64_t(4503599627370497));
    EXPECT_EQ(i32::acc_from_double(1e300), std::numeric_limits<std::int64_t>::max());
    EXPECT_EQ(i32::acc_from_double(-1e300), std::numeric_limits<std::int64_t>::min());
    EXPECT_EQ(i32::acc_from_double(std::nan("")), 0);
}

// --- autotune ---------------------------------------------------------------

namespace {
cache_hierarchy host_caches() {
    cache_hierarchy c;
    c.level_bytes[0] = 32 << 10;
    c.level_bytes[1] = 1 << 20;
    c.levels = 2;
    return c;
}
}  // namespace

// 3 + final_runs wrapped around: a huge request passed the check and the
// tuner took no final samples at all instead of refusing.
TEST(review2_autotune, a_huge_final_runs_is_invalid_not_wrapped) {
    for (std::size_t fr : {std::numeric_limits<std::size_t>::max(), std::numeric_limits<std::size_t>::max() - 2}) {
        tune_candidate cs[3] = {{2, 1024}, {4, 1024}, {8, 1024}};
        std::size_t calls = 0;
        tune_options o;
        o.final_runs = fr;
        auto r = autotune(host_caches(), cs, 3, [&](const tune_candidate&) { ++calls; return 1.2; }, o);
        ASSERT_FALSE(r) << fr;
        EXPECT_EQ(r.code(), weft::errc::invalid);
        EXPECT_STREQ(r.err().message().c_str(),
                     "autotune 'final_runs': more samples per finalist than the tuner keeps (limit 13)");
        EXPECT_EQ(calls, 0u);
    }
}

// The step cap must hold whatever the start point: without a known L1 the
// distance was the active set in bytes, which outweighed the 1e9 "over the
// cap" offset, and an infinite start fraction made every distance equal.
TEST(review2_autotune, capped_candidates_are_never_screened_while_eligible_ones_wait) {
    const std::size_t MiB = std::size_t(1) << 20;
    cache_hierarchy none;  // L1 unknown
    for (int variant = 0; variant < 2; ++variant) {
        // One over the cap with a small active set, one under it with a large one.
        tune_candidate cs[2] = {{1, 1536 * MiB}, {8, 512 * MiB}};
        tune_options o;
        o.max_trials = 1;
        o.final_runs = 0;
        o.max_step_bytes = 1024 * MiB;
        cache_hierarchy caches = none;
        if (variant == 1) {
            caches = host_caches();
            o.start_l1_fraction = std::numeric_limits<double>::infinity();
            o.max_step_bytes = 4 * MiB;
            cs[0] = {1, 8 * MiB};
            cs[1] = {8, 1 * MiB};
        }
        std::size_t largest = 0;
        auto r = autotune(caches, cs, 2, [&](const tune_candidate& c) {
            largest = c.step_bytes > largest ? c.step_bytes : largest;
            return 1.5;
        }, o);
        ASSERT_TRUE(r);
        EXPECT_LE(largest, o.max_step_bytes) << "variant " << variant;
        EXPECT_EQ(r->capped, 1u);
        EXPECT_EQ(r->lanes, 8u) << "variant " << variant;
    }
}

TEST(review2_autotune, zero_max_trials_screens_one_and_zero_final_runs_only_screens) {
    tune_candidate cs[4] = {{2, 256}, {4, 256}, {6, 256}, {8, 256}};
    std::size_t calls = 0;
    tune_options o;
    o.max_trials = 0;
    auto r = autotune(host_caches(), cs, 4, [&](const tune_candidate& c) { ++calls; return 1.0 + double(c.lanes) / 10; }, o);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->trials, calls);
    // One screened candidate, then 2 + final_runs more samples of it.
    EXPECT_EQ(calls, 1u + 2u + o.final_runs);

    calls = 0;
    o.max_trials = 4;
    o.final_runs = 0;
    r = autotune(host_caches(), cs, 4, [&](const tune_candidate& c) { ++calls; return 1.0 + double(c.lanes) / 10; }, o);
    ASSERT_TRUE(r);
    EXPECT_EQ(calls, 4u);
    EXPECT_EQ(r->trials, 4u);
    EXPECT_EQ(r->lanes, 8u);
}

// After a bad sample the tuner stops with the array reordered; a second
// call on the same array must give what a fresh array gives.
TEST(review2_autotune, the_candidate_array_is_reusable_after_a_bad_sample) {
    auto make = [] {
        std::vector<tune_candidate> cs;
        for (std::size_t lanes = 2; lanes <= 8; lanes += 2)
            for (std::size_t step = 64; step <= 4096; step *= 2) cs.push_back({lanes, step});
        return cs;
    };
    auto truth = [](const tune_candidate& c) { return 1.0 + 0.05 * double(c.lanes) - 0.0001 * double(c.step_bytes); };
    auto used = make();
    std::size_t calls = 0;
    auto bad = autotune(host_caches(), used.data(), used.size(), [&](const tune_candidate& c) {
        return ++calls == 20 ? std::nan("") : truth(c);
    }, tune_options{28, 3, 4});
    ASSERT_FALSE(bad);
    EXPECT_STREQ(bad.err().object, "calibrate");
    auto fresh = make();
    // Every candidate is screened (28): the answer cannot depend on how
    // the array was ordered, only on state the tuner failed to reset.
    auto a = autotune(host_caches(), used.data(), used.size(), truth, tune_options{28, 3, 4});
    auto b = autotune(host_caches(), fresh.data(), fresh.size(), truth, tune_options{28, 3, 4});
    ASSERT_TRUE(a);
    ASSERT_TRUE(b);
    EXPECT_EQ(a->lanes, b->lanes);
    EXPECT_EQ(a->step_bytes, b->step_bytes);
    EXPECT_EQ(a->trials, b->trials);
    EXPECT_EQ(a->speedup, b->speedup);
}

TEST(review2_autotune, representative_sample_bytes_saturates_instead_of_wrapping) {
    const cache_hierarchy m = host_caches();
    const std::size_t max = std::numeric_limits<std::size_t>::max();
    // Four active sets of 2^62 (2^30 on a 32-bit target) wrapped to 0, and
    // the sample shrank to twice the cache.
    const std::size_t huge = max / 4 + 1;
    EXPECT_EQ(representative_sample_bytes(m, max, huge), max);
    EXPECT_EQ(representative_sample_bytes(m, max - 1, huge), max - 1);
    cache_hierarchy big;
    big.level_bytes[0] = max / 2 + 1;
    big.levels = 1;
    EXPECT_EQ(representative_sample_bytes(big, max, 1), max);
}
