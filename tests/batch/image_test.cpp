// SPDX-License-Identifier: Apache-2.0
#include <weft/batch/kernels/image.hpp>
#include <weft/batch/numeric.hpp>

#include <gtest/gtest.h>

TEST(image_batch, plane_and_step_bytes) {
    weft::batch::image_batch<weft::batch::f32> b{nullptr, nullptr, 4, 3, 10, 20, 2};
    EXPECT_EQ(b.plane(), 200u);
    EXPECT_EQ(b.step_bytes(), 2u * 2 * 20 * 4);
}
