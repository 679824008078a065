// SPDX-License-Identifier: Apache-2.0
#pragma once
// choose(e1, e2, ...): selective communication. Exactly one branch commits;
// the offers of the others are withdrawn at once (in the same step, before
// any other task runs). All branches must yield the same value type (use
// wrap to map them).
//
// Fairness: when several branches are ready at sync time, choose polls them
// starting at an index spread evenly over the branches (a Weyl sequence,
// detail/sync_state.hpp), so each ready branch wins its share over the
// long run, whatever other chooses the program runs in between (over
// short stretches, see docs/csp.md: a period of alternation near a
// Fibonacci number repeats one start for hundreds of syncs).
// choose_ordered polls in argument order (a priority select). Among blocked
// partners, each channel serves its waiting offers in FIFO order.
#include <weft/csp/event.hpp>

#include <array>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

namespace weft::csp {

template <bool Rotate, class... Es>
class [[nodiscard("co_await it: an event does nothing by itself")]] choose_event
    : public event_base<choose_event<Rotate, Es...>> {
    static_assert(sizeof...(Es) >= 1, "choose needs at least one event");
    using first_value = event_value_t<std::tuple_element_t<0, std::tuple<Es...>>>;
    static_assert((std::is_same_v<event_value_t<Es>, first_value> && ...),
                  "choose: every branch must yield the same type; map branches with wrap(e, f)");

public:
    explicit choose_event(Es&&... es) noexcept : events_(std::move(es)...) {}

    class operation {
        static constexpr std::size_t n = sizeof...(Es);

    public:
        static constexpr leaf_index leaves = (Es::operation::leaves + ...);
        using value_type = first_value;

        // Each branch's operation is built in place from its event: a
        // tuple of temporaries would move every operation once more.
        explicit operation(choose_event&& e) noexcept
            : ops_(std::make_from_tuple<std::tuple<typename Es::operation...>>(std::move(e.events_))) {}

        void bind(sync_state& s, leaf_index base) noexcept {
            bind_all(s, base, std::index_sequence_for<Es...>{});
        }
        void limit(std::uint64_t latest_ns) noexcept {
            std::apply([&](auto&... op) { (op.limit(latest_ns), ...); }, ops_);
        }
        bool poll(sync_state& s) noexcept {
            std::size_t start = Rotate && n > 1 ? detail::choose_start(n) : 0;
            for (std::size_t k = 0; k < n; ++k) {
                std::size_t i = start + k;
                if (i >= n) i -= n;
                if (poll_at(s, i, std::index_sequence_for<Es...>{})) return true;
            }
            return false;
        }
        void enqueue(sync_state& s) noexcept {
            std::apply([&](auto&... op) { (op.enqueue(s), ...); }, ops_);
        }
        void withdraw() noexcept {
            std::apply([](auto&... op) { (op.withdraw(), ...); }, ops_);
        }
        leaf_index live_leaves() const noexcept {
            return std::apply([](const auto&... op) { return leaf_index((op.live_leaves() + ...)); }, ops_);
        }
        // The on_cancel() leaf that commits if the task is cancelled now.
        // Several branches may have one: like ready branches in a poll,
        // choose_ordered takes the first and choose one from the Weyl
        // sequence; every answer is known here, so the pick is among those
        // branches only and each gets an equal share. A choose without
        // on_cancel() answers no_leaf at compile time: left to the
        // optimiser, GCC 12 -Os kept this function and, seeing a second
        // caller of choose_start, called it out of line from every poll.
        static constexpr bool may_cancel = (Es::operation::may_cancel || ...);
        leaf_index cancel_leaf_now(const sync_state& s) const noexcept {
            if constexpr (may_cancel) {
                const auto each = cancel_leaves(s, std::index_sequence_for<Es...>{});
                unsigned found = 0;
                for (leaf_index l : each) found += l != detail::no_leaf;
                unsigned skip = Rotate && found > 1 ? detail::choose_start(found) : 0;
                for (leaf_index l : each) {
                    if (l == detail::no_leaf) continue;
                    if (skip == 0) return l;
                    --skip;
                }
            }
            return detail::no_leaf;
        }
        result<value_type> take(sync_state& s) noexcept {
            return take_at(s, std::index_sequence_for<Es...>{});
        }

    private:
        template <std::size_t... I>
        void bind_all(sync_state& s, leaf_index base, std::index_sequence<I...>) noexcept {
            leaf_index b = base;
            ((bases_[I] = b, std::get<I>(ops_).bind(s, b), b = leaf_index(b + Es::operation::leaves)), ...);
        }
        template <std::size_t... I>
        bool poll_at(sync_state& s, std::size_t i, std::index_sequence<I...>) noexcept {
            bool hit = false;
            ((I == i ? (hit = std::get<I>(ops_).poll(s)) : false), ...);
            return hit;
        }
        template <std::size_t... I>
        std::array<leaf_index, n> cancel_leaves(const sync_state& s, std::index_sequence<I...>) const noexcept {
            return {std::get<I>(ops_).cancel_leaf_now(s)...};
        }
        template <std::size_t... I>
        result<value_type> take_at(sync_state& s, std::index_sequence<I...>) noexcept {
            // No winner (cancelled, timeout): the first branch reports it,
            // naming its object; otherwise the branch holding the winner.
            std::size_t which = 0;
            ((s.winner >= bases_[I] && s.winner < bases_[I] + Es::operation::leaves ? (which = I) : 0), ...);
            result<value_type> r{errc::invalid};
            ((I == which ? (void)(r = std::get<I>(ops_).take(s)) : (void)0), ...);
            return r;
        }

        std::tuple<typename Es::operation...> ops_;
        // Written by bind(), which every sync runs first; not zeroed here
        // (a memset call at -Os).
        leaf_index bases_[n];
    };

private:
    std::tuple<Es...> events_;
};

/// Selective communication over `es`, fair among ready branches. Does not allocate.
/// Events kept in variables are copied (detail::event_value).
template <event_ref... Es>
choose_event<true, std::remove_cvref_t<Es>...> choose(Es&&... es) noexcept {
    return choose_event<true, std::remove_cvref_t<Es>...>{detail::event_value(std::forward<Es>(es))...};
}
/// Like choose, but ready branches are tried in argument order (priority).
template <event_ref... Es>
choose_event<false, std::remove_cvref_t<Es>...> choose_ordered(Es&&... es) noexcept {
    return choose_event<false, std::remove_cvref_t<Es>...>{detail::event_value(std::forward<Es>(es))...};
}

}  // namespace weft::csp
