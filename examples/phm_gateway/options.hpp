// SPDX-License-Identifier: Apache-2.0
#pragma once
// PHM gateway: the command line. Every number is checked whole and against
// its range, so a typo ("--runs 0", "--sensors 2O", "--runs -1") is refused
// with a message instead of running a configuration nobody asked for
// (zero runs printed a NaN saving and "results identical: yes" with
// nothing compared).
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace phm {

struct params {
    std::size_t sensors = 20, measurements = 50, features = 512;
    int runs = 9;
    unsigned seed = 5489;  // MT19937's default seed
    std::size_t bad_per_kind = 3;
    bool verbose = true;
    bool sweep = false, quick = false;
};

inline constexpr const char* usage =
    "usage: phm_gateway [--sensors 2..1000] [--measurements 1..100000] [--features 1..8192] [--runs 1..1000]"
    " [--seed N] [--sweep [--quick]]";

/// Reads argv[1..argc) into p. Returns nullptr, or what is wrong (a static
/// string: the usage line, or the option and its range).
inline const char* parse(int argc, const char* const* argv, params& p) noexcept {
    // Decimal digits only, all of the text, at most `hi`: strtoul alone
    // takes "-1" as ULONG_MAX and "12x" as 12.
    auto number = [](const char* s, unsigned long long lo, unsigned long long hi, unsigned long long& v) {
        if (s == nullptr || *s < '0' || *s > '9') return false;
        char* end = nullptr;
        errno = 0;
        v = std::strtoull(s, &end, 10);
        return errno == 0 && *end == '\0' && v >= lo && v <= hi;
    };
    bool sized = false;  // --sensors, --measurements or --features given
    for (int i = 1; i < argc; ++i) {
        const char* a = argv[i];
        const char* arg = i + 1 < argc ? argv[i + 1] : nullptr;
        unsigned long long v = 0;
        if (!std::strcmp(a, "--sweep")) { p.sweep = true; continue; }
        if (!std::strcmp(a, "--quick")) { p.quick = true; continue; }
        if (!std::strcmp(a, "--sensors")) {
            if (!number(arg, 2, 1000, v)) return "phm_gateway: --sensors takes 2..1000 (one lane per sensor)";
            p.sensors = std::size_t(v);
            sized = true;
        } else if (!std::strcmp(a, "--measurements")) {
            if (!number(arg, 1, 100000, v)) return "phm_gateway: --measurements takes 1..100000";
            p.measurements = std::size_t(v);
            sized = true;
        } else if (!std::strcmp(a, "--features")) {
            if (!number(arg, 1, 8192, v)) return "phm_gateway: --features takes 1..8192";
            p.features = std::size_t(v);
            sized = true;
        } else if (!std::strcmp(a, "--runs")) {
            if (!number(arg, 1, 1000, v)) return "phm_gateway: --runs takes 1..1000";
            p.runs = int(v);
        } else if (!std::strcmp(a, "--seed")) {
            if (!number(arg, 0, UINT32_MAX, v)) return "phm_gateway: --seed takes 0..4294967295";
            p.seed = unsigned(v);
        } else {
            return usage;
        }
        ++i;
    }
    // The sweep runs its own sizes and --quick only shortens the sweep:
    // either ignored would run a configuration nobody asked for.
    if (p.sweep && sized) return "phm_gateway: --sweep chooses sensors, measurements and features itself";
    if (p.quick && !p.sweep) return "phm_gateway: --quick only goes with --sweep";
    // The fleet is allocated at start-up: a product the machine cannot
    // hold would abort in the allocator instead of saying why.
    if (p.sensors * p.measurements * p.features > (std::size_t(1) << 28))
        return "phm_gateway: sensors x measurements x features at most 2^28 values";
    return nullptr;
}

}  // namespace phm
