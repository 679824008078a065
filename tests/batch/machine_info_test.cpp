// SPDX-License-Identifier: Apache-2.0
// weft_port/machine_info.hpp (the posix port's helper for weft/batch).
#include <weft_port/machine_info.hpp>

#include <gtest/gtest.h>

TEST(machine_info, cache_levels_are_plausible) {
    weft::port::cache_source src;
    auto c = weft::port::read_cache_levels(&src);
    EXPECT_GE(c.levels, 1u);
    EXPECT_GE(c.level_bytes[0], 4096u);
    EXPECT_GE(c.total(), c.level_bytes[0]);
}

TEST(machine_info, parse_size_understands_sysfs_suffixes) {
    EXPECT_EQ(weft::port::detail::parse_size("32K"), 32u << 10);
    EXPECT_EQ(weft::port::detail::parse_size("2M"), 2u << 20);
    EXPECT_EQ(weft::port::detail::parse_size("512"), 512u);
}

TEST(machine_info, perf_counters_work_or_say_why_not) {
    weft::port::perf_counters pc;
    if (!pc.available()) {
        EXPECT_GT(std::strlen(pc.why()), 0u);
        GTEST_SKIP() << pc.why();
    }
    pc.start();
    volatile int x = 0;
    for (int i = 0; i < 100000; ++i) x = x + i;
    pc.stop();
    EXPECT_GT(pc.value(weft::port::perf_counters::instructions), 100000u);
}
