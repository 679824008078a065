// SPDX-License-Identifier: Apache-2.0
// The PHM gateway's datagram collation (examples/phm_gateway/collator.hpp):
// bad input is counted, never crashes, never corrupts another sensor's data.
#include "collator.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace {
constexpr std::size_t S = 4, M = 3, F = 8;

struct fleet {
    std::vector<std::int16_t> values = std::vector<std::int16_t>(S * M * F);
    std::vector<std::uint8_t> seen = std::vector<std::uint8_t>(S * M);
    phm::collator c{values.data(), seen.data(), S, M, F};
    std::vector<std::int16_t> truth = std::vector<std::int16_t>(S * M * F);

    fleet() {
        std::mt19937 rng(42);
        for (auto& v : truth) v = std::int16_t(rng());
    }
    std::vector<unsigned char> datagram(std::size_t s, std::size_t m, std::size_t f = F) {
        std::vector<unsigned char> b(phm::header_bytes + 2 * f + 8);
        std::vector<std::int16_t> feats(f, 0x5555);
        if (s < S && m < M)  // out-of-range ids carry filler features
            for (std::size_t i = 0; i < f && i < F; ++i) feats[i] = truth[(s * M + m) * F + i];
        b.resize(phm::encode(b.data(), std::uint16_t(s), std::uint32_t(m), feats.data(), std::uint16_t(f)));
        return b;
    }
    void send_all() {
        for (std::size_t s = 0; s < S; ++s)
            for (std::size_t m = 0; m < M; ++m) {
                auto d = datagram(s, m);
                ASSERT_EQ(c.accept(d.data(), d.size()), phm::outcome::stored);
            }
    }
};
}  // namespace

TEST(collator, files_every_measurement_under_its_sensor) {
    fleet f;
    f.send_all();
    EXPECT_TRUE(f.c.complete());
    EXPECT_EQ(f.values, f.truth);
    EXPECT_EQ(f.c.rejected(), 0u);
}

TEST(collator, bad_datagrams_are_counted_and_change_nothing) {
    fleet f;
    f.send_all();
    auto good = f.datagram(1, 1);
    // truncated: every length short of the full datagram
    for (std::size_t n = 0; n < good.size(); ++n)
        EXPECT_NE(f.c.accept(good.data(), n), phm::outcome::stored);
    // oversized
    auto big = good;
    big.push_back(0xAB);
    EXPECT_EQ(f.c.accept(big.data(), big.size()), phm::outcome::oversized);
    // unknown sensor, bad index, wrong feature count, bad magic
    auto unk = f.datagram(S + 3, 0);
    EXPECT_EQ(f.c.accept(unk.data(), unk.size()), phm::outcome::unknown_sensor);
    auto idx = f.datagram(0, M);
    EXPECT_EQ(f.c.accept(idx.data(), idx.size()), phm::outcome::bad_index);
    auto wide = f.datagram(2, 0, F + 1);
    EXPECT_EQ(f.c.accept(wide.data(), wide.size()), phm::outcome::wrong_features);
    auto magic = good;
    magic[0] ^= 0xFF;
    EXPECT_EQ(f.c.accept(magic.data(), magic.size()), phm::outcome::bad_magic);
    EXPECT_EQ(f.c.count(phm::outcome::oversized), 1u);
    EXPECT_EQ(f.c.count(phm::outcome::unknown_sensor), 1u);
    EXPECT_GE(f.c.count(phm::outcome::truncated), good.size() - 1);
    EXPECT_EQ(f.values, f.truth);  // nobody's data moved
}

TEST(collator, duplicates_keep_the_first_copy) {
    fleet f;
    f.send_all();
    auto d = f.datagram(3, 2);
    d[phm::header_bytes] ^= 0x1;  // same slot, different payload
    EXPECT_EQ(f.c.accept(d.data(), d.size()), phm::outcome::duplicate);
    EXPECT_EQ(f.values, f.truth);
}

TEST(collator, random_garbage_never_crashes_or_corrupts) {
    fleet f;
    f.send_all();
    std::mt19937 rng(9);
    std::vector<unsigned char> junk(phm::header_bytes + 2 * F + 16);
    for (int i = 0; i < 20000; ++i) {
        for (auto& b : junk) b = std::uint8_t(rng());
        if (i % 2) {  // half of them look like PHM1 datagrams
            auto g = f.datagram(rng() % (S + 2), rng() % (M + 2), F);
            std::copy(g.begin(), g.begin() + 12, junk.begin());
        }
        f.c.accept(junk.data(), rng() % junk.size());
    }
    EXPECT_EQ(f.values, f.truth);
    EXPECT_EQ(f.c.stored(), S * M);
}

TEST(collator, files_into_separate_per_sensor_buffers) {
    // Buffers in reverse order with gaps: each sensor's block is its own place.
    std::vector<std::int16_t> arena((S * M * F) * 2 + 64, 0x7777);
    std::int16_t* per[S];
    for (std::size_t s = 0; s < S; ++s) per[s] = arena.data() + (S - 1 - s) * 2 * M * F + 16;
    std::vector<std::uint8_t> seen(S * M);
    phm::collator c{per, seen.data(), S, M, F};
    fleet f;  // for its datagrams and truth
    for (std::size_t s = 0; s < S; ++s)
        for (std::size_t m = 0; m < M; ++m) {
            auto d = f.datagram(s, m);
            ASSERT_EQ(c.accept(d.data(), d.size()), phm::outcome::stored);
        }
    auto bad = f.datagram(S, 0);
    EXPECT_EQ(c.accept(bad.data(), bad.size()), phm::outcome::unknown_sensor);
    EXPECT_TRUE(c.complete());
    for (std::size_t s = 0; s < S; ++s)
        for (std::size_t i = 0; i < M * F; ++i) ASSERT_EQ(per[s][i], f.truth[s * M * F + i]) << s << " " << i;
    // The gaps between the buffers are untouched.
    for (std::size_t s = 0; s < S; ++s)
        for (std::size_t i = M * F; i < 2 * M * F && (S - 1 - s) * 2 * M * F + 16 + i < arena.size(); ++i)
            ASSERT_EQ(per[s][i], 0x7777);
}
