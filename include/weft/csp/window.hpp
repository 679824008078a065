// SPDX-License-Identifier: Apache-2.0
#pragma once
// Time-windowed synchronisation (the Synchron extension of SenseVM):
//
//   window(e, earliest, latest)   // absolute instants on the executor clock
//   within(e, after, before)      // durations from the start of the sync
//
// Semantics: the event e may commit only at a time t with
// earliest <= t < latest (executor clock, read when the match happens).
// Before `earliest` it leaves no offers (partners cannot see it); at
// `earliest` it polls once and then offers; at `latest` its offers are
// withdrawn. A window that has closed can never commit: if every branch of
// a sync has closed its window, the sync ends with errc::timeout. Partners
// skip an offer whose window closed even if its withdrawal timer has not
// run yet, and a window whose opening timer runs late (at or after
// `latest`, or an empty window, earliest >= latest, whose timer runs at
// `latest`) closes without polling, so no commit is ever observed outside
// the window. An on_cancel() inside a window counts
// only for a cancellation at a time inside the window (the clock is read
// when it comes): before or after, the sync ends with errc::cancelled, as
// if it had no on_cancel() branch (or another on_cancel() of it commits).
//
// State machine (numbers cited in the code):
//
//   waiting ──(1) now >= earliest──> open ──(2) now >= latest──> closed
//      └───────────(3) now >= latest at sync start───────────────────^
//
// Periodic, drift-free loops keep their own logical time and advance it by
// the period (Synchron's baseline): see docs/csp.md, "Windows".
#include <weft/core/detail/timer_heap.hpp>
#include <weft/core/time.hpp>
#include <weft/csp/event.hpp>

#include <algorithm>
#include <utility>

namespace weft::csp {

template <class E>
class [[nodiscard("co_await it: an event does nothing by itself")]] window_event
    : public event_base<window_event<E>> {
public:
    window_event(E&& e, bool relative, duration a, duration b, time_point ta, time_point tb) noexcept
        : event_(std::move(e)), relative_(relative), after_(a), before_(b), earliest_(ta), latest_(tb) {}

    class operation : weft::detail::timer_node {
        enum class state : unsigned char { waiting, open, closed };

    public:
        static constexpr leaf_index leaves = E::operation::leaves;
        using value_type = event_value_t<E>;

        explicit operation(window_event&& w) noexcept
            : inner_(std::move(w.event_)), relative_(w.relative_), after_(w.after_),
              before_(w.before_), earliest_(w.earliest_), latest_(w.latest_) {}
        operation(operation&& o) noexcept
            : weft::detail::timer_node(), inner_(std::move(o.inner_)), relative_(o.relative_),
              after_(o.after_), before_(o.before_), earliest_(o.earliest_), latest_(o.latest_) {}

        void bind(sync_state& s, leaf_index base) noexcept {
            s_ = &s;
            time_point now = s.now();
            if (relative_) {
                // Saturated: past the end of time a window never opens.
                earliest_ = later(now, after_);
                latest_ = later(now, before_);
            }
            inner_.bind(s, base);
            inner_.limit(end_ns());
        }
        void limit(std::uint64_t t) noexcept {
            if (t < end_ns()) latest_ = from_ns(t);
            inner_.limit(t);
        }
        bool poll(sync_state& s) noexcept {
            time_point now = s.now();
            if (now >= latest_) { close_window(); return false; }  // (3)
            if (now < earliest_) return false;
            open();
            return inner_.poll(s);
        }
        void enqueue(sync_state& s) noexcept {
            if (state_ == state::closed) return;
            fire = &on_fire;
            if (state_ == state::open) {
                inner_.enqueue(s);
                deadline_ns = to_ns(latest_);
            } else {
                // An inverted window (earliest > latest, e.g. narrowed by an
                // outer one) is empty: its timer runs at its end, where it
                // closes without opening (1), as a sync started then would
                // (3); armed at `earliest`, it kept the sync waiting past it.
                deadline_ns = to_ns(std::min(earliest_, latest_));
            }
            s.ctl->exec().arm(*this);
        }
        void withdraw() noexcept {
            if (armed()) s_->ctl->exec().disarm(*this);
            inner_.withdraw();
        }
        leaf_index live_leaves() const noexcept { return state_ == state::closed ? 0 : inner_.live_leaves(); }
        static constexpr bool may_cancel = E::operation::may_cancel;
        // An on_cancel() inside counts only at a time inside the window,
        // read from the clock when the cancellation comes (not from the
        // state, whose timers may not have run yet on the real clock).
        leaf_index cancel_leaf_now(const sync_state& s) const noexcept {
            const time_point now = s.now();
            if (state_ == state::closed || now < earliest_ || now >= latest_) return detail::no_leaf;
            return inner_.cancel_leaf_now(s);
        }
        result<value_type> take(sync_state& s) noexcept { return inner_.take(s); }

    private:
        // The end as the unsigned nanoseconds offers and limits compare:
        // an absolute end before the epoch is over at 0, where to_ns()
        // would read it as the far future (and an outer window's end
        // then replaced it in limit(), stretching a window that was over).
        std::uint64_t end_ns() const noexcept { return due_ns(latest_); }
        void open() noexcept { state_ = state::open; }
        // Only the leaves still live count: a window nested in this one
        // may have closed already and taken its own off.
        void close_window() noexcept {
            if (state_ == state::closed) return;
            s_->live = leaf_index(s_->live - inner_.live_leaves());
            state_ = state::closed;
        }
        static void on_fire(weft::detail::timer_node* n) noexcept {
            auto* self = static_cast<operation*>(n);
            sync_state& s = *self->s_;
            if (self->state_ == state::waiting) {  // (1)
                if (s.now() >= self->latest_) {  // opened late, or empty: never open
                    self->close_window();
                    if (s.live == 0) s.fail(errc::timeout);
                    return;
                }
                self->open();
                if (self->inner_.poll(s)) { s.complete(&s); return; }
                // The poll closes the windows nested in this one whose end
                // has passed: if they held the sync's last live leaves,
                // the sync is over now, not at this window's end.
                if (s.live == 0) { s.fail(errc::timeout); return; }
                self->inner_.enqueue(s);
                self->deadline_ns = to_ns(self->latest_);
                s.ctl->exec().arm(*self);
                return;
            }
            self->inner_.withdraw();  // (2)
            self->close_window();
            if (s.live == 0) s.fail(errc::timeout);
        }

        typename E::operation inner_;
        bool relative_;
        duration after_, before_;
        time_point earliest_, latest_;
        sync_state* s_ = nullptr;
        state state_ = state::waiting;
    };

private:
    E event_;
    bool relative_;
    duration after_, before_;
    time_point earliest_, latest_;
};

/// e, allowed to commit only in [earliest, latest). Does not allocate.
template <event_ref E>
window_event<std::remove_cvref_t<E>> window(E&& e, time_point earliest, time_point latest) noexcept {
    return {detail::event_value(std::forward<E>(e)), false, {}, {}, earliest, latest};
}
/// e, allowed to commit only in [start + after, start + before), where
/// start is the moment the sync begins. Does not allocate.
template <event_ref E>
window_event<std::remove_cvref_t<E>> within(E&& e, duration after, duration before) noexcept {
    return {detail::event_value(std::forward<E>(e)), true, bounded_delay(after), bounded_delay(before), {}, {}};
}

}  // namespace weft::csp
