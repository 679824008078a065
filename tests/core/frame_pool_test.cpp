// SPDX-License-Identifier: Apache-2.0
#include <weft/core/frame_pool.hpp>
#include <weft/core/frame_report.hpp>
#include <weft/core/task.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>

#include <string>

using namespace weft;

namespace {
// noinline: Clang may elide the frame of a coroutine whose ramp is inlined
// into a caller that destroys it (CoroElide); these tests count pool slots.
[[gnu::noinline]] task<int> small_job(int x) { co_return x + 1; }
}  // namespace

TEST(frame_pool, exhaustion_is_an_error_naming_the_pool) {
    static frame_pool<512, 2> pool{"sensors"};
    use_frames scope{pool};
    executor ex{test::virtual_clock()};
    auto a = ex.spawn(small_job(1));
    auto b = ex.spawn(small_job(2));
    auto c = ex.spawn(small_job(3));
    ASSERT_TRUE(a && b);
    ASSERT_TRUE(test::failed_with(c, errc::no_memory, "frame pool 'sensors': all slots in use (limit 2)"));
    EXPECT_EQ(pool.failures(), 1u);
    ex.run();  // the runtime stays consistent: the two others complete
    EXPECT_TRUE(a->done() && b->done());
}

TEST(frame_pool, frame_larger_than_the_scoped_pools_slots_is_too_large_not_exhausted) {
    // The scope forces a pool whose slots are too small; none is in use.
    static frame_pool<16, 4> tiny{"tiny16"};
    use_frames scope{tiny};
    auto t = small_job(1);
    ASSERT_FALSE(t);
    EXPECT_EQ(t.err().code, errc::frame_too_large);
    EXPECT_EQ(std::string(t.err().message().c_str()),
              "frame pool 'tiny16': " + std::to_string(tiny.largest_request()) +
                  " B frame of 'small_job' larger than its slots (limit 16)");
    EXPECT_EQ(tiny.largest_request() > 16, true);
    EXPECT_EQ(tiny.in_use(), 0u);
}

TEST(frame_pool, smallest_fitting_pool_is_chosen) {
    executor ex{test::virtual_clock()};
    auto before_small = test::small_frames.in_use();
    auto t = small_job(1);
    ASSERT_TRUE(t);
    EXPECT_EQ(test::small_frames.in_use(), before_small + 1);
}

TEST(frame_pool, report_lists_each_coroutine_with_its_frame_size) {
    auto t = small_job(1);
    ASSERT_TRUE(t);
    std::string out;
    print_frame_report([&](const char* s, std::size_t n) { out.append(s, n); });
    EXPECT_NE(out.find("{\"frame\":\"small_job\",\"bytes\":"), std::string::npos) << out;
    EXPECT_NE(out.find("{\"pool\":\"test_small\",\"slot_bytes\":256,\"slots\":64,\"peak\":"),
              std::string::npos) << out;
}

TEST(frame_pool, report_lines_stay_whole_json_whatever_the_name) {
    // A long name is cut (and ends with "..."), quotes and backslashes are
    // escaped: the line keeps its fields and its newline.
    static const std::string long_name = "sensor_\"quoted\"_\\_" + std::string(150, 'x');
    static frame_pool<64, 2> odd{long_name.c_str()};
    std::string out;
    print_frame_report([&](const char* s, std::size_t n) { out.append(s, n); });
    const std::string head = "{\"pool\":\"sensor_\\\"quoted\\\"_\\\\_xxx";
    const auto at = out.find(head);
    ASSERT_NE(at, std::string::npos) << out;
    const std::string line = out.substr(at, out.find('\n', at) - at);
    EXPECT_NE(line.find("...\",\"slot_bytes\":64,\"slots\":2,\"peak\":0,\"failures\":0,\"largest_request\":0}"),
              std::string::npos) << line;
    EXPECT_EQ(line.size(), std::string("{\"pool\":\"").size() + report_name_chars +
                               std::string("\",\"slot_bytes\":64,\"slots\":2,\"peak\":0,\"failures\":0,"
                                           "\"largest_request\":0}").size());
}

TEST(frame_pool, peak_tracks_most_frames_alive) {
    static frame_pool<512, 8> pool{"peaky"};
    use_frames scope{pool};
    {
        auto a = small_job(1), b = small_job(2), c = small_job(3);
        EXPECT_EQ(pool.in_use(), 3u);
    }
    auto d = small_job(4);
    EXPECT_EQ(pool.peak(), 3u);
    EXPECT_EQ(pool.in_use(), 1u);
}

TEST(frame_pool, scopes_that_end_out_of_order_stop_the_program) {
    // What two tasks holding scopes across their awaits would do.
    static frame_pool<256, 2> pa{"pa"}, pb{"pb"};
    EXPECT_DEATH(
        {
            auto* a = new use_frames{pa};
            use_frames b{pb};
            delete a;  // a ends while b, opened after it, is still open
        },
        "use_frames scopes ended out of order");
}
