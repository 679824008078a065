// SPDX-License-Identifier: Apache-2.0
#pragma once
// wrap(e, f): post-synchronisation function. After e commits with a value
// v, the sync yields f(v) (f() for events without a value). Errors of e
// pass through unchanged and f is not called. If f returns result<U>, the
// wrapped event yields U (no nested results).
#include <weft/csp/event.hpp>

#include <type_traits>
#include <utility>

namespace weft::csp {

namespace detail {
template <class V, class F> struct wrap_call { using type = std::invoke_result_t<F&, V&&>; };
template <class F> struct wrap_call<void, F> { using type = std::invoke_result_t<F&>; };
template <class R> struct flatten { using type = R; };
template <class U> struct flatten<result<U>> { using type = U; };
}  // namespace detail

template <class E, class F>
class [[nodiscard("co_await it: an event does nothing by itself")]] wrap_event : public event_base<wrap_event<E, F>> {
    using inner_value = event_value_t<E>;
    using call_result = typename detail::wrap_call<inner_value, F>::type;

public:
    wrap_event(E&& e, F f) noexcept : event_(std::move(e)), f_(std::move(f)) {}

    class operation {
    public:
        static constexpr leaf_index leaves = E::operation::leaves;
        using value_type = typename detail::flatten<call_result>::type;

        explicit operation(wrap_event&& w) noexcept
            : inner_(std::move(w.event_)), f_(std::move(w.f_)) {}

        void bind(sync_state& s, leaf_index base) noexcept { inner_.bind(s, base); }
        void limit(std::uint64_t t) noexcept { inner_.limit(t); }
        bool poll(sync_state& s) noexcept { return inner_.poll(s); }
        void enqueue(sync_state& s) noexcept { inner_.enqueue(s); }
        void withdraw() noexcept { inner_.withdraw(); }
        leaf_index live_leaves() const noexcept { return inner_.live_leaves(); }
        static constexpr bool may_cancel = E::operation::may_cancel;
        leaf_index cancel_leaf_now(const sync_state& s) const noexcept { return inner_.cancel_leaf_now(s); }
        result<value_type> take(sync_state& s) noexcept {
            auto r = inner_.take(s);
            if (!r) return r.err();
            if constexpr (std::is_void_v<inner_value>) return call(f_);
            else return call(f_, std::move(*r));
        }

    private:
        template <class... A>
        static result<value_type> call(F& f, A&&... a) noexcept {
            if constexpr (std::is_void_v<call_result>) {
                f(std::forward<A>(a)...);
                return {};
            } else {
                return f(std::forward<A>(a)...);
            }
        }
        typename E::operation inner_;
        F f_;
    };

private:
    E event_;
    F f_;
};

/// The event "e, then f on its value". Does not allocate (f is stored).
template <event_ref E, class F>
wrap_event<std::remove_cvref_t<E>, std::decay_t<F>> wrap(E&& e, F&& f) noexcept {
    return {detail::event_value(std::forward<E>(e)), std::forward<F>(f)};
}

}  // namespace weft::csp
