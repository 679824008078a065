// SPDX-License-Identifier: Apache-2.0
// Instruction counts of reactors on the board (bench/run target-reactor).
// Method as in core_bench.cpp (`-icount shift=0`: a now_ns() difference is
// an instruction count). Programs run in LF fast mode on a virtual-clock
// executor, so no WFI is counted, only the scheduler's own work. Each
// workload is timed at two sizes with the same set-up and the difference
// divided by the extra operations. One JSON line per workload.
#include <weft/core.hpp>
#include <weft/reactor.hpp>

#include <cstdio>

#include "instr_report.hpp"

using namespace weft;
using namespace weft::reactors;
using namespace std::chrono_literals;

namespace {

frame_pool<512, 2> frames{"bench"};

// tag_advance: one timer (period 1 µs) and one reaction (LF TimeLimit);
// an op is one tag: pop the timer event, re-arm it, mark and run the
// reaction, check termination.
struct time_limit : reactor {
    using reactor::reactor;
    timer t{*this, "t", 0ms, 1us};
    std::uint32_t n_ = 0;
    reaction r{*this, "r", on(t), [this] { ++n_; }};
};
std::uint64_t tag_run(int tags) {
    environment<4, 4> env{{.name = "tl", .fast = true, .timeout = duration{std::int64_t(tags) * 1000}}};
    time_limit app{env, "tl"};
    executor ex{{"bench", clock_mode::virtual_}};
    std::uint64_t t0 = port::now_ns();
    status s = env.run(ex);
    std::uint64_t t = port::now_ns() - t0;
    if (!s || app.n_ != std::uint32_t(tags) + 1) port::fatal("reactor_bench: tag_advance failed");
    return t;
}

// reaction_switch: a timer triggers a head reaction that starts a chain of
// relays (input -> reaction -> output -> next input) inside one tag; an op
// is one more reaction in the chain: mark it through the port, pop it from
// the ready set, run its body.
struct relay : reactor {
    relay() : reactor(*parent, "relay") {}
    static inline basic_environment* parent = nullptr;
    input<int> in{*this, "in"};
    output<int> out{*this, "out"};
    reaction r{*this, "r", on(in), writes(out), [this] { out.set(in.get() + 1); }};
};
struct chain_head : reactor {
    using reactor::reactor;
    timer t{*this, "t", 0ms, 1us};
    output<int> out{*this, "out"};
    reaction r{*this, "r", on(t), writes(out), [this] { out.set(0); }};
};
constexpr int chain_len = 32;
constexpr int chain_tags = 500;
template <int Len>
std::uint64_t chain_run(int tags) {
    environment<4, Len + 2> env{{.name = "chain", .fast = true, .timeout = duration{(tags - 1) * 1000}}};
    relay::parent = &env;
    chain_head head{env, "head"};
    relay relays[Len];
    connect(head.out, relays[0].in);
    for (int i = 1; i < Len; ++i) connect(relays[i - 1].out, relays[i].in);
    executor ex{{"bench", clock_mode::virtual_}};
    std::uint64_t t0 = port::now_ns();
    status s = env.run(ex);
    std::uint64_t t = port::now_ns() - t0;
    if (!s || relays[Len - 1].out.get() != Len) port::fatal("reactor_bench: reaction_switch failed");
    return t;
}

// One run per workload (its own two sizes give the difference).
void print(const char* workload, std::int64_t hundredths, std::uint32_t ops, const char* extra) {
    bench_target::print("target-reactor", workload, hundredths, hundredths, hundredths, 1, ops, extra);
}

}  // namespace

int main() {
    // Deterministic under -icount: one run per size is exact.
    const int tags = 20000;
    std::int64_t full = std::int64_t(tag_run(2 * tags)), half = std::int64_t(tag_run(tags));
    print("tag_advance", (full - half) * 100 / tags, tags, ",\"allocations\":0");
    // A double difference: each chain at 2 x chain_tags and at chain_tags
    // tags cancels its own assembly and start (which grows with the chain),
    // and the one-relay chain's difference leaves chain_len reactions a tag.
    auto per_tags = [](std::uint64_t (*run)(int)) {
        return std::int64_t(run(2 * chain_tags)) - std::int64_t(run(chain_tags));
    };
    const std::int64_t extra = per_tags(&chain_run<chain_len + 1>) - per_tags(&chain_run<1>);
    print("reaction_switch", extra * 100 / (chain_tags * chain_len), chain_tags * chain_len,
          ",\"allocations\":0,\"chain\":32");
    return 0;
}
