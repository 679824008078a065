// SPDX-License-Identifier: Apache-2.0
// The core compiled with -ffreestanding: what a board build sees.
#include <weft/core.hpp>

weft::frame_pool<512, 2> frames{"consumer"};

weft::task<int> answer() { co_return 42; }
weft::task<> main_task(int& out) { out = *co_await answer(); }

// Clang treats main as an ordinary (mangled) function under
// -ffreestanding, so the hosted entry point lives in freestanding_main.cpp.
int run_freestanding_core() {
    weft::executor ex{{"consumer", weft::clock_mode::virtual_}};
    int out = 0;
    auto h = ex.spawn(main_task(out));
    if (!h) return 2;
    ex.run();
    return out == 42 ? 0 : 1;
}
