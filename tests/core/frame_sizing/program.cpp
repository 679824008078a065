// SPDX-License-Identifier: Apache-2.0
// The frame-sizing workflow, end to end (tests/core/frame_sizing):
//   1. built without WEFT_SIZING_HEADER: generous pool, prints the report;
//   2. tools/frame_report_to_header turns the report into a header;
//   3. built with that header: the pool is exactly as large as needed, the
//      run succeeds; built with WEFT_SIZING_SLOT_DELTA=-1 (one slot fewer)
//      it fails with the pool-exhaustion error naming the pool.
#include <weft/core.hpp>

#include <cstdio>

#ifdef WEFT_SIZING_HEADER
#include WEFT_SIZING_HEADER
#ifndef WEFT_SIZING_SLOT_DELTA
#define WEFT_SIZING_SLOT_DELTA 0
#endif
constexpr std::size_t slot_bytes = frame_sizes::app_slot_bytes;
constexpr std::size_t slots = frame_sizes::app_slots + WEFT_SIZING_SLOT_DELTA;
#else
constexpr std::size_t slot_bytes = 1024;  // generous: the measuring run
constexpr std::size_t slots = 32;
#endif

namespace {

weft::frame_pool<slot_bytes, slots> app{"app"};
int finished = 0;
weft::error first_error{};

weft::task<int> leaf(int x) {
    co_await weft::yield();  // keeps this frame alive while the others start
    co_return x * 2;
}

weft::task<> worker(int x) {
    auto v = co_await leaf(x);
    if (!v) {
        if (!first_error) first_error = v.err();
        co_return;
    }
    if (*v == 2 * x) ++finished;
}

}  // namespace

int main() {
    weft::executor ex{weft::executor_config{"sizing", weft::clock_mode::virtual_}};
    // Peak: three workers, each awaiting a leaf at the same time: 6 frames.
    for (int i = 1; i <= 3; ++i) {
        auto h = ex.spawn(worker(i));
        if (!h) {
            std::printf("spawn failed: %s\n", h.err().message().c_str());
            return 1;
        }
        h->detach();
    }
    (void)ex.run();
    weft::print_frame_report();
    if (first_error) {
        std::printf("failed: %s\n", first_error.message().c_str());
        return 1;
    }
    std::printf("finished %d of 3 workers\n", finished);
    return finished == 3 ? 0 : 1;
}
