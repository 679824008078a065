// SPDX-License-Identifier: Apache-2.0
// main() of every target test firmware: runs the registered tests.
#include "target_test.hpp"

int main() {
    weft::target_test::say("weft target tests on ", weft::port::target_name(), "\n");
    return weft::target_test::run_all();
}
