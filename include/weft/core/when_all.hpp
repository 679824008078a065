// SPDX-License-Identifier: Apache-2.0
#pragma once
// co_await when_all(a(), b(), ...): runs the tasks concurrently (as
// separate tasks at the awaiting task's priority) and yields a tuple of
// their results once all have finished.
//
// Cancelling the awaiting task (or a with_timeout around the when_all)
// cancels every child, then still waits for them to finish: no child
// outlives the await, so its frame and anything it held are released.
#include <weft/core/detail/task_group.hpp>

#include <tuple>
#include <utility>

namespace weft {

template <class... Ts>
class [[nodiscard("co_await it: it does nothing until awaited")]] when_all_operation
    : public detail::group_operation<Ts...> {
public:
    explicit when_all_operation(task<Ts>&&... ts) noexcept
        : detail::group_operation<Ts...>(false, std::move(ts)...) {}

    /// Each element is the child's awaited_t<T> (its value or the error
    /// that kept it from starting).
    std::tuple<awaited_t<Ts>...> await_resume() noexcept {
        std::tuple<awaited_t<Ts>...> r = collect(std::index_sequence_for<Ts...>{});
        this->spend();
        return r;
    }

private:
    template <std::size_t... I>
    std::tuple<awaited_t<Ts>...> collect(std::index_sequence<I...>) noexcept {
        return {this->template take<I>()...};
    }
};

/// Awaitable; does not allocate (children's frames come from the pools).
template <class... Ts>
when_all_operation<Ts...> when_all(task<Ts>&&... ts) noexcept {
    return when_all_operation<Ts...>{std::move(ts)...};
}

}  // namespace weft
