// SPDX-License-Identifier: Apache-2.0
// The reactor suite (shared/BENCH.md): tag_advance, reaction_switch and
// Savina PingPong, Counting, ThreadRing, Throughput, Chameneos and Big as
// weft reactor programs, with the same workloads on weft channels and on
// std::thread measured in the same run. JSON lines on stdout, progress on
// stderr.
//
//   bench_reactor [--quick] [WORKLOAD...]
#include "harness.hpp"
#include "workloads.hpp"
#include "reactor_programs.hpp"
#include "channel_programs.hpp"
#include "thread_programs.hpp"

#include <cstring>
#include <string>
#include <vector>

namespace rx = bench::rx;

int main(int argc, char** argv) {
    bool quick = false;
    std::vector<std::string> only;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--quick")) quick = true;
        else only.emplace_back(argv[i]);
    }
    auto wants = [&](const char* w) {
        if (only.empty()) return true;
        for (auto& o : only) if (o == w) return true;
        return false;
    };
    const rx::sizes z = quick ? rx::quick : rx::full;
    const int runs = quick ? 3 : 11;
    std::fprintf(stderr, "reactor suite (%s, %d runs each)\n", quick ? "quick" : "full", runs);

    if (wants("tag_advance")) {
        rx::measure("tag_advance", "weft", runs, z.tags, rx::expect_tags(z), [&] { return rx::reactors::tag_advance(z.tags); });
        rx::measure("tag_advance", "weft_channels", runs, z.tags, rx::expect_tags(z), [&] { return rx::channels::tag_advance(z.tags); });
    }
    if (wants("reaction_switch")) {
        long ops = z.chain_tags * rx::chain_len;
        rx::measure("reaction_switch", "weft", runs, ops, rx::expect_chain(z), [&] { return rx::reactors::reaction_switch(z.chain_tags); });
        rx::measure("reaction_switch", "weft_channels", runs, ops, rx::expect_chain(z), [&] { return rx::channels::reaction_switch(z.chain_tags); });
    }
    if (wants("pingpong")) {
        rx::measure("pingpong", "weft", runs, z.pingpong, rx::expect_pingpong(z), [&] { return rx::reactors::pingpong(z.pingpong); });
        rx::measure("pingpong", "weft_channels", runs, z.pingpong, rx::expect_pingpong(z), [&] { return rx::channels::pingpong(z.pingpong); });
        rx::measure("pingpong", "std_thread", runs, z.pingpong, rx::expect_pingpong(z), [&] { return rx::threads::pingpong(z.pingpong); });
    }
    if (wants("counting")) {
        rx::measure("counting", "weft", runs, z.counting, rx::expect_counting(z), [&] { return rx::reactors::counting(z.counting); });
        rx::measure("counting", "weft_channels", runs, z.counting, rx::expect_counting(z), [&] { return rx::channels::counting(z.counting); });
        rx::measure("counting", "std_thread", runs, z.counting, rx::expect_counting(z), [&] { return rx::threads::counting(z.counting); });
    }
    if (wants("thread_ring")) {
        rx::measure("thread_ring", "weft", runs, z.ring_hops, rx::expect_ring(z), [&] { return rx::reactors::thread_ring(z.ring_hops); });
        rx::measure("thread_ring", "weft_channels", runs, z.ring_hops, rx::expect_ring(z), [&] { return rx::channels::thread_ring(z.ring_hops); });
        rx::measure("thread_ring", "std_thread", runs, z.ring_hops, rx::expect_ring(z), [&] { return rx::threads::thread_ring(z.ring_hops); });
    }
    if (wants("throughput")) {
        long ops = z.throughput_per * rx::consumers;
        std::uint64_t expect = rx::expect_throughput(z);
        rx::measure("throughput", "weft", runs, ops, expect, [&] { return rx::reactors::throughput(z.throughput_per, 1); }, ",\"workers\":1");
        rx::measure("throughput", "weft", runs, ops, expect, [&] { return rx::reactors::throughput(z.throughput_per, 2); }, ",\"workers\":2");
        rx::measure("throughput", "weft_channels", runs, ops, expect, [&] { return rx::channels::throughput(z.throughput_per); });
        rx::measure("throughput", "std_thread", runs, ops, expect, [&] { return rx::threads::throughput(z.throughput_per); });
    }
    if (wants("chameneos")) {
        rx::measure("chameneos", "weft", runs, z.meetings, rx::expect_chameneos(z), [&] { return rx::reactors::chameneos(z.meetings); });
        rx::measure("chameneos", "weft_channels", runs, z.meetings, rx::expect_chameneos(z), [&] { return rx::channels::chameneos(z.meetings); });
        rx::measure("chameneos", "std_thread", runs, z.meetings, rx::expect_chameneos(z), [&] { return rx::threads::chameneos(z.meetings); });
    }
    if (wants("big")) {
        long ops = z.big_pings * rx::big_workers;
        rx::measure("big", "weft", runs, ops, rx::expect_big(z), [&] { return rx::reactors::big(z.big_pings); });
        rx::measure("big", "weft_channels", runs, ops, rx::expect_big(z), [&] { return rx::channels::big(z.big_pings); });
        rx::measure("big", "std_thread", runs, ops, rx::expect_big(z), [&] { return rx::threads::big(z.big_pings); });
    }
    return rx::failed ? 1 : 0;
}
