// SPDX-License-Identifier: Apache-2.0
#include <weft/batch/autotune.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

using namespace weft::batch;

namespace {
cache_hierarchy machine() {
    cache_hierarchy c;
    c.level_bytes[0] = 32 << 10;
    c.level_bytes[1] = 1 << 20;
    c.levels = 2;
    return c;
}
// A synthetic speed-up curve peaking at an active set of 2x the cache.
double curve(const tune_candidate& c, double peak_bytes) {
    double x = std::log2(double(c.active_set()) / peak_bytes);
    return 1.4 - 0.1 * x * x;
}
}  // namespace

TEST(autotune, finds_the_peak_of_a_smooth_curve_within_budget) {
    std::vector<tune_candidate> cs;
    for (std::size_t lanes = 2; lanes <= 8; ++lanes)
        for (std::size_t step = 1024; step <= (8u << 20); step *= 2) cs.push_back({lanes, step});
    const double peak = 2.0 * double(machine().total());
    std::size_t calls = 0;
    auto r = autotune(machine(), cs.data(), cs.size(), [&](const tune_candidate& c) {
        ++calls;
        return curve(c, peak);
    }, tune_options{16, 6});
    ASSERT_TRUE(r);
    EXPECT_LE(calls, 16u);
    EXPECT_EQ(r->trials, calls);
    EXPECT_GT(r->speedup, 1.38);  // within 2% of the best point
    EXPECT_NEAR(std::log2(r->cache_ratio), 1.0, 0.6);
}

TEST(autotune, single_candidate_is_chosen) {
    tune_candidate c{4, 4096};
    auto r = autotune(machine(), &c, 1, [](const tune_candidate&) { return 1.1; });
    ASSERT_TRUE(r);
    EXPECT_EQ(r->lanes, 4u);
    EXPECT_EQ(r->active_set_bytes, 4u * 4096);
}

TEST(autotune, no_candidate_is_invalid) {
    auto r = autotune(machine(), nullptr, 0, [](const tune_candidate&) { return 1.0; });
    EXPECT_EQ(r.code(), weft::errc::invalid);
}

TEST(autotune, choice_prints_as_one_json_object) {
    tune_choice ch;
    ch.lanes = 3;
    ch.step_bytes = 100;
    char buf[256];
    int n = ch.to_json(buf, sizeof buf, "svm-i16");
    ASSERT_GT(n, 0);
    EXPECT_EQ(buf[0], '{');
    EXPECT_EQ(buf[n - 1], '}');
    EXPECT_NE(std::strstr(buf, "\"lanes\":3"), nullptr);
}
