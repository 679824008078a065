// SPDX-License-Identifier: Apache-2.0
#pragma once
// join_handle<T>: the spawner's view of a spawned task.
//
//   auto h = ex.spawn(worker(), 2);            // result<join_handle<int>>
//   if (!h) { /* h.err(): pool exhausted, named */ }
//   auto v = co_await h->join();               // result<int>
//
// Dropping a handle detaches the task: its frame is freed when it finishes.
#include <weft/core/detail/wait_graph.hpp>
#include <weft/core/executor.hpp>
#include <weft/core/task.hpp>

#include <coroutine>
#include <utility>

namespace weft {

namespace detail {
// on_done_ of every spawned task (transition 6 of task_control).
inline void spawned_done(task_control* c, std::coroutine_handle<> root) noexcept {
    c->executor_->task_finished();
    if (c->flags_ & join_detached) {
        root.destroy();
        return;
    }
    c->flags_ |= join_finished;
    // The joiner stays recorded until it resumes (join_operation clears
    // it): the handle may be dropped, or joined again, before then.
    if (auto* w = static_cast<join_wait*>(c->done_context_)) w->joiner->wake();
}
}  // namespace detail

template <class T>
class [[nodiscard]] join_handle {
public:
    using handle_type = typename task<T>::handle_type;

    join_handle() noexcept = default;
    explicit join_handle(handle_type h) noexcept : h_(h) {}
    join_handle(join_handle&& o) noexcept : h_(std::exchange(o.h_, {})) { follow_join(); }
    join_handle& operator=(join_handle&& o) noexcept {
        if (this != &o) {
            detach();
            h_ = std::exchange(o.h_, {});
            follow_join();
        }
        return *this;
    }
    ~join_handle() { detach(); }

    /// True once the task has run to completion.
    bool done() const noexcept { return h_ && (ctl().flags_ & detail::join_finished); }
    /// Cancels the task (see task_control::cancel). Executor thread only.
    void cancel() noexcept { if (h_ && !done()) ctl().cancel(); }

    /// Lets the task run on its own; its frame is freed when it finishes.
    /// A join waiting on this handle ends at once with `invalid`, also one
    /// whose task has finished but that has not resumed yet.
    void detach() noexcept {
        if (!h_) return;
        // The join must not read this handle once it is gone: a detached
        // task frees itself when it ends and wakes nobody (a waiting join
        // would wait for ever), and a finished one is freed right here.
        if (auto* w = static_cast<detail::join_wait*>(ctl().done_context_)) {
            ctl().done_context_ = nullptr;
            w->outcome = errc::invalid;
            if (!done()) w->joiner->wake();  // else already woken by the end
        }
        if (done()) h_.destroy();
        else ctl().flags_ |= detail::join_detached;
        h_ = {};
    }

    struct [[nodiscard("co_await it: it does nothing until awaited")]] join_operation : detail::join_wait {
        join_handle* self() const noexcept { return static_cast<join_handle*>(handle); }
        bool await_ready() const noexcept { return !self()->h_; }
        template <class P>
        bool await_suspend(std::coroutine_handle<P> h) noexcept {
            join_handle* const self = this->self();
            task_control& me = h.promise().control();
            if (me.cancel_requested()) { outcome = errc::cancelled; return false; }
            target = &self->ctl();
            // Joining its own handle (from a coroutine it awaits too), or
            // a task that waits, through joins, when_all / when_any
            // children and locks' owners, for the joiner, would wait for
            // ever: refused, as a mutex refuses a lock that would deadlock.
            if (detail::wait_reaches(target, me)) { outcome = errc::cycle; return false; }
            // One waiter slot per task: a second joiner would silently take
            // the first one's wake-up and leave it blocked for ever, or,
            // once the task has finished and woken the first, its value.
            if (target->done_context_) { outcome = errc::busy; return false; }
            if (self->done()) return false;
            joiner = &me;
            target->done_context_ = static_cast<detail::join_wait*>(this);
            abort = &detail::join_wait::on_abort;
            me.park(h, this);
            return true;
        }
        awaited_t<T> await_resume() noexcept {
            // Taken as they are read, so that the awaiter awaited again (a
            // bound retried in a loop, a second `co_await j`) starts afresh:
            // an earlier timeout is not reported again, and the task an
            // earlier join joined, whose frame that join freed, is not
            // written to.
            const errc why = std::exchange(outcome, errc::ok);
            task_control* const joined = std::exchange(target, nullptr);
            join_handle* const self = this->self();
            // Outcomes first: a handle detached during the join may be gone.
            if (why == errc::busy)
                return error{errc::busy, "join_handle", "join", 1, "already joined by another task"};
            if (why == errc::invalid)
                return error{errc::invalid, "join_handle", "join", 0, "detached while being joined"};
            if (why == errc::cycle)
                return error{errc::cycle, "join_handle", "join", 0,
                             "would deadlock (the joined task is the caller or waits for it)"};
            // Cancelled or bounded: named as the other outcomes are (the
            // joined task has no name of its own).
            if (why != errc::ok) return error{why, "join_handle", "join", 0, nullptr};
            // Woken by the task's end (the frame lives: a detach would have
            // made it `invalid`): no longer its joiner, even if the handle
            // was moved meanwhile.
            if (joined) joined->done_context_ = nullptr;
            if (!self->h_) return error{errc::invalid, "join_handle", "(empty)", 0, "nothing to join"};
            if constexpr (std::is_void_v<T>) {
                self->detach();
                return {};
            } else {
                awaited_t<T> r{self->h_.promise().take()};
                self->detach();  // finished: frees the frame now
                return r;
            }
        }
    };
    /// Waits for the task to finish; yields its value (or `cancelled` if
    /// the *joining* task was cancelled while waiting, or `busy` if another
    /// task is already joining it: one joiner at a time, or `invalid` if
    /// the handle is detached or destroyed meanwhile).
    join_operation join() noexcept {
        join_operation op{};
        op.handle = this;
        return op;
    }

private:
    // A join waiting for this task reads the handle when it resumes: a
    // handle moved meanwhile (the old one then destroyed) is the one it
    // must read, and take the value from.
    void follow_join() noexcept {
        if (!h_) return;
        if (auto* w = static_cast<detail::join_wait*>(ctl().done_context_)) w->handle = this;
    }
    task_control& ctl() const noexcept { return h_.promise().own_; }
    handle_type h_;
};

template <class T>
result<join_handle<T>> executor::spawn(task<T>&& t, unsigned p) noexcept {
    if constexpr (detail::check_executor_only)
        detail::check_executor_only_call("executor", cfg_.name, "spawned a task", running_);
    if (!t) return t.err();
    if (p > max_priority)
        return error{errc::invalid, "executor", cfg_.name, max_priority, "priority above max_priority"};
    auto h = t.release();
    task_control& c = h.promise().own_;
    c.executor_ = this;
    c.priority_ = c.base_priority_ = priority(p);
    c.on_done_ = &detail::spawned_done;
    c.resume_point_ = h;
    task_started();
    schedule(c);
    // Built in place: no move of the handle (a move looks for a join to
    // redirect, code a program that never moves its handles need not have).
    return result<join_handle<T>>{std::in_place, h};
}

}  // namespace weft
