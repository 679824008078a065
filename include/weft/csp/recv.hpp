// SPDX-License-Identifier: Apache-2.0
#pragma once
// recv(ch): the event "a value arrives from ch". Yields result<T>: the
// value, or `closed` once the channel is closed and drained.
#include <weft/csp/channel.hpp>
#include <weft/csp/event.hpp>

#include <optional>

namespace weft::csp {

template <class T, std::size_t N>
class recv_event : public event_base<recv_event<T, N>> {
public:
    explicit recv_event(channel<T, N>& ch) noexcept : ch_(&ch) {}

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
        detail::offer offer_{};
    };

private:
    channel<T, N>* ch_;
};

/// The event "receive from ch". Does not allocate.
template <class T, std::size_t N>
recv_event<T, N> recv(channel<T, N>& ch) noexcept {
    return recv_event<T, N>{ch};
}

}  // namespace weft::csp
