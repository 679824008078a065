// SPDX-License-Identifier: Apache-2.0
// The gateway's network (link.hpp) over real sockets on 127.0.0.1, with
// datagrams from outside the fleet arriving mid-transfer (CTest:
// example.phm_gateway.*). Before the fix each of them took a real
// measurement's place in the count, so a few strays made the run fail
// ("only N of M measurements arrived"), and each one widened the sender's
// flow-control window past what the receive buffer was sized for.
//
// The strays are sent on the fleet's thread right after one of its
// datagrams, so they are in the gateway's socket before the fleet's later
// datagrams: the counts below are exact.
#include "collator.hpp"
#include "link.hpp"
#include "options.hpp"

#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

namespace {

int failures = 0;

void check(bool ok, const char* test, const char* what) {
    if (!ok) {
        std::printf("FAIL %s: %s\n", test, what);
        ++failures;
    }
}

struct fleet {
    phm::params p;
    std::vector<std::int16_t> truth, values;
    std::vector<std::uint8_t> seen;
    phm::collator col;

    explicit fleet(phm::params q)
        : p(q), truth(q.sensors * q.measurements * q.features), values(truth.size()),
          seen(q.sensors * q.measurements), col(values.data(), seen.data(), q.sensors, q.measurements, q.features) {
        std::mt19937 rng(7);
        for (auto& v : truth) v = std::int16_t(rng());
    }
};

// Sends `strays` junk datagrams and `replays` copies of the fleet's
// datagram number `after`, from a socket of its own.
struct intruder {
    std::size_t after, strays, replays;
    int fd = ::socket(AF_INET, SOCK_DGRAM, 0);
    std::size_t seen = 0;

    ~intruder() { ::close(fd); }
    void operator()(const sockaddr_in& gateway, const unsigned char* data, std::size_t n) {
        if (seen++ != after) return;
        const auto* to = reinterpret_cast<const sockaddr*>(&gateway);
        for (std::size_t i = 0; i < strays; ++i) ::sendto(fd, "garbage", 7, 0, to, sizeof gateway);
        for (std::size_t i = 0; i < replays; ++i) ::sendto(fd, data, n, 0, to, sizeof gateway);
    }
};

phm::params small_fleet() {
    phm::params p;
    p.sensors = 4;
    p.measurements = 25;
    p.features = 64;
    return p;
}

// Strays (7 bytes: truncated) and replays of a real measurement (duplicates)
// are counted and dropped; every real measurement is still stored.
void stray_and_duplicate_datagrams_are_dropped_and_counted() {
    const char* t = "stray_and_duplicate_datagrams_are_dropped_and_counted";
    fleet f{small_fleet()};
    intruder in{0, 5, 5};  // the fleet's first datagram is a good measurement
    phm::link_report r = phm::transfer(f.p, f.truth.data(), f.col, in);
    const std::size_t good = f.p.sensors * f.p.measurements, total = phm::fleet_datagrams(f.p);
    check(r.complete && f.col.stored() == good, t, "every measurement stored");
    check(std::memcmp(f.values.data(), f.truth.data(), f.truth.size() * 2) == 0, t, "values as sent");
    check(r.sent == total, t, "the fleet sent all its datagrams");
    check(r.received == total + 10 && r.foreign == 10, t, "the 10 strays read and told apart");
    check(f.col.count(phm::outcome::duplicate) == 5, t, "5 duplicates");
    check(f.col.count(phm::outcome::truncated) == f.p.bad_per_kind + 5, t, "5 strays truncated");
    check(f.col.rejected() == 3 * f.p.bad_per_kind + 5, t, "the fleet's faults and the strays rejected");
    std::printf("%s: received %zu (%zu foreign), stored %zu, rejected %zu, duplicates %zu\n", t, r.received,
                r.foreign, f.col.stored(), f.col.rejected(), f.col.count(phm::outcome::duplicate));
}

// A flood of strays must not open the window: the fleet never has more
// datagrams on their way than the window the receive buffer was sized for.
void strays_do_not_widen_the_window() {
    const char* t = "strays_do_not_widen_the_window";
    fleet f{small_fleet()};
    intruder in{0, 200, 0};
    phm::link_report r = phm::transfer(f.p, f.truth.data(), f.col, in);
    check(r.complete, t, "every measurement stored");
    check(r.foreign == 200, t, "200 strays read");
    check(r.widest <= r.window, t, "no more datagrams on their way than the window");
    std::printf("%s: window %zu, widest %zu, foreign %zu\n", t, r.window, r.widest, r.foreign);
}

}  // namespace

int main() {
    stray_and_duplicate_datagrams_are_dropped_and_counted();
    strays_do_not_widen_the_window();
    std::printf("%s\n", failures ? "FAILED" : "passed");
    return failures ? 1 : 0;
}
