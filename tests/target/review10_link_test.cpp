// SPDX-License-Identifier: Apache-2.0
// Tenth review of the Cortex-M port: ordinary C++ that allocates nothing
// must pass the post-link no-heap check (cmake/check_no_heap.cmake). An
// interface with a virtual destructor is such C++: its deleting
// destructor sits in the vtable and references the global operator
// delete, which libstdc++ implements with free(). Before the port defined
// its own operator delete, this firmware was refused at build time
// ("links forbidden runtime symbols: free"), though it never allocates.
#include "target_test.hpp"

#include <cstddef>
#include <new>

namespace {

struct sensor {
    virtual ~sensor() = default;
    virtual int read() noexcept = 0;
};
struct fixed final : sensor {
    explicit fixed(int v) noexcept : v_(v) {}
    int read() noexcept override { return v_; }
    int v_;
};

// Over-aligned: its deleting destructor calls the aligned operator delete.
struct alignas(32) wide final : sensor {
    int read() noexcept override { return 32; }
};

fixed s7{7};
wide w32;
// volatile: the calls stay virtual (no devirtualisation), so the vtables
// and their deleting destructors are linked.
sensor* volatile current = &s7;
sensor* volatile aligned = &w32;

}  // namespace

WEFT_TARGET_TEST(link, virtual_destructor_links_without_the_heap) {
    WEFT_CHECK_EQ(current->read(), 7);
    WEFT_CHECK_EQ(aligned->read(), 32);
    // A destructor called in place (the object is static: no delete).
    alignas(fixed) unsigned char buf[sizeof(fixed)];
    sensor* p = new (buf) fixed{3};
    sensor* volatile q = p;
    WEFT_CHECK_EQ(q->read(), 3);
    q->~sensor();
}

WEFT_TARGET_TEST(link, delete_of_a_null_pointer_does_nothing) {
    sensor* volatile p = nullptr;
    delete p;  // a null delete-expression is a no-op, heap or not
    WEFT_CHECK(true);
}
