// SPDX-License-Identifier: Apache-2.0
#pragma once
// send(ch, v): the event "v is handed to ch" (a receiver took it, or it was
// buffered). Yields status: ok, or `closed` (the value is dropped with the
// failed event; use channel::try_send to get a refused value back).
#include <weft/csp/channel.hpp>
#include <weft/csp/event.hpp>

#include <coroutine>
#include <new>
#include <type_traits>
#include <utility>

namespace weft::csp {

template <class T, std::size_t N> class send_operation;

template <class T, std::size_t N>
class [[nodiscard("co_await it: an event does nothing by itself")]] send_event : public event_base<send_event<T, N>> {
public:
    send_event(channel<T, N>& ch, T v) noexcept : ch_(&ch), value_(std::move(v)) {}

    /// `co_await send(ch, v)` alone: the direct awaiter below, which gives
    /// the same outcomes as sync(send(ch, v)) without the choice machinery.
    /// The value stays in this event, which outlives the co_await (a
    /// temporary lives to the end of its full-expression).
    send_operation<T, N> operator co_await() && noexcept { return send_operation<T, N>{*this}; }
    /// An event kept in a variable keeps its value: each sync sends a
    /// copy, by the general protocol (event_base).
    using event_base<send_event>::operator co_await;

    /// Per-sync state; the offer points at the value stored here.
    class operation {
    public:
        static constexpr leaf_index leaves = 1;
        using value_type = void;
        explicit operation(send_event&& e) noexcept : ch_(e.ch_), value_(std::move(e.value_)) {}
        operation(operation&& o) noexcept : ch_(o.ch_), value_(std::move(o.value_)) {}

        void bind(sync_state& s, leaf_index base) noexcept {
            offer_.owner = &s;
            offer_.leaf = base;
            offer_.value = &value_;
            ++s.live;
        }
        void limit(std::uint64_t latest_ns) noexcept { offer_.limit(latest_ns); }
        bool poll(sync_state& s) noexcept {
            // Nobody to hand it to and no room: fail inline, without the
            // call into the general matching code (a choose polls many
            // branches that are not ready).
            if (ch_->send_must_wait()) return false;
            errc st = errc::ok;
            if (!ch_->offer_send(value_, st, &s)) return false;
            s.mark(offer_.leaf, st);
            return true;
        }
        void enqueue(sync_state&) noexcept { ch_->wait_send(offer_); }
        void withdraw() noexcept { offer_.withdraw(); }
        static leaf_index live_leaves() noexcept { return 1; }
        static constexpr bool may_cancel = false;
        static leaf_index cancel_leaf_now(const sync_state&) noexcept { return detail::no_leaf; }
        status take(const sync_state& s) const noexcept {
            if (s.winner == offer_.leaf && s.status == errc::ok) return {};
            return ch_->make_error(s.status);
        }

    private:
        channel<T, N>* ch_;
        T value_;
        detail::timed_offer offer_;  // member initialisers only: `{}` zero-fills (a memset call at -Os)
    };

private:
    friend class send_operation<T, N>;
    channel<T, N>* ch_;
    T value_;
};

/// Where a direct send's outcome lands: on a rendezvous, in its
/// first-sender node (the channel writes it there); a buffered channel has
/// no first sender, and its sends keep only the status.
struct send_status {
    errc status;
};
template <class T, std::size_t N>
using send_outcome = std::conditional_t<N == 0, detail::first_sender<T>, send_status>;

/// The awaiter of `co_await send(ch, v)`: like recv_operation (recv.hpp),
/// one offer and none of the general protocol's bookkeeping; room in the
/// buffer, or nobody to hand the value to, are inline tests. A send that
/// must wait while no other sender does waits as the channel's first
/// sender (channel.hpp); behind another, the wait state is built when the
/// task parks. Outcome: ok (taken by a receiver or buffered), `closed`,
/// `cancelled`, or an abort's reason; on failure the value is dropped with
/// the event. Does not allocate.
template <class T, std::size_t N>
class [[nodiscard("co_await it: it does nothing until awaited")]] send_operation
    : detail::offer_wait_storage, send_outcome<T, N> {
    using base = send_outcome<T, N>;

public:
    explicit send_operation(send_event<T, N>& e) noexcept : ev_(&e) {}
    send_operation(const send_operation&) = delete;
    send_operation& operator=(const send_operation&) = delete;

    bool await_ready() const noexcept { return false; }
    // Inlined so that the common, non-suspending path costs no call
    // (GCC 12 otherwise keeps it out of line in loops with several awaits).
    template <class P>
    [[gnu::always_inline]] bool await_suspend(std::coroutine_handle<P> h) noexcept {
        task_control& c = h.promise().control();
        channel<T, N>* ch = ev_->ch_;
        T& v = ev_->value_;
        if (c.cancel_requested()) return done(errc::cancelled);
        if (ch->can_put()) {  // (2): buffered, or to the first receiver
            ch->put(v);
            return done(errc::ok);
        }
        if (ch->send_must_wait()) {
            if constexpr (N == 0) {
                if (ch->can_wait_first_send()) {  // (3) ahead of every offer; the outcome lands in `status`
                    this->abort = &on_abort_first;
                    ch->wait_first_send(*this, v, c);
                    c.park(h, this);
                    return true;
                }
            }
        } else {
            errc st = errc::ok;
            if (ch->offer_send(v, st)) return done(st);  // (2): taken by a receiver, or closed
        }
        detail::direct_wait& w = detail::direct_wait::build(&this->wait_, c, &v, &this->status);  // (3)
        ch->wait_send(w.o);
        c.park(h, &w);
        return true;
    }
    [[gnu::always_inline]] weft::status await_resume() const noexcept {
        const errc st = this->status;  // every way it waited writes its outcome here
        if (st == errc::ok) return {};
        return ev_->ch_->make_error(st);
    }

private:
    // The outcome is always the base's `status`: written here when the send
    // completes at once, by the channel when it waited as the first
    // sender, by the wait state's hooks when its offer was queued.
    bool done(errc st) noexcept {
        this->status = st;
        return false;
    }
    // Cancellation or with_timeout while waiting as the first sender.
    static void on_abort_first(weft::detail::wait_node* w, errc why) noexcept {
        static_assert(N == 0);
        auto* self = static_cast<send_operation*>(static_cast<base*>(w));
        task_control* c = self->ev_->ch_->forget_first_sender();
        self->status = why;
        c->wake();
    }

    // As in recv_operation: the offer storage (a base) first, written only
    // by a park; then the first-sender node, whose status every send
    // writes; last, next to the event (which holds the channel and the
    // value), the event's address.
    send_event<T, N>* ev_;
};

/// The event "send v on ch". Does not allocate; v is stored in the event.
template <class T, std::size_t N, class U>
send_event<T, N> send(channel<T, N>& ch, U&& v) noexcept {
    return send_event<T, N>{ch, T(std::forward<U>(v))};
}

}  // namespace weft::csp
