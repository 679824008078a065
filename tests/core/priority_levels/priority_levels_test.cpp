// SPDX-License-Identifier: Apache-2.0
// Built with -DWEFT_PRIORITY_LEVELS=4: levels 0..3 schedule as usual, and a
// priority above 3 is refused with the limit in the message.
#include <weft/core.hpp>

#include <gtest/gtest.h>

#include <string>

using namespace weft;

namespace {
frame_pool<256, 8> frames{"levels_test"};
std::string order;
task<> mark(char c) {
    order += c;
    co_await yield();
    order += c;
}
}  // namespace

TEST(priority_levels, four_levels_run_highest_first) {
    static_assert(max_priority == 3);
    executor ex{{"four", clock_mode::virtual_}};
    order.clear();
    auto a = ex.spawn(mark('a'), 0);
    auto b = ex.spawn(mark('b'), 3);
    auto c = ex.spawn(mark('c'), 3);
    auto d = ex.spawn(mark('d'), 1);
    ASSERT_TRUE(a && b && c && d);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    EXPECT_EQ(order, "bcbcddaa");
}

TEST(priority_levels, priority_above_the_levels_is_refused) {
    executor ex{{"four", clock_mode::virtual_}};
    auto h = ex.spawn(mark('x'), 4);
    ASSERT_FALSE(h);
    EXPECT_EQ(h.code(), errc::invalid);
    EXPECT_STREQ(h.err().message().c_str(), "executor 'four': priority above max_priority (limit 3)");
}
