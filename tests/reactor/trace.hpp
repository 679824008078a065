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
        char buf[160];
        const bool ms = t.time % 1'000'000 == 0;
        int n = std::snprintf(buf, sizeof buf, "%lld%s/%u %s", (long long)(t.time / (ms ? 1'000'000 : 1'000)),
                              ms ? "ms" : "us", t.microstep, what);
        // Formatted here, not appended as " " + std::to_string(): GCC 12 at
        // -O3 (the release preset) warns falsely (-Wrestrict) on that.
        if (with_value && n > 0 && std::size_t(n) < sizeof buf)
            std::snprintf(buf + n, sizeof buf - std::size_t(n), " %lld", value);
        lines.emplace_back(buf);
    }
    void add(const weft::reactors::reactor& r, const char* what) { line(r, what, 0, false); }
    void add(const weft::reactors::reactor& r, const char* what, long long value) { line(r, what, value, true); }
};

}  // namespace weft::test
