// SPDX-License-Identifier: Apache-2.0
#include <weft/core/result.hpp>

#include <gtest/gtest.h>

#include <cstring>

using namespace weft;

// A successful status stores only its code; err() still reads as a valid,
// empty error.
TEST(status, success_reads_as_an_empty_error) {
    status s;
    EXPECT_TRUE(s);
    EXPECT_EQ(s.code(), errc::ok);
    EXPECT_EQ(s.err().code, errc::ok);
    EXPECT_STREQ(s.err().kind, "");
    EXPECT_STREQ(s.err().object, "");
    EXPECT_EQ(s.err().limit, 0u);
    EXPECT_EQ(s.err().detail, nullptr);
    status copy = s;
    EXPECT_TRUE(copy);
}

TEST(status, error_code_alone_has_empty_names) {
    status s{errc::cancelled};
    EXPECT_FALSE(s);
    EXPECT_EQ(s.code(), errc::cancelled);
    EXPECT_STREQ(s.err().kind, "");
    EXPECT_STREQ(s.err().message().c_str(), "cancelled");
    status unnamed{error{errc::cancelled, "sleep", "", 0, nullptr}};
    EXPECT_STREQ(unnamed.err().message().c_str(), "sleep: cancelled");
    // A name without a kind (an object built with a null or empty kind)
    // starts with the name, not with a space.
    status kindless{error{errc::full, nullptr, "rx", 4, nullptr}};
    EXPECT_STREQ(kindless.err().message().c_str(), "'rx': full (limit 4)");
}

TEST(status, full_error_survives_copies) {
    status s{error{errc::full, "channel", "uart_rx", 8, nullptr}};
    status copy = s;
    status assigned;
    assigned = copy;
    EXPECT_EQ(assigned.code(), errc::full);
    EXPECT_STREQ(assigned.err().message().c_str(), "channel 'uart_rx': full (limit 8)");
}

// Reading an error as a value is a programmer error; the report carries
// the error held, so the unchecked failure is named, not just noticed.
static int value_of_a_full_channel_error() {
    result<int> r{error{errc::full, "channel", "uart_rx", 8, nullptr}};
    return *r;
}
static int value_of_a_kindless_error() {
    result<int> r{error{errc::full, "", "rx", 4, nullptr}};
    return *r;
}
static int value_of_a_bare_code() {
    result<int> r{errc::timeout};
    return r.value();
}

TEST(result, value_of_an_error_stops_the_program_naming_the_error) {
    EXPECT_DEATH((void)value_of_a_full_channel_error(),
                 "result::value\\(\\) on an error: channel 'uart_rx': full \\(limit 8\\)");
    EXPECT_DEATH((void)value_of_a_bare_code(), "result::value\\(\\) on an error: timeout");
    EXPECT_DEATH((void)value_of_a_kindless_error(), "result::value\\(\\) on an error: 'rx': full \\(limit 4\\)");
}
