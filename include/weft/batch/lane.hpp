// SPDX-License-Identifier: Apache-2.0
#pragma once
// weft::batch::lane — the coroutine type of one interleaving lane.
//
// A lane processes one work item (a sensor's table, a B+Tree range, an
// image). It starts suspended; the interleaver resumes it step by step and,
// when it finishes, destroys it and creates the lane for the next item. The
// frame comes from the weft frame pools (weft/core/frame_pool.hpp): because
// the pools are LIFO free lists, the next lane reuses the slot the finished
// lane just returned. Nothing falls back to the heap: when no slot is free
// the lane is created empty and carries the pool's error.
#include <weft/core/frame_pool.hpp>
#include <weft/core/result.hpp>
#include <weft/port/port.hpp>

#include <coroutine>
#include <cstddef>
#include <utility>

namespace weft::batch {

/// Owning handle to one lane coroutine. Move-only; destroys its frame.
class [[nodiscard]] lane {
public:
    /// Promise: lazy start, parked at the end until the interleaver reaps it.
    struct promise_type {
        /// What prefetch()/yield() check: only the interleaver resumes them.
        static constexpr bool is_batch_lane = true;
        /// Frames come from weft frame pools only (never the heap).
        static void* operator new(std::size_t n, frame_site s = frame_site::current()) noexcept {
            return frame_allocator::allocate(n, s);
        }
        static void operator delete(void* p) noexcept { frame_allocator::deallocate(p); }
        /// No pool could hold the frame: the lane is empty and names the pool.
        static lane get_return_object_on_allocation_failure() noexcept {
            return lane{frame_allocator::last_error()};
        }
        lane get_return_object() noexcept {
            return lane{std::coroutine_handle<promise_type>::from_promise(*this)};
        }
        std::suspend_always initial_suspend() const noexcept { return {}; }
        std::suspend_always final_suspend() const noexcept { return {}; }
        void return_void() const noexcept {}
        // Built with -fno-exceptions: a lane body cannot throw.
        void unhandled_exception() const noexcept { port::fatal("weft: exception in a batch lane"); }
    };
    using handle = std::coroutine_handle<promise_type>;

    /// An empty lane (no frame, no error).
    lane() noexcept = default;
    lane(lane&& o) noexcept : h_(std::exchange(o.h_, {})), err_(o.err_) {}
    lane& operator=(lane&& o) noexcept {
        if (this != &o) {
            reset();
            h_ = std::exchange(o.h_, {});
            err_ = o.err_;
        }
        return *this;
    }
    lane(const lane&) = delete;
    lane& operator=(const lane&) = delete;
    ~lane() { reset(); }

    /// True when the lane owns a frame (creation succeeded).
    bool valid() const noexcept { return static_cast<bool>(h_); }
    /// Why creation failed (code errc::ok when it did not).
    const error& err() const noexcept { return err_; }
    /// Precondition: valid(). True once the body has returned.
    bool done() const noexcept { return h_.done(); }
    /// Precondition: valid() && !done(). Runs the body to its next suspension.
    void resume() const noexcept { h_.resume(); }
    /// Destroys the frame (returns the slot to its pool); the lane becomes empty.
    void reset() noexcept {
        if (h_) std::exchange(h_, {}).destroy();
    }

private:
    explicit lane(handle h) noexcept : h_(h) {}
    explicit lane(const error& e) noexcept : err_(e) {}

    handle h_{};
    error err_{};
};

}  // namespace weft::batch
