// SPDX-License-Identifier: Apache-2.0
#pragma once
// The machinery shared by when_all and when_any: start N child tasks as
// independent roots at the parent's priority, wait until every one has
// finished, and cancel the unfinished ones when asked. Children's control
// blocks are in their own frames; the group lives in the parent's awaiter.
// Nothing is allocated.
#include <weft/core/detail/wait_node.hpp>
#include <weft/core/task.hpp>

#include <coroutine>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

namespace weft::detail {

class task_group : public wait_node {
public:
    static constexpr std::size_t none = ~std::size_t{0};

    std::size_t winner() const noexcept { return winner_; }
    errc outcome() const noexcept { return outcome_; }

    // --- for priority inheritance (mutex.hpp): a parent waits for its
    // group from the first child's start to the last child's end ---

    /// The group `t` waits for in when_all / when_any, if any.
    static task_group* awaited_by(const task_control& t) noexcept {
        wait_node* w = t.current_wait();
        return w && w->abort == &on_abort ? static_cast<task_group*>(w) : nullptr;
    }
    /// The task waiting for `c`, if `c` is a child of a group.
    static const task_control* parent_of(const task_control& c) noexcept {
        return c.on_done_ == &child_done ? static_cast<const task_group*>(c.done_context_)->parent_ : nullptr;
    }
    /// Calls f(task_control&) for each child that has not finished, in
    /// argument order, or last to first when LastFirst.
    template <bool LastFirst = false, class F>
    void for_each_running_child(F f) const noexcept {
        for (std::size_t k = 0; k < count_; ++k) {
            const std::size_t i = LastFirst ? count_ - 1 - k : k;
            if (children_[i] && !finished(i)) f(*children_[i]);
        }
    }

protected:
    // Starts child `c` (a root task of this group) with id `index`.
    void start_child(task_control& c, std::coroutine_handle<> h, std::size_t index) noexcept {
        c.executor_ = parent_->executor_;
        // A child's own priority is its parent's own; it runs at the one
        // its parent runs at, including one the parent inherits through a
        // mutex, and follows it (mutex.hpp).
        c.base_priority_ = parent_->base_priority_;
        c.priority_ = parent_->priority_;
        c.on_done_ = &child_done;
        c.done_context_ = this;
        c.resume_point_ = h;
        c.flags_ = std::uint8_t(index);  // child index, read back in child_done
        ++remaining_;
        c.executor_->schedule(c);
    }
    void cancel_children() noexcept {
        for_each_running_child([](task_control& c) { c.cancel(); });
    }
    bool finished(std::size_t i) const noexcept { return (done_mask_ >> i) & 1u; }

    task_control* parent_ = nullptr;
    task_control** children_ = nullptr;  // N entries, in the derived awaiter
    std::size_t count_ = 0;
    std::size_t remaining_ = 0;
    std::size_t winner_ = none;
    std::uint32_t done_mask_ = 0;
    bool cancel_on_first_ = false;  // when_any
    errc outcome_ = errc::ok;

    static void child_done(task_control* c, std::coroutine_handle<>) noexcept {
        auto* g = static_cast<task_group*>(c->done_context_);
        std::size_t i = c->flags_;
        g->done_mask_ |= 1u << i;
        if (g->winner_ == none) {
            g->winner_ = i;
            if (g->cancel_on_first_) g->cancel_children();
        }
        if (--g->remaining_ == 0) g->parent_->wake();
        // The frame stays alive: the awaiter takes its value, then frees
        // it (spend()).
    }
    static void on_abort(wait_node* w, errc why) noexcept {
        auto* g = static_cast<task_group*>(w);
        // when_any with a winner already in has not ended early: the abort
        // (a bound expiring, the parent cancelled) came while the losers
        // unwind, and the result is the winner's.
        if (g->outcome_ == errc::ok && !(g->cancel_on_first_ && g->winner_ != none)) g->outcome_ = why;
        g->cancel_children();
        // Keep waiting: the parent resumes only when every child has
        // finished, so no child outlives the await.
        g->parent_->wait_ = g;
    }
};

template <class... Ts>
class [[nodiscard("co_await it: it does nothing until awaited")]] group_operation : public task_group {
    static_assert(sizeof...(Ts) >= 1 && sizeof...(Ts) <= 32, "when_all/when_any take 1 to 32 tasks");

public:
    explicit group_operation(bool any, task<Ts>&&... ts) noexcept : tasks_(std::move(ts)...) {
        cancel_on_first_ = any;
        // A child without a frame points at the allocator's last error,
        // which the next failure anywhere overwrites before the group
        // ends: kept here as it is now. An empty child (default-built,
        // moved from) points at a constant error instead, read in take():
        // copied here too, it replaced a full pool's error given by
        // another child, or was replaced by it.
        std::apply([this](auto&... t) { ((allocation_failed(t) ? void(start_error_ = t.err()) : void()), ...); },
                   tasks_);
    }

    bool await_ready() const noexcept { return false; }
    template <class P>
    bool await_suspend(std::coroutine_handle<P> h) noexcept {
        parent_ = &h.promise().control();
        count_ = sizeof...(Ts);
        children_ = slots_;
        abort = &on_abort;
        parent_->park(h, this);
        start_all(std::index_sequence_for<Ts...>{});
        if (remaining_ == 0) { parent_->park(h); return false; }  // nothing started
        // A child whose frame could not be allocated finished first (it
        // won, with its error): when_any cancels the others, as child_done
        // does for a child that ends.
        if (cancel_on_first_ && winner_ != none) cancel_children();
        if (parent_->cancel_requested()) { outcome_ = errc::cancelled; cancel_children(); }
        return true;
    }

protected:
    template <std::size_t I>
    auto take() noexcept {
        using T = std::tuple_element_t<I, std::tuple<Ts...>>;
        auto& t = std::get<I>(tasks_);
        if (!t) return awaited_t<T>{allocation_failed(t) ? start_error_ : t.err()};
        if constexpr (std::is_void_v<T>) return awaited_t<T>{};
        else return awaited_t<T>{t.handle().promise().take()};
    }

    // After the results are taken (each await_resume): frees the
    // children's frames and leaves the group as if new, with empty tasks.
    // Awaited again (a bound retried in a loop), it starts nothing and
    // yields "task '(empty)': nothing to run" for each child, instead of
    // resuming coroutines that have ended.
    void spend() noexcept {
        std::apply([](auto&... t) { ((t = std::remove_reference_t<decltype(t)>{}), ...); }, tasks_);
        for (task_control*& c : slots_) c = nullptr;
        done_mask_ = 0;
        winner_ = none;
        outcome_ = errc::ok;
    }

    // The task got no frame, and its error is the allocator's (changing) one.
    template <class T>
    static bool allocation_failed(const task<T>& t) noexcept {
        return !t && &t.err() == &frame_allocator::last_error();
    }

    std::tuple<task<Ts>...> tasks_;  // own the frames until the results are taken
    task_control* slots_[sizeof...(Ts)] = {};
    error start_error_{};  // why a child's allocation failed (the latest such failure)

private:
    template <std::size_t... I>
    void start_all(std::index_sequence<I...>) noexcept {
        (start_one<I>(), ...);
    }
    template <std::size_t I>
    void start_one() noexcept {
        auto& t = std::get<I>(tasks_);
        if (!t) {  // allocation failed: counts as finished at once
            done_mask_ |= 1u << I;
            if (winner_ == none) winner_ = I;
            return;
        }
        task_control& c = t.handle().promise().own_;
        children_[I] = &c;
        start_child(c, t.handle(), I);
    }
};

}  // namespace weft::detail
