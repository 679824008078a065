// SPDX-License-Identifier: Apache-2.0
#pragma once
// recv(ch): the event "a value arrives from ch". Yields result<T>: the
// value, or `closed` once the channel is closed and drained.
#include <weft/csp/channel.hpp>
#include <weft/csp/event.hpp>

#include <coroutine>
#include <optional>

namespace weft::csp {

template <class T, std::size_t N> class recv_operation;

template <class T, std::size_t N>
class recv_event : public event_base<recv_event<T, N>> {
public:
    explicit recv_event(channel<T, N>& ch) noexcept : ch_(&ch) {}

    /// `co_await recv(ch)` alone: the direct awaiter below, which gives the
    /// same outcomes as sync(recv(ch)) without the choice machinery.
    recv_operation<T, N> operator co_await() && noexcept { return recv_operation<T, N>{*ch_}; }

    /// Per-sync state; a sender moves its value into slot_.
    class operation {
    public:
        static constexpr leaf_index leaves = 1;
        using value_type = T;
        explicit operation(recv_event&& e) noexcept : ch_(e.ch_) {}
        operation(operation&& o) noexcept : ch_(o.ch_) {}

        void bind(sync_state& s, leaf_index base) noexcept {
            offer_.owner = &s;
            offer_.leaf = base;
            offer_.value = &slot_;
            ++s.live;
        }
        void limit(std::uint64_t latest_ns) noexcept {
            if (latest_ns < offer_.latest_ns) offer_.latest_ns = latest_ns;
        }
        bool poll(sync_state& s) noexcept {
            errc st = errc::ok;
            if (!ch_->offer_recv(slot_, st)) return false;
            s.mark(offer_.leaf, st);
            return true;
        }
        void enqueue(sync_state&) noexcept { ch_->wait_recv(offer_); }
        void withdraw() noexcept { offer_.withdraw(); }
        result<T> take(const sync_state& s) noexcept {
            if (s.winner == offer_.leaf && s.status == errc::ok) return std::move(*slot_);
            return ch_->make_error(s.status);
        }

    private:
        channel<T, N>* ch_;
        std::optional<T> slot_;
        detail::offer offer_;  // member initialisers only: `{}` zero-fills (a memset call at -Os)
    };

private:
    channel<T, N>* ch_;
};

/// The awaiter of `co_await recv(ch)`: a sync of one base event with no
/// window and no on_cancel, which is most syncs, so it skips the general
/// protocol's bookkeeping (leaf numbering, live count, rotation) and lives
/// in fewer bytes of the frame. Steps as in detail/sync_state.hpp: (2) poll
/// the channel; (3) leave one offer and park; (4) a sender or close()
/// commits it, or an abort (cancel, with_timeout, when_any) withdraws it.
/// Outcome: the value; `closed`; `cancelled` (also if the task was
/// cancelled before the sync); or the abort's reason. Does not allocate.
template <class T, std::size_t N>
class recv_operation : detail::sync_state {
public:
    explicit recv_operation(channel<T, N>& ch) noexcept : ch_(&ch) {}
    recv_operation(const recv_operation&) = delete;
    recv_operation& operator=(const recv_operation&) = delete;

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
        if (ch_->offer_recv(slot_, status)) return false;  // (2): a value, or closed
        detail::offer& o = offer_.make(this, &slot_);       // (3)
        complete = &on_complete;
        abort = &on_abort;
        ch_->wait_recv(o);
        ctl->park(h, this);
        return true;
    }
    // Inlined: the success path is a move; out of line at -Os it costs a
    // call and the result's copy back into the frame (16 instructions).
    [[gnu::always_inline]] result<T> await_resume() noexcept {
        if (status == errc::ok) return std::move(*slot_);
        return ch_->make_error(status);
    }

private:
    // (4) The partner has already unlinked our offer and filled slot_.
    static void on_complete(sync_state* s) noexcept { s->ctl->wake(); }
    static void on_abort(weft::detail::wait_node* w, errc why) noexcept {
        auto* self = static_cast<recv_operation*>(static_cast<sync_state*>(w));
        self->status = why;
        self->offer_.get().withdraw();  // built: an abort finds the task parked
        self->ctl->wake();
    }

    channel<T, N>* ch_;
    std::optional<T> slot_;
    detail::lazy_offer offer_;
};

/// The event "receive from ch". Does not allocate.
template <class T, std::size_t N>
recv_event<T, N> recv(channel<T, N>& ch) noexcept {
    return recv_event<T, N>{ch};
}

}  // namespace weft::csp
