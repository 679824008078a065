// SPDX-License-Identifier: Apache-2.0
#pragma once
// recv(ch): the event "a value arrives from ch". Yields result<T>: the
// value, or `closed` once the channel is closed and drained.
#include <weft/csp/channel.hpp>
#include <weft/csp/event.hpp>

#include <coroutine>
#include <new>
#include <type_traits>

namespace weft::csp {

template <class T, std::size_t N> class recv_operation;

template <class T, std::size_t N>
class [[nodiscard("co_await it: an event does nothing by itself")]] recv_event : public event_base<recv_event<T, N>> {
public:
    explicit recv_event(channel<T, N>& ch) noexcept : ch_(&ch) {}

    /// `co_await recv(ch)` alone: the direct awaiter below, which gives the
    /// same outcomes as sync(recv(ch)) without the choice machinery.
    /// Also for an event kept in a variable: it holds nothing to use up.
    recv_operation<T, N> operator co_await() const noexcept { return recv_operation<T, N>{*ch_}; }

    /// Per-sync state; a sender moves its value into slot_.
    class operation {
    public:
        static constexpr leaf_index leaves = 1;
        using value_type = T;
        explicit operation(recv_event&& e) noexcept : ch_(e.ch_) {}
        operation(operation&& o) noexcept : ch_(o.ch_) {}
        operation(const operation&) = delete;
        operation& operator=(const operation&) = delete;
        ~operation() {
            if constexpr (!std::is_trivially_destructible_v<T>)
                if (!taken_ && holds_value()) slot_.destroy();
        }

        void bind(sync_state& s, leaf_index base) noexcept {
            offer_.owner = &s;
            offer_.leaf = base;
            offer_.value = slot_.raw();
            ++s.live;
        }
        void limit(std::uint64_t latest_ns) noexcept { offer_.limit(latest_ns); }
        bool poll(sync_state& s) noexcept {
            if (ch_->recv_must_wait()) return false;  // as in send.hpp's poll
            errc st = errc::ok;
            if (!ch_->offer_recv(slot_, st, &s)) return false;
            s.mark(offer_.leaf, st);
            return true;
        }
        void enqueue(sync_state&) noexcept { ch_->wait_recv(offer_); }
        void withdraw() noexcept { offer_.withdraw(); }
        static leaf_index live_leaves() noexcept { return 1; }
        static constexpr bool may_cancel = false;
        static leaf_index cancel_leaf_now(const sync_state&) noexcept { return detail::no_leaf; }
        result<T> take(const sync_state& s) noexcept {
            if (s.winner == offer_.leaf && s.status == errc::ok) {
                taken_ = true;
                return channel<T, N>::take_from(slot_);
            }
            return ch_->make_error(s.status);
        }

    private:
        // The slot holds a value once this leaf committed with ok (by poll
        // or by a sender), until take() moves it out.
        bool holds_value() const noexcept {
            return offer_.owner && offer_.owner->winner == offer_.leaf && offer_.owner->status == errc::ok;
        }
        channel<T, N>* ch_;
        detail::value_slot<T> slot_;
        detail::timed_offer offer_;  // member initialisers only: `{}` zero-fills (a memset call at -Os)
        bool taken_ = false;
    };

private:
    channel<T, N>* ch_;
};

/// The awaiter of `co_await recv(ch)`: a sync of one base event with no
/// window and no on_cancel, which is most syncs, so it skips the general
/// protocol's bookkeeping (leaf numbering, live count, rotation). Steps as
/// in detail/sync_state.hpp: (2) take a value now if there is one; (3)
/// otherwise wait: as the channel's first receiver if nobody else
/// waits (channel.hpp), else with one offer; (4) a sender moves its value
/// into the slot and wakes the task, close() wakes it with `closed`, or an
/// abort (cancel, with_timeout, when_any) ends the wait. The common cases
/// are inline tests; an offer is built only when one is needed, and a
/// buffered value is moved straight from the channel into the result.
/// Outcome: the value; `closed`; `cancelled` (also if the task was
/// cancelled before the sync); or the abort's reason. Does not allocate.
template <class T, std::size_t N>
class [[nodiscard("co_await it: it does nothing until awaited")]] recv_operation
    : detail::offer_wait_storage, detail::first_receiver<T> {
    using base = detail::first_receiver<T>;

public:
    explicit recv_operation(channel<T, N>& ch) noexcept : ch_(&ch) {}
    recv_operation(const recv_operation&) = delete;
    recv_operation& operator=(const recv_operation&) = delete;
    ~recv_operation() {
        if constexpr (!std::is_trivially_destructible_v<T>)
            if (how_ == how::status && this->status == errc::ok)
                this->slot.destroy();  // delivered, never taken
    }

    bool await_ready() const noexcept { return false; }
    // Inlined so that the common, non-suspending path costs no call
    // (GCC 12 otherwise keeps it out of line in loops with several awaits).
    template <class P>
    [[gnu::always_inline]] bool await_suspend(std::coroutine_handle<P> h) noexcept {
        task_control& c = h.promise().control();
        if (c.cancel_requested()) return fail(errc::cancelled);
        if constexpr (N > 0) {
            if (ch_->can_take()) {  // (2), taken in await_resume
                note(how::ring);
                return false;
            }
        }
        if (ch_->can_wait_first()) {  // (3) ahead of every offer
            note(how::status);
            this->abort = &on_abort_first;
            ch_->wait_first(*this, c);
            c.park(h, this);
            return true;
        }
        if (!ch_->recv_must_wait()) {
            // On a rendezvous the outcome goes straight to its byte: a
            // local would be spilled around the wake of the sender whose
            // value this takes. (A buffered channel's refill path is out
            // of line, and the store first would cost it.)
            errc local = errc::ok;
            errc& st = N == 0 ? this->status : local;
            st = errc::ok;
            if (ch_->offer_recv(this->slot, st)) {  // (2): a waiting sender's value, or closed
                note(how::status);
                if constexpr (N > 0) this->status = st;
                return false;
            }
        }
        detail::direct_wait& w = detail::direct_wait::build(&this->wait_, c, this->slot.raw(), &this->status);  // (3)
        note(how::status);
        ch_->wait_recv(w.o);
        c.park(h, &w);
        return true;
    }
    // Inlined: the success path is a move; out of line at -Os it costs a
    // call and the result's copy back into the frame (16 instructions).
    [[gnu::always_inline]] result<T> await_resume() noexcept {
        if constexpr (N > 0)
            if (how_ == how::ring) return ch_->take();
        const errc st = this->status;
        if (st == errc::ok) {
            note(how::taken);
            return channel<T, N>::take_from(this->slot);
        }
        return ch_->make_error(st);
    }

private:
    // Where the outcome is. `status`: in the first-receiver node's status
    // (and, if ok, the value in the slot), however the receive went: the
    // channel writes it when this receive waited as the first receiver, a
    // queued offer's completion copies it there (direct_wait), a receive
    // that did not wait writes it itself (its node is not in the channel).
    // `ring`: a buffered value, taken from the channel by await_resume.
    // `taken`: the value has been moved out of the slot.
    enum class how : unsigned char { status, ring, taken };
    // Read only for a buffered channel (ring) or a T with a destructor
    // (taken): a rendezvous of plain values stores nothing.
    static constexpr bool tracks_how = N > 0 || !std::is_trivially_destructible_v<T>;
    void note(how h) noexcept {
        if constexpr (tracks_how) how_ = h;
    }
    bool fail(errc why) noexcept {
        note(how::status);
        this->status = why;
        return false;
    }
    // Cancellation or with_timeout while waiting as the first receiver.
    static void on_abort_first(weft::detail::wait_node* w, errc why) noexcept {
        auto* self = static_cast<recv_operation*>(static_cast<base*>(w));
        task_control* c = self->ch_->forget_first();
        self->status = why;
        c->wake();
    }

    // The offer (a base, so that it comes first), written only when
    // receivers queue; then what a receive that completes at once or waits
    // as the first receiver touches: the node and these, next to the event
    // (which GCC 12 places right after the awaiter in the frame).
    how how_;
    channel<T, N>* ch_;
};

/// The event "receive from ch". Does not allocate.
template <class T, std::size_t N>
recv_event<T, N> recv(channel<T, N>& ch) noexcept {
    return recv_event<T, N>{ch};
}

}  // namespace weft::csp
