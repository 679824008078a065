// SPDX-License-Identifier: Apache-2.0
#pragma once
// guard(f): an event built at synchronisation time. f() runs when the sync
// starts (once per sync) and returns the event to synchronise on, so the
// event can depend on state at that moment (the next deadline, the current
// buffer level, ...).
#include <weft/csp/event.hpp>

#include <optional>
#include <type_traits>
#include <utility>

namespace weft::csp {

template <class F>
class [[nodiscard("co_await it: an event does nothing by itself")]] guard_event : public event_base<guard_event<F>> {
    using built = std::invoke_result_t<F&>;
    static_assert(event<built>, "guard(f): f() must return an event");

public:
    explicit guard_event(F f) noexcept : f_(std::move(f)) {}

    class operation {
    public:
        static constexpr leaf_index leaves = built::operation::leaves;
        using value_type = event_value_t<built>;

        explicit operation(guard_event&& g) noexcept : f_(std::move(g.f_)) {}
        operation(operation&& o) noexcept : f_(std::move(o.f_)) {}

        void bind(sync_state& s, leaf_index base) noexcept {
            inner_.emplace(f_());
            inner_->bind(s, base);
        }
        void limit(std::uint64_t t) noexcept { inner_->limit(t); }
        bool poll(sync_state& s) noexcept { return inner_->poll(s); }
        void enqueue(sync_state& s) noexcept { inner_->enqueue(s); }
        void withdraw() noexcept { inner_->withdraw(); }
        leaf_index live_leaves() const noexcept { return inner_->live_leaves(); }
        static constexpr bool may_cancel = built::operation::may_cancel;
        leaf_index cancel_leaf_now(const sync_state& s) const noexcept { return inner_->cancel_leaf_now(s); }
        result<value_type> take(sync_state& s) noexcept { return inner_->take(s); }

    private:
        F f_;
        std::optional<typename built::operation> inner_;
    };

private:
    F f_;
};

/// The event returned by f(), built when the sync starts. Does not allocate.
template <class F>
guard_event<std::decay_t<F>> guard(F&& f) noexcept {
    return guard_event<std::decay_t<F>>{std::forward<F>(f)};
}

}  // namespace weft::csp
