// EXPECT: a frame_pool needs at least one slot
// SPDX-License-Identifier: Apache-2.0
#include <weft/core/frame_pool.hpp>

weft::frame_pool<128, 0> pool{"empty"};
int main() {}
