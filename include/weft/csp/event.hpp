// SPDX-License-Identifier: Apache-2.0
#pragma once
// Events are values that describe a communication without performing it
// (Concurrent ML). `co_await e` (or `co_await sync(e)`) synchronises on it.
//
//   auto ev = choose(wrap(recv(button), on_press), timeout(1s));
//   auto r = co_await ev;               // result<V>: the committed branch
//
// Every event type E has a nested E::operation, the per-sync state that
// lives inside the awaiter (so inside the waiting frame). The protocol, in
// the order sync uses it (numbers as in detail/sync_state.hpp):
//
//   static constexpr leaf_index leaves;   // base events inside E
//   using value_type;                     // what a successful sync yields
//   explicit operation(E&&);
//   void bind(sync_state&, leaf_index base); // (1) number leaves, run guards
//   void limit(std::uint64_t latest_ns);     //     window end for offers
//   bool poll(sync_state&);                  // (2) commit now if ready
//   void enqueue(sync_state&);               // (3) leave offers / arm timers
//   void withdraw() noexcept;                // (4) remove every offer
//   leaf_index live_leaves() const;          //     leaves not in a closed window
//   static constexpr bool may_cancel;        //     contains an on_cancel()
//   leaf_index cancel_leaf_now(const sync_state&) const;
//                                            //     the on_cancel() leaf that commits
//                                            //     if the task is cancelled now,
//                                            //     or no_leaf (asked only then)
//   result<value_type> take(sync_state&);    // the outcome after sync
//
// A sync commits exactly one leaf; all other offers are withdrawn at once.
#include <weft/core/executor.hpp>
#include <weft/core/result.hpp>
#include <weft/core/task_control.hpp>
#include <weft/csp/detail/sync_state.hpp>

#include <coroutine>
#include <type_traits>
#include <utility>

namespace weft::csp {

using detail::leaf_index;
using detail::sync_state;

template <class E> class sync_operation;

/// CRTP base of every event: makes `co_await e` synchronise.
template <class Derived>
struct event_base {
    /// Synchronises on the event (awaitable; does not allocate).
    sync_operation<Derived> operator co_await() && noexcept {
        return sync_operation<Derived>{std::move(static_cast<Derived&>(*this))};
    }
    /// An event is a value (CML): one kept in a variable may be
    /// synchronised on again and again (`auto ev = choose(...); for (;;)
    /// co_await ev;`). Each sync works on a copy, so the event, a value
    /// to send included, stays as it was. Events whose parts cannot be
    /// copied are synchronised once, as rvalues.
    sync_operation<Derived> operator co_await() const& noexcept
        requires std::is_copy_constructible_v<Derived>
    {
        return sync_operation<Derived>{Derived(static_cast<const Derived&>(*this))};
    }
};

template <class E>
concept event = requires { typename E::operation; E::operation::leaves; };

/// An event, or a reference to one: what sync and the combinators accept.
template <class E>
concept event_ref = event<std::remove_cvref_t<E>>;

namespace detail {
/// The event a sync or a combinator keeps: a temporary is moved, one the
/// caller keeps in a variable is copied, so that it stays as it was and
/// can be used again (events are values).
template <event_ref E>
std::remove_cvref_t<E> event_value(E&& e) noexcept {
    return std::remove_cvref_t<E>(std::forward<E>(e));
}
}  // namespace detail

template <class E>
using event_value_t = typename E::operation::value_type;

/// The awaiter of every event: runs the protocol above for one task.
/// Outcome: the committed leaf's result; `cancelled` if the task was
/// cancelled (unless the event contains on_cancel()); `timeout` if every
/// branch's window closed, or from an enclosing with_timeout.
template <class E>
class [[nodiscard("co_await it: it does nothing until awaited")]] sync_operation : sync_state {
    using op_type = typename E::operation;

public:
    using value_type = typename op_type::value_type;
    explicit sync_operation(E&& e) noexcept : op_(std::move(e)) {}

    bool await_ready() const noexcept { return false; }
    template <class P>
    bool await_suspend(std::coroutine_handle<P> h) noexcept {
        ctl = &h.promise().control();
        op_.bind(*this, 0);  // (1)
        if (ctl->cancel_requested()) {
            const leaf_index leaf = cancel_leaf_now();
            if (leaf != detail::no_leaf) mark(leaf);
            else status = errc::cancelled;
            return false;
        }
        if (op_.poll(*this)) return false;  // (2)
        if (live == 0) { status = errc::timeout; return false; }  // every window closed
        complete = &on_complete;
        abort = &on_abort;
        op_.enqueue(*this);  // (3)
        ctl->park(h, this);
        return true;
    }
    result<value_type> await_resume() noexcept { return op_.take(*this); }

private:
    // (4) A partner, a timer or a window committed a leaf (or failed the sync).
    static void on_complete(sync_state* s) noexcept {
        auto* self = static_cast<sync_operation*>(s);
        self->op_.withdraw();
        self->ctl->wake();
    }
    // Cancellation, with_timeout, when_any: withdraw and wake with the
    // reason, or commit an on_cancel() leaf that may commit now (asked only
    // here and at the start, so a sync that is not cancelled pays nothing).
    static void on_abort(weft::detail::wait_node* w, errc why) noexcept {
        auto* self = static_cast<sync_operation*>(static_cast<sync_state*>(w));
        const leaf_index leaf = why == errc::cancelled ? self->cancel_leaf_now() : detail::no_leaf;
        if (leaf != detail::no_leaf) self->mark(leaf);
        else self->status = why;
        self->op_.withdraw();
        self->ctl->wake();
    }
    leaf_index cancel_leaf_now() const noexcept {
        if constexpr (op_type::may_cancel) return op_.cancel_leaf_now(*this);
        else return detail::no_leaf;
    }

    op_type op_;
};

/// Explicit form of `co_await e`; also makes an event usable with the
/// core's with_timeout (`co_await with_timeout(sync(recv(ch)), 5ms)`).
/// An event kept in a variable is copied (it stays as it was, as with
/// `co_await e`).
template <event_ref E>
sync_operation<std::remove_cvref_t<E>> sync(E&& e) noexcept {
    return sync_operation<std::remove_cvref_t<E>>{detail::event_value(std::forward<E>(e))};
}

}  // namespace weft::csp
