// SPDX-License-Identifier: Apache-2.0
#pragma once
// send(ch, v): the event "v is handed to ch" (a receiver took it, or it was
// buffered). Yields status: ok, or `closed` (the value is dropped with the
// failed event; use channel::try_send to get a refused value back).
#include <weft/csp/channel.hpp>
#include <weft/csp/event.hpp>

#include <coroutine>
#include <new>
#include <utility>

namespace weft::csp {

template <class T, std::size_t N> class send_operation;

template <class T, std::size_t N>
class send_event : public event_base<send_event<T, N>> {
public:
    send_event(channel<T, N>& ch, T v) noexcept : ch_(&ch), value_(std::move(v)) {}

    /// `co_await send(ch, v)` alone: the direct awaiter below, which gives
    /// the same outcomes as sync(send(ch, v)) without the choice machinery.
    /// The value stays in this event, which outlives the co_await (a
    /// temporary lives to the end of its full-expression).
    send_operation<T, N> operator co_await() && noexcept { return send_operation<T, N>{*this}; }

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
            errc st = errc::ok;
            if (!ch_->offer_send(value_, st)) return false;
            s.mark(offer_.leaf, st);
            return true;
        }
        void enqueue(sync_state&) noexcept { ch_->wait_send(offer_); }
        void withdraw() noexcept { offer_.withdraw(); }
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

/// The awaiter of `co_await send(ch, v)`: like recv_operation (recv.hpp),
/// one offer and none of the general protocol's bookkeeping; room in the
/// buffer, or nobody to hand the value to, are inline tests, and the wait
/// state is built only when the task parks. Outcome: ok (taken by a
/// receiver or buffered), `closed`, `cancelled`, or an abort's reason; on
/// failure the value is dropped with the event. Does not allocate.
template <class T, std::size_t N>
class send_operation : detail::offer_wait_storage {
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
        if constexpr (N > 0) {
            if (ch->can_put()) {  // (2): buffered, or to the first receiver
                ch->put(v);
                return done(errc::ok);
            }
        }
        if (!ch->send_must_wait()) {
            errc st = errc::ok;
            if (ch->offer_send(v, st)) return done(st);  // (2): taken by a receiver, or closed
        }
        detail::direct_wait& w = detail::direct_wait::build(&this->wait_, c, &v);  // (3)
        status_ = parked;
        ch->wait_send(w.o);
        c.park(h, &w);
        return true;
    }
    weft::status await_resume() const noexcept {
        errc st = status_ == parked ? this->wait_.status : status_;
        if (st == errc::ok) return {};
        return ev_->ch_->make_error(st);
    }

private:
    // Not an error code: the outcome is in the wait state.
    static constexpr errc parked = errc{0xff};
    bool done(errc st) noexcept {
        status_ = st;
        return false;
    }

    // As in recv_operation: the offer storage (a base) first, written only
    // by a park; what every send touches last, next to the event (which
    // holds the channel and the value).
    send_event<T, N>* ev_;
    errc status_;
};

/// The event "send v on ch". Does not allocate; v is stored in the event.
template <class T, std::size_t N, class U>
send_event<T, N> send(channel<T, N>& ch, U&& v) noexcept {
    return send_event<T, N>{ch, T(std::forward<U>(v))};
}

}  // namespace weft::csp
