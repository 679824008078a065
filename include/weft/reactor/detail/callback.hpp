// SPDX-License-Identifier: Apache-2.0
#pragma once
// A reaction body without std::function: the callable (normally a lambda
// that captures `this`) is stored inline, so declaring a reaction never
// allocates. Capacity is two pointers; a bigger capture fails to compile
// with a message that says what to do.
#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace weft::reactors::detail {

class callback {
public:
    static constexpr std::size_t capacity = 2 * sizeof(void*);

    callback() noexcept = default;
    template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, callback>>>
    callback(F&& f) noexcept {  // NOLINT: implicit on purpose (lambdas in declarations)
        using fn = std::decay_t<F>;
        static_assert(sizeof(fn) <= capacity,
                      "weft reaction body captures too much: capture `this` only "
                      "(reach state through the reactor)");
        static_assert(std::is_trivially_copyable_v<fn> && std::is_trivially_destructible_v<fn>,
                      "weft reaction body must be trivially copyable (capture `this` or references)");
        ::new (static_cast<void*>(buf_)) fn(std::forward<F>(f));
        call_ = [](void* p) noexcept { (*static_cast<fn*>(p))(); };
    }

    explicit operator bool() const noexcept { return call_ != nullptr; }
    // always_inline: GCC 12 -Os calls this two-instruction function.
    [[gnu::always_inline]] void operator()() noexcept { call_(buf_); }

private:
    alignas(void*) unsigned char buf_[capacity] = {};
    void (*call_)(void*) noexcept = nullptr;
};

}  // namespace weft::reactors::detail
