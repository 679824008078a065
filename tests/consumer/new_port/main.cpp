// SPDX-License-Identifier: Apache-2.0
// The core against tests/consumer/new_port's port (see its platform.hpp).
#include <weft/core.hpp>

weft::task<int> answer() { co_return 42; }

int main() {
    weft::executor ex;
    return ex.spawn(answer()) ? 0 : 1;
}
