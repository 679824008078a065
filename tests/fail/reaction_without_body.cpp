// EXPECT: exactly one body
// SPDX-License-Identifier: Apache-2.0
#include <weft/reactor.hpp>

using namespace weft::reactors;
using namespace std::chrono_literals;

struct forgetful : reactor {
    using reactor::reactor;
    timer tick{*this, "tick", 0ms, 1ms};
    reaction r{*this, "r", on(tick)};  // no body: caught by the compiler
};
int main() {}
