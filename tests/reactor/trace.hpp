// SPDX-License-Identifier: Apache-2.0
#pragma once
// Test helper: a trace of (tag, reaction, value) lines, compared exactly.
#include <weft/reactor.hpp>

#include <cstdio>
#include <string>
#include <vector>

namespace weft::test {

struct trace {
    std::vector<std::string> lines;
    /// "10ms/0 name value": time in ms if whole, else in us.
    void line(const weft::reactors::reactor& r, const char* what, long long value, bool with_value) {
        auto t = r.current_tag();
        char buf[128];
        if (t.time % 1'000'000 == 0)
            std::snprintf(buf, sizeof buf, "%lldms/%u %s", (long long)(t.time / 1'000'000), t.microstep, what);
        else
            std::snprintf(buf, sizeof buf, "%lldus/%u %s", (long long)(t.time / 1'000), t.microstep, what);
        std::string s = buf;
        if (with_value) s += " " + std::to_string(value);
        lines.push_back(s);
    }
    void add(const weft::reactors::reactor& r, const char* what) { line(r, what, 0, false); }
    void add(const weft::reactors::reactor& r, const char* what, long long value) { line(r, what, value, true); }
};

}  // namespace weft::test
