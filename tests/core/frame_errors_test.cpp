// SPDX-License-Identifier: Apache-2.0
// The frame allocator's failures as the user reads them (docs/core.md,
// "Memory"): with the frame report compiled in (the development build), a
// frame that fits no slot names its coroutine and size; an exhausted pool
// keeps its static phrase; no pool at all says so; the formatted text is
// the latest failure's, like last_error(); freeing a frame whose pool is
// gone names the likely cause.
//
// No support/weft_test.hpp here: its global test pools would serve every
// frame. Each test declares its pools as locals (the host unlinks a pool
// when it is destroyed), so between tests no pool is registered.
#include <weft/core/frame_pool.hpp>
#include <weft/core/task.hpp>

#include <gtest/gtest.h>

#include <cstring>
#include <string>

using namespace weft;

static_assert(WEFT_FRAME_REPORT_ENTRIES > 0, "these tests read the development build's texts");

namespace {

// noinline: Clang may elide the frame of a coroutine whose ramp is inlined
// into its caller (CoroElide); the frame must come from a pool.
[[gnu::noinline]] task<int> shell(int x) { co_return x + 1; }

std::string text(const error& e) { return e.message().c_str(); }

// Every pool the tests declare is gone between tests.
class frame_errors : public ::testing::Test {
protected:
    void SetUp() override { ASSERT_EQ(frame_pool_base::first(), nullptr) << "a pool outlived its test"; }
};

}  // namespace

TEST_F(frame_errors, a_frame_larger_than_every_pool_names_its_coroutine_and_size) {
    frame_pool<128, 2> small{"small"};
    frame_pool<512, 1> app{"app"};
    EXPECT_EQ(frame_allocator::allocate(784, frame_site{"shell"}), nullptr);
    const error& e = frame_allocator::last_error();
    EXPECT_EQ(e.code, errc::frame_too_large);
    EXPECT_STREQ(e.object, "app");  // the largest pool
    EXPECT_EQ(e.limit, 512u);
    EXPECT_EQ(text(e), "frame pool 'app': 784 B frame of 'shell' larger than its slots (limit 512)");
    EXPECT_EQ(app.failures(), 1u);
    EXPECT_EQ(small.failures(), 0u);
}

TEST_F(frame_errors, a_coroutine_too_large_for_the_scoped_pool_is_named_with_its_frame_size) {
    frame_pool<16, 4> tiny{"tiny16"};
    use_frames scope{tiny};
    auto t = shell(1);
    ASSERT_FALSE(t);
    EXPECT_EQ(t.err().code, errc::frame_too_large);
    // The size is the compiler's: the one the pool was asked for.
    const std::size_t bytes = tiny.largest_request();
    ASSERT_GT(bytes, 16u);
    EXPECT_EQ(text(t.err()), "frame pool 'tiny16': " + std::to_string(bytes) +
                                 " B frame of 'shell' larger than its slots (limit 16)");
    EXPECT_EQ(tiny.in_use(), 0u);
}

TEST_F(frame_errors, an_exhausted_pool_keeps_its_static_text) {
    frame_pool<256, 1> one{"one"};
    void* held = frame_allocator::allocate(100, frame_site{"first"});
    ASSERT_NE(held, nullptr);
    EXPECT_EQ(frame_allocator::allocate(100, frame_site{"second"}), nullptr);
    const error& e = frame_allocator::last_error();
    EXPECT_EQ(e.code, errc::no_memory);
    EXPECT_EQ(text(e), "frame pool 'one': all slots in use (limit 1)");
    frame_allocator::deallocate(held);
}

TEST_F(frame_errors, an_exhausted_pool_fails_a_real_coroutine_with_the_static_text) {
    frame_pool<512, 1> one{"one"};
    auto a = shell(1);
    ASSERT_TRUE(a);
    auto b = shell(2);
    ASSERT_FALSE(b);
    EXPECT_EQ(b.err().code, errc::no_memory);
    EXPECT_EQ(text(b.err()), "frame pool 'one': all slots in use (limit 1)");
}

TEST_F(frame_errors, with_no_pool_declared_the_error_says_so_and_names_the_frame) {
    EXPECT_EQ(frame_allocator::allocate(784, frame_site{"shell"}), nullptr);
    const error& e = frame_allocator::last_error();
    EXPECT_EQ(e.code, errc::frame_too_large);
    EXPECT_STREQ(e.kind, "frame pool");
    EXPECT_STREQ(error::or_empty(e.object), "");  // no name (null: no literal in flash)
    EXPECT_EQ(e.limit, 0u);
    EXPECT_EQ(text(e), "frame pool: none declared for 784 B frame of 'shell'");

    auto t = shell(1);  // a real coroutine, the same way
    ASSERT_FALSE(t);
    EXPECT_EQ(t.err().code, errc::frame_too_large);
    const std::string got = text(t.err());
    EXPECT_EQ(got.rfind("frame pool: none declared for ", 0), 0u) << got;
    EXPECT_NE(got.find(" B frame of 'shell'"), std::string::npos) << got;
}

TEST_F(frame_errors, a_nameless_frame_and_a_long_name_read_whole) {
    frame_pool<512, 1> app{"app"};
    EXPECT_EQ(frame_allocator::allocate(784, frame_site{nullptr}), nullptr);
    EXPECT_EQ(text(frame_allocator::last_error()), "frame pool 'app': 784 B frame larger than its slots (limit 512)");

    // A name longer than the text quotes (40 characters) is cut and
    // marked; the sentence around it stays whole.
    static const std::string long_name = "a_coroutine_with_a_very_long_name_" + std::string(40, 'x');
    EXPECT_EQ(frame_allocator::allocate(784, frame_site{long_name.c_str()}), nullptr);
    EXPECT_EQ(text(frame_allocator::last_error()),
              "frame pool 'app': 784 B frame of '" + long_name.substr(0, 37) +
                  "...' larger than its slots (limit 512)");

    // A name of exactly the length quoted is not cut.
    static const std::string just_fits(40, 'y');
    EXPECT_EQ(frame_allocator::allocate(784, frame_site{just_fits.c_str()}), nullptr);
    EXPECT_EQ(text(frame_allocator::last_error()),
              "frame pool 'app': 784 B frame of '" + just_fits + "' larger than its slots (limit 512)");
}

TEST_F(frame_errors, the_formatted_text_is_the_latest_failures_like_last_error) {
    frame_pool<256, 1> small{"small"};
    frame_pool<512, 1> app{"app"};
    EXPECT_EQ(frame_allocator::allocate(784, frame_site{"shell"}), nullptr);
    const error first = frame_allocator::last_error();  // a copy, as spawn's result holds
    EXPECT_EQ(text(first), "frame pool 'app': 784 B frame of 'shell' larger than its slots (limit 512)");

    // An exhausted pool's failure uses its static phrase: the text stays.
    void* held = frame_allocator::allocate(300, frame_site{"holder"});
    ASSERT_TRUE(app.owns(held));
    EXPECT_EQ(frame_allocator::allocate(300, frame_site{"other"}), nullptr);
    EXPECT_EQ(text(frame_allocator::last_error()), "frame pool 'app': all slots in use (limit 1)");
    EXPECT_EQ(text(first), "frame pool 'app': 784 B frame of 'shell' larger than its slots (limit 512)");

    // The next frame too large rewrites it: the latest failure is the one
    // described, also by the older copy (its own code, pool and limit).
    {
        use_frames scope{small};
        EXPECT_EQ(frame_allocator::allocate(900, frame_site{"logger"}), nullptr);
    }
    EXPECT_EQ(text(frame_allocator::last_error()),
              "frame pool 'small': 900 B frame of 'logger' larger than its slots (limit 256)");
    EXPECT_EQ(first.detail, frame_allocator::last_error().detail);
    EXPECT_STREQ(first.object, "app");
    EXPECT_EQ(first.limit, 512u);
    EXPECT_EQ(text(first), "frame pool 'app': 900 B frame of 'logger' larger than its slots (limit 512)");
    frame_allocator::deallocate(held);
}

TEST_F(frame_errors, the_report_still_records_the_refused_frame) {
    frame_pool<512, 1> app{"app"};
    EXPECT_EQ(frame_allocator::allocate(784, frame_site{"fe_refused"}), nullptr);
    const frame_record* r = frame_allocator::records();
    const frame_record* found = nullptr;
    for (std::size_t i = 0, n = frame_allocator::record_count(); i < n; ++i)
        if (std::strcmp(r[i].function, "fe_refused") == 0) found = &r[i];
    ASSERT_NE(found, nullptr);
    EXPECT_EQ(found->bytes, 784u);
    EXPECT_EQ(found->created, 0u);
    EXPECT_EQ(app.largest_request(), 784u);
}

// A global join_handle destroyed after the pool that held its frame
// (globals go in reverse order of declaration): the frame is freed into
// no pool, and the fatal message says what probably happened.
TEST_F(frame_errors, freeing_a_frame_after_its_pool_is_gone_names_the_likely_cause) {
    auto free_after_its_pool = [] {
        void* orphan = nullptr;
        {
            frame_pool<128, 1> gone{"gone"};
            orphan = frame_allocator::allocate(64, frame_site{"orphan"});
        }
        frame_allocator::deallocate(orphan);
    };
    EXPECT_DEATH(free_after_its_pool(),
        "weft: freed frame is in no pool \\(was its frame_pool destroyed first\\? "
        "declare pools before anything that holds a frame\\)");
}
