// SPDX-License-Identifier: Apache-2.0
// The global operator delete for a board without a heap. A class with a
// virtual destructor has a deleting destructor in its vtable, which calls
// operator delete even if no object of it is ever allocated; libstdc++'s
// calls free(), which links newlib's malloc, and the post-link check
// (cmake/check_no_heap.cmake) then refused the firmware although nothing
// allocates. Since `new` is refused by that check, no pointer can reach
// delete legitimately: a null one is ignored (as C++ requires), any other
// is a programming error. Weak, so a product with its own global
// allocation functions keeps them. In its own file for the reason given
// in abort.cpp; unused, the linker drops it.
#include <weft/port/port.hpp>

#include <cstddef>
#include <new>

namespace {
[[noreturn, gnu::noinline]] void deleted_without_heap() noexcept {
    weft::port::fatal("weft: operator delete called, but the board has no heap (the pointer is not from new)");
}
}  // namespace

[[gnu::weak]] void operator delete(void* p) noexcept {
    if (p) deleted_without_heap();
}
[[gnu::weak]] void operator delete[](void* p) noexcept {
    if (p) deleted_without_heap();
}
[[gnu::weak]] void operator delete(void* p, std::size_t) noexcept {
    if (p) deleted_without_heap();
}
[[gnu::weak]] void operator delete[](void* p, std::size_t) noexcept {
    if (p) deleted_without_heap();
}
// Over-aligned classes (alignas > 8) call these instead.
[[gnu::weak]] void operator delete(void* p, std::align_val_t) noexcept {
    if (p) deleted_without_heap();
}
[[gnu::weak]] void operator delete[](void* p, std::align_val_t) noexcept {
    if (p) deleted_without_heap();
}
[[gnu::weak]] void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
    if (p) deleted_without_heap();
}
[[gnu::weak]] void operator delete[](void* p, std::size_t, std::align_val_t) noexcept {
    if (p) deleted_without_heap();
}
