// SPDX-License-Identifier: Apache-2.0
// A firmware that allocates an over-aligned array with new(std::nothrow):
// the post-link check must trace the aligned nothrow operator new[] this
// file references, not the aligned operator new that libstdc++ implements
// it with (built only on request, as heap.cpp).
#include <new>

struct alignas(32) block {
    char bytes[64];
};

int main() {
    block* volatile p = new (std::nothrow) block[2];
    return p ? 0 : 1;
}
