// SPDX-License-Identifier: Apache-2.0
// The umbrella header compiles alone and exposes the whole layer.
#include <weft/batch/batch.hpp>

#include <gtest/gtest.h>

TEST(batch, umbrella_header_exposes_the_layer) {
    weft::batch::interleaver<4> r;
    EXPECT_EQ(r.max_lanes, 4u);
    EXPECT_STREQ(weft::batch::i16::name, "i16");
    EXPECT_STREQ(weft::batch::interleaved::name, "interleaved");
}
