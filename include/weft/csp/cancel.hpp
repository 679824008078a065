// SPDX-License-Identifier: Apache-2.0
#pragma once
// on_cancel(): the event "this task was cancelled". In a choose it commits
// when the task is cancelled (before or during the sync) instead of the
// sync failing with errc::cancelled, so a task can clean up in-line:
//
//   auto r = co_await choose(wrap(recv(jobs), run), wrap(on_cancel(), [] { return stop; }));
//
// Cancellation is still sticky (core rule): the task's later syncs without
// on_cancel() end with `cancelled`. The sync asks its event which leaf
// commits (cancel_leaf_now, event.hpp) only when the task is cancelled:
// one inside a window counts only inside it, and of several that count,
// choose picks one as it picks among ready branches (choose_ordered: the
// first in argument order).
#include <weft/csp/event.hpp>

namespace weft::csp {

struct [[nodiscard("co_await it: an event does nothing by itself")]] cancel_event : event_base<cancel_event> {
    class operation {
    public:
        static constexpr leaf_index leaves = 1;
        using value_type = void;
        explicit operation(cancel_event&&) noexcept {}

        void bind(sync_state& s, leaf_index base) noexcept {
            leaf_ = base;
            ++s.live;
        }
        void limit(std::uint64_t) noexcept {}
        bool poll(sync_state& s) noexcept {
            if (!s.ctl->cancel_requested()) return false;
            s.mark(leaf_);
            return true;
        }
        void enqueue(sync_state&) noexcept {}  // the root's abort hook commits it
        void withdraw() noexcept {}
        static leaf_index live_leaves() noexcept { return 1; }
        static constexpr bool may_cancel = true;
        leaf_index cancel_leaf_now(const sync_state&) const noexcept { return leaf_; }
        status take(const sync_state& s) const noexcept {
            if (s.winner == leaf_) return {};
            return error{s.status, "event", "on_cancel", 0, nullptr};
        }

    private:
        leaf_index leaf_ = 0;
    };
};

/// The event "this task has been cancelled". Does not allocate.
inline cancel_event on_cancel() noexcept { return {}; }

}  // namespace weft::csp
