// SPDX-License-Identifier: Apache-2.0
// The PHM gateway's command line (examples/phm_gateway/options.hpp): a
// number that is not one, or out of its range, is refused with a message.
#include "options.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {
const char* parse(std::vector<const char*> args, phm::params& p) {
    args.insert(args.begin(), "phm_gateway");
    return phm::parse(int(args.size()), args.data(), p);
}
}  // namespace

TEST(phm_options, reads_every_option) {
    phm::params p;
    ASSERT_EQ(parse({"--sensors", "50", "--measurements", "100", "--features", "2048", "--runs", "7", "--seed",
                     "42"}, p), nullptr);
    EXPECT_EQ(p.sensors, 50u);
    EXPECT_EQ(p.measurements, 100u);
    EXPECT_EQ(p.features, 2048u);
    EXPECT_EQ(p.runs, 7);
    EXPECT_EQ(p.seed, 42u);
    EXPECT_FALSE(p.sweep || p.quick);
    phm::params s;
    ASSERT_EQ(parse({"--sweep", "--quick", "--runs", "3"}, s), nullptr);
    EXPECT_TRUE(s.sweep && s.quick);
    EXPECT_EQ(s.runs, 3);
    phm::params d;
    ASSERT_EQ(parse({}, d), nullptr);
    EXPECT_EQ(d.runs, 9);
}

// The sweep picks its own sizes and --quick only shortens a sweep: either
// ignored ran a configuration nobody asked for.
TEST(phm_options, options_the_sweep_would_ignore_are_refused) {
    for (const char* size : {"--sensors", "--measurements", "--features"}) {
        phm::params p;
        const char* why = parse({"--sweep", size, "8"}, p);
        ASSERT_NE(why, nullptr) << size;
        EXPECT_NE(std::string(why).find("--sweep"), std::string::npos);
    }
    phm::params q;
    const char* why = parse({"--quick"}, q);
    ASSERT_NE(why, nullptr);
    EXPECT_NE(std::string(why).find("--quick"), std::string::npos);
}

TEST(phm_options, zero_or_negative_runs_are_refused) {
    // Zero runs compared nothing and printed "nan% saved ... identical: yes".
    for (const char* bad : {"0", "-1", "-0"}) {
        phm::params p;
        const char* why = parse({"--runs", bad}, p);
        ASSERT_NE(why, nullptr) << bad;
        EXPECT_NE(std::string(why).find("--runs"), std::string::npos);
    }
}

TEST(phm_options, numbers_must_be_whole_and_in_range) {
    const std::vector<std::vector<const char*>> bad = {
        {"--sensors", "1"}, {"--sensors", "1001"}, {"--sensors", "2O"}, {"--sensors", "-5"},
        {"--sensors"}, {"--measurements", "0"}, {"--measurements", "4294967297"},
        {"--features", "0"}, {"--features", "8193"}, {"--features", " 12"}, {"--seed", "4294967296"},
        {"--runs", "99999999999999999999999"}, {"--frobnicate"},
        {"--sensors", "1000", "--measurements", "100000", "--features", "8192"},
    };
    for (const auto& args : bad) {
        phm::params p;
        EXPECT_NE(parse(args, p), nullptr) << args[0] << " " << (args.size() > 1 ? args[1] : "");
    }
}
