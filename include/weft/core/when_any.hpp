// SPDX-License-Identifier: Apache-2.0
#pragma once
// co_await when_any(a(), b(), ...): runs the tasks concurrently; the first
// to finish wins, the others are cancelled and awaited, so every loser has
// released what it held (queue places, locks, timers, frames' contents)
// before the await returns.
//
//   auto r = co_await weft::when_any(read_packet(), sleep_task(50ms));
//   if (r.index == 0) use(*std::get<0>(r.values));
#include <weft/core/detail/task_group.hpp>

#include <cstddef>
#include <optional>
#include <tuple>
#include <utility>

namespace weft {

template <class... Ts>
struct when_any_result {
    std::size_t index;  ///< which task finished first
    /// Only the winner's element holds a value.
    std::tuple<std::optional<awaited_t<Ts>>...> values;
    /// The await itself ended early (errc::cancelled / timeout) before any
    /// child finished; index is still the first child that finished. A
    /// cancel or bound that comes once a child has won (while the losers
    /// unwind) leaves it ok.
    errc outcome = errc::ok;
};

template <class... Ts>
class [[nodiscard("co_await it: it does nothing until awaited")]] when_any_operation
    : public detail::group_operation<Ts...> {
public:
    explicit when_any_operation(task<Ts>&&... ts) noexcept
        : detail::group_operation<Ts...>(true, std::move(ts)...) {}

    when_any_result<Ts...> await_resume() noexcept {
        when_any_result<Ts...> r{this->winner(), {}, this->outcome()};
        fill(r, std::index_sequence_for<Ts...>{});
        this->spend();
        return r;
    }

private:
    template <std::size_t... I>
    void fill(when_any_result<Ts...>& r, std::index_sequence<I...>) noexcept {
        ((I == r.index ? (void)std::get<I>(r.values).emplace(this->template take<I>()) : (void)0), ...);
    }
};

/// Awaitable; does not allocate (children's frames come from the pools).
template <class... Ts>
when_any_operation<Ts...> when_any(task<Ts>&&... ts) noexcept {
    return when_any_operation<Ts...>{std::move(ts)...};
}

}  // namespace weft
