// SPDX-License-Identifier: Apache-2.0
#pragma once
// timeout(d) / at(t): events that commit when time passes. timeout(d) is
// measured from the start of the sync that contains it (so a choose in a
// loop restarts it every iteration); at(t) is an absolute instant on the
// executor's clock. Both yield status ok when they commit.
//
//   auto r = co_await choose(recv(rx), wrap(timeout(50ms), [] { return resync; }));
#include <weft/core/detail/timer_heap.hpp>
#include <weft/core/time.hpp>
#include <weft/csp/event.hpp>

namespace weft::csp {

class [[nodiscard("co_await it: an event does nothing by itself")]] time_event : public event_base<time_event> {
public:
    time_event(bool relative, duration d, time_point t) noexcept : relative_(relative), delta_(d), at_(t) {}

    /// Per-sync state: the timer node lives here, inside the waiting frame.
    class operation : weft::detail::timer_node {
    public:
        static constexpr leaf_index leaves = 1;
        using value_type = void;
        explicit operation(time_event&& e) noexcept : relative_(e.relative_), delta_(e.delta_), at_(e.at_) {}
        operation(operation&& o) noexcept
            : weft::detail::timer_node(), relative_(o.relative_), delta_(o.delta_), at_(o.at_) {}

        void bind(sync_state& s, leaf_index base) noexcept {
            s_ = &s;
            leaf_ = base;
            ++s.live;
            // Saturated (the virtual clock may read above 2^62 ns), and an
            // at() before the epoch is due at once.
            deadline_ns = due_ns(relative_ ? later(s.now(), delta_) : at_);
        }
        // Inside a window: due at or after the window's end, the timeout
        // does not commit (the window's own timer ends the sync).
        void limit(std::uint64_t t) noexcept {
            if (t < latest_ns_) latest_ns_ = t;
        }
        bool poll(sync_state& s) noexcept {
            const std::uint64_t now = to_ns(s.now());
            if (now < deadline_ns || now >= latest_ns_) return false;
            s.mark(leaf_);
            return true;
        }
        void enqueue(sync_state& s) noexcept {
            fire = &on_fire;
            s.ctl->exec().arm(*this);
        }
        void withdraw() noexcept {
            if (armed()) s_->ctl->exec().disarm(*this);
        }
        static leaf_index live_leaves() noexcept { return 1; }
        static constexpr bool may_cancel = false;
        static leaf_index cancel_leaf_now(const sync_state&) noexcept { return detail::no_leaf; }
        status take(const sync_state& s) const noexcept {
            if (s.winner == leaf_) return {};
            return error{s.status, "event", "timeout", 0, nullptr};
        }

    private:
        static void on_fire(weft::detail::timer_node* n) noexcept {
            auto* self = static_cast<operation*>(n);
            if (to_ns(self->s_->now()) >= self->latest_ns_) return;  // the window has ended
            self->s_->commit(self->leaf_);
        }
        bool relative_;
        duration delta_;
        time_point at_;
        sync_state* s_ = nullptr;
        leaf_index leaf_ = 0;
        std::uint64_t latest_ns_ = detail::no_time;
    };

private:
    bool relative_;
    duration delta_;
    time_point at_;
};

/// The event "d has passed since the sync started". Does not allocate.
inline time_event timeout(duration d) noexcept { return {true, bounded_delay(d), {}}; }
/// The event "the executor's clock reads at least t". Does not allocate.
inline time_event at(time_point t) noexcept { return {false, {}, t}; }

}  // namespace weft::csp
