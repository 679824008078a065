// SPDX-License-Identifier: Apache-2.0
#pragma once
// Moving a value that its sender has just built (the value in a send
// event) into a channel's ring or a waiting receiver's slot.
//
// With GCC 12 a `co_await send(ch, msg{...})` builds the message in the
// coroutine frame field by field (4- and 8-byte stores), and the channel
// then copies the whole object with one 16-byte load a few instructions
// later. A load that spans several pending stores cannot be forwarded from
// the store buffer on x86: it waits until they reach the cache (~13
// cycles), which is most of the cost of a buffered send (perf annotate of
// Savina Throughput's producer: 77 % of its samples on that load). Clang's
// x86 back end splits such copies itself (X86AvoidStoreForwardingBlocks);
// GCC 12 has no equivalent pass. So small trivially copyable values move
// in 4-byte words, each as wide as or narrower than the store that wrote
// it, and the empty asm keeps GCC's SLP vectoriser from merging the words
// back into one wide copy. Where code size matters more than a few
// instructions (port::small_code: microcontrollers, which have no such
// stall) the value moves as one object.
#include <weft/port/port.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

namespace weft::csp::detail {

/// Constructs a T at `to` from the sender's `from` (moved from).
template <class T>
[[gnu::always_inline]] inline void move_fresh(void* to, T& from) noexcept {
    if constexpr (!port::small_code && std::is_trivially_copyable_v<T> && sizeof(T) % 4 == 0 &&
                  sizeof(T) <= 32) {
        auto* dst = static_cast<unsigned char*>(to);
        const auto* src = reinterpret_cast<const unsigned char*>(&from);
        for (std::size_t i = 0; i < sizeof(T); i += 4) {
            std::uint32_t w;
            std::memcpy(&w, src + i, 4);
            asm("" : "+r"(w));
            std::memcpy(dst + i, &w, 4);  // memcpy starts the T's lifetime (implicit-lifetime type)
        }
    } else {
        ::new (to) T(std::move(from));
    }
}

}  // namespace weft::csp::detail
