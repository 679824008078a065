// SPDX-License-Identifier: Apache-2.0
#pragma once
// send(ch, v): the event "v is handed to ch" (a receiver took it, or it was
// buffered). Yields status: ok, or `closed` (the value is dropped with the
// failed event; use channel::try_send to get a refused value back).
#include <weft/csp/channel.hpp>
#include <weft/csp/event.hpp>

#include <utility>

namespace weft::csp {

template <class T, std::size_t N>
class send_event : public event_base<send_event<T, N>> {
public:
    send_event(channel<T, N>& ch, T v) noexcept : ch_(&ch), value_(std::move(v)) {}

    /// Per-sync state; the offer points at the value stored here.
    class operation {
    public:
        static constexpr leaf_index leaves = 1;
        using value_type = void;
        explicit operation(send_event&& e) noexcept : ch_(e.ch_), value_(std::move(e.value_)) {}
        operation(operation&& o) noexcept : ch_(o.ch_), value_(std::move(o.value_)) {}

        void bind(sync_state& s, leaf_index base) noexcept {
            offer_.owner = &s;
            offer_.leaf = base;
            offer_.value = &value_;
            ++s.live;
        }
        void limit(std::uint64_t latest_ns) noexcept {
            if (latest_ns < offer_.latest_ns) offer_.latest_ns = latest_ns;
        }
        bool poll(sync_state& s) noexcept {
            errc st = errc::ok;
            if (!ch_->offer_send(value_, st)) return false;
            s.mark(offer_.leaf, st);
            return true;
        }
        void enqueue(sync_state&) noexcept { ch_->wait_send(offer_); }
        void withdraw() noexcept { offer_.withdraw(); }
        status take(const sync_state& s) const noexcept {
            if (s.winner == offer_.leaf && s.status == errc::ok) return {};
            return ch_->make_error(s.status);
        }

    private:
        channel<T, N>* ch_;
        T value_;
        detail::offer offer_{};
    };

private:
    channel<T, N>* ch_;
    T value_;
};

/// The event "send v on ch". Does not allocate; v is stored in the event.
template <class T, std::size_t N, class U>
send_event<T, N> send(channel<T, N>& ch, U&& v) noexcept {
    return send_event<T, N>{ch, T(std::forward<U>(v))};
}

}  // namespace weft::csp
