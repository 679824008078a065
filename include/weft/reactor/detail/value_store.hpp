// SPDX-License-Identifier: Apache-2.0
#pragma once
// Payloads of pending events. Each action (and each `after` connection)
// keeps its own fixed array of value slots; an event in the queue names a
// slot. When the event fires, its value moves into `current` and the slot
// is freed. value_store<void, N> holds nothing.
#include <cstddef>
#include <cstdint>
#include <utility>

namespace weft::reactors::detail {

template <class T, std::size_t N>
class value_store {
    static_assert(N >= 1 && N < 0xffff, "value slots: between 1 and 65534");

public:
    static constexpr std::uint16_t none = 0xffff;

    value_store() noexcept {
        for (std::size_t i = 0; i < N; ++i) next_[i] = std::uint16_t(i + 1 < N ? i + 1 : none);
    }
    /// A free slot holding `v`, or `none` if all N are in use.
    std::uint16_t put(T v) noexcept {
        std::uint16_t s = free_;
        if (s == none) return none;
        free_ = next_[s];
        slots_[s] = std::move(v);
        return s;
    }
    void replace(std::uint16_t s, T v) noexcept { slots_[s] = std::move(v); }
    /// Moves slot `s` into current() and frees it.
    void take(std::uint16_t s) noexcept {
        current_ = std::move(slots_[s]);
        release(s);
    }
    void release(std::uint16_t s) noexcept {
        next_[s] = free_;
        free_ = s;
    }
    /// Frees slot `s` whose event will never fire (cancelled by a spacing
    /// policy, past the stop tag or the end of time, dropped by a mode
    /// reset): its value is destroyed now, as LF frees a dropped event's
    /// token, not when the slot is next reused or the action destroyed (a
    /// value that owns a pool buffer or a lock would be held until then).
    void discard(std::uint16_t s) noexcept {
        slots_[s] = T{};
        release(s);
    }
    const T& current() const noexcept { return current_; }
    static constexpr std::size_t capacity() noexcept { return N; }

private:
    T slots_[N]{};
    std::uint16_t next_[N];
    std::uint16_t free_ = 0;
    T current_{};
};

template <std::size_t N>
class value_store<void, N> {
public:
    static constexpr std::uint16_t none = 0xffff;
    std::uint16_t put() noexcept { return 0; }
    void take(std::uint16_t) noexcept {}
    void release(std::uint16_t) noexcept {}
    void discard(std::uint16_t) noexcept {}
    static constexpr std::size_t capacity() noexcept { return N; }
};

}  // namespace weft::reactors::detail
