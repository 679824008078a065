// SPDX-License-Identifier: Apache-2.0
#include <weft/core.hpp>

weft::frame_pool<512, 4> frames{"app"};

weft::task<> blink(int& toggles) {
    for (int i = 0; i < 4; ++i) {
        co_await weft::sleep_for(std::chrono::milliseconds(500));
        ++toggles;
    }
}

int main() {
    weft::executor ex{{"app", weft::clock_mode::virtual_}};
    int toggles = 0;
    auto h = ex.spawn(blink(toggles));
    if (!h) return 2;
    ex.run();
    return toggles == 4 ? 0 : 1;
}
