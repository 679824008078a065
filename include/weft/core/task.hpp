// SPDX-License-Identifier: Apache-2.0
#pragma once
// task<T>: a lazily started coroutine returning T.
//
//   weft::task<int> read_sensor();            // a coroutine
//   auto v = co_await read_sensor();          // result<int>: value or error
//   auto h = ex.spawn(read_sensor(), 3);      // result<join_handle<int>>
//
// Awaiting a task runs it inside the awaiting task (same priority, same
// cancellation) and resumes the awaiter by symmetric transfer, so chains of
// co_await never grow the machine stack. Awaiting yields result<T>
// (status for task<void>; a task<result<U>> yields result<U>): the error
// is set when the awaited task's frame could not be allocated.
#include <weft/core/detail/tail_calls.hpp>
#include <weft/core/executor.hpp>
#include <weft/core/frame_pool.hpp>
#include <weft/core/result.hpp>
#include <weft/core/task_control.hpp>

#include <coroutine>
#include <optional>
#include <type_traits>
#include <utility>

namespace weft {

namespace detail {
template <class T> struct awaited { using type = result<T>; };
template <> struct awaited<void> { using type = status; };
template <class U> struct awaited<result<U>> { using type = result<U>; };
}  // namespace detail

/// What `co_await` on a task<T> (or a join) produces.
template <class T>
using awaited_t = typename detail::awaited<T>::type;

namespace detail {

/// What an empty task (default-built, moved-from or spawned) gives to
/// whatever takes it: spawn, co_await, when_all/when_any, with_timeout.
/// Its texts are named arrays, not literals: GCC puts a constant's string
/// literals in the file's common string section, and keeping them kept
/// every other string there (errc names a board program never prints:
/// 132 B of the channels program); an array gets a section of its own.
inline constexpr char empty_task_kind[] = "task";
inline constexpr char empty_task_name[] = "(empty)";
inline constexpr char empty_task_why[] = "nothing to run";
inline constexpr error empty_task{errc::invalid, empty_task_kind, empty_task_name, 0, empty_task_why};

class promise_base {
public:
    /// Frames come from the frame pools only (see frame_pool.hpp).
    static void* operator new(std::size_t n, frame_site s = frame_site::current()) noexcept {
        return frame_allocator::allocate(n, s);
    }
    static void operator delete(void* p) noexcept { frame_allocator::deallocate(p); }

    std::suspend_always initial_suspend() noexcept { return {}; }

    struct final_awaiter {
        bool await_ready() noexcept { return false; }
        template <class P>
        std::coroutine_handle<> await_suspend(std::coroutine_handle<P> h) noexcept {
            promise_base& p = h.promise();
            if (p.continuation_) return p.continuation_;
            // A root finished: tell its owner (executor, when_all, ...),
            // which may destroy this frame; then return to the executor.
            task_control& c = p.own_;
            if (c.held_) detail::ended_holding(*c.held_);
            c.on_done_(&c, h);
            return std::noop_coroutine();
        }
        void await_resume() noexcept {}
    };
    final_awaiter final_suspend() noexcept { return {}; }
    void unhandled_exception() noexcept { port::fatal("weft: exception escaped a task"); }

    task_control& control() noexcept { return *ctl_; }

    task_control own_;
    task_control* ctl_ = &own_;
    std::coroutine_handle<> continuation_;
};

template <class T>
class promise_value : public promise_base {
public:
    template <class U>
    void return_value(U&& v) noexcept(std::is_nothrow_constructible_v<T, U&&>) {
        value_.emplace(std::forward<U>(v));
    }
    T take() noexcept { return std::move(*value_); }

protected:
    std::optional<T> value_;
};

template <>
class promise_value<void> : public promise_base {
public:
    void return_void() noexcept {}
    void take() noexcept {}
};

}  // namespace detail

/// A coroutine producing T, started when awaited or spawned.
template <class T = void>
class [[nodiscard("co_await it or spawn it: a task does nothing until then")]] task {
public:
    class promise_type : public detail::promise_value<T> {
    public:
        task get_return_object() noexcept {
            return task{std::coroutine_handle<promise_type>::from_promise(*this)};
        }
        /// No slot: the task is empty and carries the pool's error.
        static task get_return_object_on_allocation_failure() noexcept {
            return task{&frame_allocator::last_error()};
        }
    };
    using handle_type = std::coroutine_handle<promise_type>;

    task() noexcept = default;
    // A moved-from task is empty, also when `o` had failed to get a frame.
    task(task&& o) noexcept : h_(std::exchange(o.h_, {})), error_(std::exchange(o.error_, &detail::empty_task)) {}
    task& operator=(task&& o) noexcept {
        if (this != &o) {
            reset();
            h_ = std::exchange(o.h_, {});
            error_ = std::exchange(o.error_, &detail::empty_task);
        }
        return *this;
    }
    ~task() { reset(); }

    /// False if the frame could not be allocated; err() says why. That
    /// error is the frame allocator's last_error(): read it (spawn and
    /// co_await do, at once) before another coroutine fails to get a frame.
    /// A task that is empty for another reason (default-built, moved from,
    /// spawned) says "task '(empty)': nothing to run" (invalid).
    explicit operator bool() const noexcept { return bool(h_); }
    const error& err() const noexcept { return h_ ? no_error : *error_; }

    // A pointer to the error, not a copy: this awaiter lives in the
    // awaiting frame, and 20 bytes copied there on every co_await of a
    // task would be paid by every caller for the rare failure.
    // It owns the child's frame, taken from the task: `co_await
    // std::move(t)` spends `t` as spawn, when_all and with_timeout do, so
    // that a second await of it is refused ("nothing to run") instead of
    // resuming a coroutine that has ended, and the frame goes back to its
    // pool when the await ends, not when `t` goes out of scope.
    struct task_operation {
        // with_timeout bounds the task itself, never this awaiter: its
        // await_suspend returns a handle where transfers are tail calls
        // and a bool where they are not, so without the mark it would be
        // refused in one build and bounded (with other semantics) in the
        // other (timeout.hpp).
        static constexpr bool awaits_a_task = true;
        handle_type child;
        const error* fail;  // when child is empty: why
        task_operation(handle_type c, const error* f) noexcept : child(c), fail(f) {}
        task_operation(task_operation&& o) noexcept : child(std::exchange(o.child, {})), fail(o.fail) {}
        task_operation& operator=(task_operation&&) = delete;
        ~task_operation() {
            if (child) child.destroy();
        }
        bool await_ready() const noexcept { return !child; }
        template <class P>
        auto await_suspend(std::coroutine_handle<P> parent) noexcept {
            auto& cp = child.promise();
            cp.ctl_ = &parent.promise().control();  // run as part of the parent
            if constexpr (detail::tail_calls) {
                cp.continuation_ = parent;
                return std::coroutine_handle<>{child};
            } else {
                // No tail calls (detail/tail_calls.hpp): the child runs as
                // a plain call, and a child that ends before it suspends
                // returns here (its continuation is a no-op meanwhile), so
                // that the parent goes on without one more nested call.
                cp.continuation_ = std::noop_coroutine();
                child.resume();
                if (child.done()) return false;
                cp.continuation_ = parent;  // it suspended: it resumes us when it ends
                return true;
            }
        }
        awaited_t<T> await_resume() noexcept {
            if (!child) return *fail;
            if constexpr (std::is_void_v<T>) return {};
            else return child.promise().take();
        }
    };
    /// Runs the task to completion inside the awaiting task. Spends it:
    /// `t` is empty afterwards (a second await yields "task '(empty)':
    /// nothing to run"), and its frame is freed when the await ends.
    task_operation operator co_await() && noexcept { return {std::exchange(h_, {}), error_}; }
    /// `co_await t` of a task kept in a variable: refused with a message
    /// saying what to write instead (without it, GCC says "discards
    /// qualifiers" and Clang "no member named await_ready"). A template,
    /// never instantiated by a correct program: the rvalue path is as it was.
    template <bool Lvalue = true>
    task_operation operator co_await() const& noexcept {
        static_assert(!Lvalue, "co_await std::move(t): a task is awaited once, as an rvalue");
        return {handle_type{}, error_};
    }

    /// Gives up ownership (spawn).
    handle_type release() noexcept { return std::exchange(h_, {}); }
    /// The frame, still owned by this task (combinators).
    handle_type handle() const noexcept { return h_; }

private:
    explicit task(handle_type h) noexcept : h_(h) {}
    explicit task(const error* e) noexcept : error_(e) {}
    void reset() noexcept {
        if (h_) h_.destroy();
        h_ = {};
    }
    handle_type h_;
    // Why h_ is empty: the pool's error when allocation failed, else the
    // empty task's. Never null, so that err() and co_await pick no message
    // at run time. Not read while h_ is set.
    const error* error_ = &detail::empty_task;
};

}  // namespace weft

#include <weft/core/join_handle.hpp>
