// SPDX-License-Identifier: Apache-2.0
#pragma once
// Shared by the host unit tests: frame pools big enough for every test
// (each test that measures pools declares its own), a virtual-clock
// executor factory, and the check that an operation failed as expected.
#include <weft/core.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>

namespace weft::test {

inline frame_pool<256, 64> small_frames{"test_small"};
inline frame_pool<1024, 64> large_frames{"test_large"};

/// An executor on the virtual clock: time moves only when it is idle.
inline executor_config virtual_clock(const char* name = "test") {
    return executor_config{name, clock_mode::virtual_};
}

/// `co_await test::running_control{}`: the running task's control block,
/// without suspending (for reprioritise(), cancel() of oneself, checks).
struct running_control {
    task_control* c = nullptr;
    bool await_ready() const noexcept { return false; }
    template <class P>
    bool await_suspend(std::coroutine_handle<P> h) noexcept {
        c = &h.promise().control();
        return false;
    }
    task_control* await_resume() const noexcept { return c; }
};

/// Milliseconds since the executor's epoch, for readable expectations.
inline std::int64_t ms(const executor& ex) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(ex.now().time_since_epoch()).count();
}

/// Cancels `h`'s task once `d` has passed on `ex`'s clock, from a task
/// of its own (detached: its handle is dropped). `h` must outlive it.
template <class T>
void cancel_after(executor& ex, join_handle<T>& h, duration d) {
    auto canceller = [](join_handle<T>& target, duration delay) -> task<> {
        co_await sleep_for(delay);
        target.cancel();
    };
    EXPECT_TRUE(bool(ex.spawn(canceller(h, d))));
}

/// `r` failed with `code` and exactly the message `text`; otherwise says
/// what it held instead. ASSERT_TRUE(test::failed_with(s, errc::full, "..."))
template <class T>
::testing::AssertionResult failed_with(const result<T>& r, errc code, const char* text) {
    if (r) return ::testing::AssertionFailure() << "succeeded; expected " << to_string(code) << ": " << text;
    const auto got = r.err().message();
    if (r.code() != code || std::strcmp(got.c_str(), text) != 0)
        return ::testing::AssertionFailure() << "failed with \"" << got.c_str() << "\" (" << to_string(r.code())
                                             << "); expected \"" << text << "\" (" << to_string(code) << ")";
    return ::testing::AssertionSuccess();
}

/// "ok", or the message of the error `r` holds: outcomes compared as text
/// (EXPECT_EQ(test::text(s), "mutex 'bus': ...")).
template <class T>
std::string text(const result<T>& r) {
    return r ? "ok" : r.err().message().c_str();
}

/// A value that counts its live objects, so that a value lost in a slot
/// or destroyed twice shows. Reset `live` at the start of a test.
struct counted {
    static inline int live = 0;
    int v = 0;
    counted() noexcept { ++live; }
    explicit counted(int x) noexcept : v(x) { ++live; }
    counted(const counted& o) noexcept : v(o.v) { ++live; }
    counted(counted&& o) noexcept : v(o.v) {
        o.v = -1;
        ++live;
    }
    counted& operator=(const counted& o) noexcept {
        v = o.v;
        return *this;
    }
    counted& operator=(counted&& o) noexcept {
        v = o.v;
        o.v = -1;
        return *this;
    }
    ~counted() { --live; }
};

/// A small seeded generator for randomised tests: the same seed gives the
/// same run on every machine and standard library (std::mt19937's
/// distributions do not promise that). rng(n) is in [0, n).
struct seeded_rng {
    std::uint32_t state;
    int operator()(int n) noexcept {
        state = state * 1664525u + 1013904223u;
        return int((state >> 8) % unsigned(n));
    }
};

}  // namespace weft::test
