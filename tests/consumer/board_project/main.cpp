// SPDX-License-Identifier: Apache-2.0
#include <weft/core.hpp>
#include <weft/port/print.hpp>

weft::frame_pool<256, 2> frames{"product"};

// A product's warnings are its own business: weft's -Wall -Wextra -Werror
// is not imposed on it, so this unused parameter warns (-Wextra) and must
// not fail the build.
static int twice(int v, int unused_on_purpose) { return 2 * v; }

int result_seen = 0;
weft::task<> answer() {
    result_seen = twice(21, 0);
    co_return;
}

int main() {
    weft::executor ex{weft::executor_config{"product", weft::clock_mode::virtual_}};
    auto h = ex.spawn(answer());
    if (!h) return 1;
    (void)ex.run();
    weft::port::print("product ran: %d\n", result_seen);  // the port's vsnprintf, no stdio
    return 0;
}
