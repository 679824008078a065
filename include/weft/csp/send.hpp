// SPDX-License-Identifier: Apache-2.0
#pragma once
// send(ch, v): the event "v is handed to ch" (a receiver took it, or it was
// buffered). Yields status: ok, or `closed` (the value is dropped with the
// failed event; use channel::try_send to get a refused value back).
#include <weft/csp/channel.hpp>
#include <weft/csp/event.hpp>

#include <coroutine>
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
    send_operation<T, N> operator co_await() && noexcept { return send_operation<T, N>{*ch_, value_}; }

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
        void limit(std::uint64_t latest_ns) noexcept {
            if (latest_ns < offer_.latest_ns) offer_.latest_ns = latest_ns;
        }
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
        detail::offer offer_;  // member initialisers only: `{}` zero-fills (a memset call at -Os)
    };

private:
    channel<T, N>* ch_;
    T value_;
};

/// The awaiter of `co_await send(ch, v)`: like recv_operation (recv.hpp),
/// one offer and none of the general protocol's bookkeeping. Outcome: ok
/// (taken by a receiver or buffered), `closed`, `cancelled`, or an abort's
/// reason; on failure the value is dropped with the event. Does not allocate.
template <class T, std::size_t N>
class send_operation : detail::sync_state {
public:
    send_operation(channel<T, N>& ch, T& v) noexcept : ch_(&ch), value_(&v) {}
    send_operation(const send_operation&) = delete;
    send_operation& operator=(const send_operation&) = delete;

    bool await_ready() const noexcept { return false; }
    // Inlined so that the common, non-suspending path costs no call
    // (GCC 12 otherwise keeps it out of line in loops with several awaits).
    template <class P>
    [[gnu::always_inline]] bool await_suspend(std::coroutine_handle<P> h) noexcept {
        ctl = &h.promise().control();
        if (ctl->cancel_requested()) {
            status = errc::cancelled;
            return false;
        }
        if (ch_->offer_send(*value_, status)) return false;  // (2): taken, buffered, or closed
        detail::offer& o = offer_.make(this, value_);         // (3)
        complete = &on_complete;
        abort = &on_abort;
        ch_->wait_send(o);
        ctl->park(h, this);
        return true;
    }
    weft::status await_resume() const noexcept {
        if (status == errc::ok) return {};
        return ch_->make_error(status);
    }

private:
    // (4) The partner has already unlinked our offer and taken the value.
    static void on_complete(sync_state* s) noexcept { s->ctl->wake(); }
    static void on_abort(weft::detail::wait_node* w, errc why) noexcept {
        auto* self = static_cast<send_operation*>(static_cast<sync_state*>(w));
        self->status = why;
        self->offer_.get().withdraw();  // built: an abort finds the task parked
        self->ctl->wake();
    }

    channel<T, N>* ch_;
    T* value_;
    detail::lazy_offer offer_;
};

/// The event "send v on ch". Does not allocate; v is stored in the event.
template <class T, std::size_t N, class U>
send_event<T, N> send(channel<T, N>& ch, U&& v) noexcept {
    return send_event<T, N>{ch, T(std::forward<U>(v))};
}

}  // namespace weft::csp
