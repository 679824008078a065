// SPDX-License-Identifier: Apache-2.0
#include <weft/reactor/worker.hpp>

#include <weft/reactor.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>
#include "trace.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <thread>

using namespace weft;
using namespace weft::reactors;

namespace {

// A wide level whose reactions trigger the next level: each stage's
// output triggers its own sink, and the sinks trigger one collector. The
// ready-set cursor must come back for the ranks a (shared) level marks;
// before the fix, a level marked behind the cursor ran one tag late.
struct stage : reactor {
    stage(place p, int k) : reactor(p, "stage"), k_(k) {}
    int k_;
    input<int> in{*this, "in"};
    output<int> out{*this, "out"};
    reaction r{*this, "r", on(in), writes(out), [this] { out.set(in.get() * k_); }};
};
struct sink : reactor {
    sink(place p) : reactor(p, "sink") {}  // NOLINT: implicit for the array initialiser
    input<int> in{*this, "in"};
    output<int> out{*this, "out"};
    reaction r{*this, "r", on(in), writes(out), [this] { out.set(in.get() + 1); }};
};
struct fan : reactor {
    fan(basic_environment& e, test::trace& tr) : reactor(e, "fan"), tr_(tr),
        stages{{*this, 1}, {*this, 2}, {*this, 3}, {*this, 4}, {*this, 5}, {*this, 6}, {*this, 7}, {*this, 8}},
        sinks{{*this}, {*this}, {*this}, {*this}, {*this}, {*this}, {*this}, {*this}} {
        for (int i = 0; i < 8; ++i) {
            connect(src, stages[i].in);
            connect(stages[i].out, sinks[i].in);
        }
    }
    test::trace& tr_;
    int n_ = 0;
    timer t{*this, "t", 0ms, 1ms};
    output<int> src{*this, "src"};
    reaction emit{*this, "emit", on(t), writes(src), [this] { src.set(++n_); }};
    stage stages[8];
    sink sinks[8];
    basic_reaction<8> collect{*this, "collect",
        on(sinks[0].out, sinks[1].out, sinks[2].out, sinks[3].out, sinks[4].out, sinks[5].out, sinks[6].out,
           sinks[7].out),
        [this] {
            long long s = 0;
            for (auto& k : sinks) s = s * 3 + (k.out.is_present() ? k.out.get() : -1000);
            tr_.add(*this, "collect", s);
        }};
};

std::vector<std::string> run_fan(int workers) {
    environment<4, 32> env{{.fast = true, .timeout = 50ms, .parallel_threshold = 4}};
    test::trace tr;
    fan f{env, tr};
    worker helper{"helper"};
    std::thread t;
    if (workers > 1) {
        env.add_worker(helper);
        t = std::thread([&] { helper.run(); });
    }
    executor ex{test::virtual_clock()};
    EXPECT_TRUE(env.run(ex));
    if (workers > 1) {
        t.join();
        EXPECT_GT(env.stats().parallel_levels, 0u);
    }
    EXPECT_EQ(env.stats().reactions, 51u * 18u);
    return tr.lines;
}

TEST(worker, levels_marked_by_a_shared_level_run_in_the_same_tag) {
    auto ref = run_fan(1);
    ASSERT_EQ(ref.size(), 51u);
    // append(), not "..." + string: GCC 12 at -O3 warns falsely on the
    // latter (a memcpy bound it cannot prove), and warnings are errors.
    EXPECT_EQ(ref[0], std::string("0ms/0 collect ").append(std::to_string(
        [] { long long s = 0; for (int k = 1; k <= 8; ++k) s = s * 3 + (1 * k + 1); return s; }())));
    for (int i = 0; i < 10; ++i) EXPECT_EQ(run_fan(2), ref);
}

// The back-off never changes results: a threshold of 1 shares every
// level, however small, and the scheduler backs off as it likes.
TEST(worker, tiny_levels_shared_or_not_give_the_same_trace) {
    auto ref = run_fan(1);
    for (int i = 0; i < 10; ++i) {
        environment<4, 32> env{{.fast = true, .timeout = 50ms, .parallel_threshold = 1}};
        test::trace tr;
        fan f{env, tr};
        worker helper{"helper"};
        env.add_worker(helper);
        std::thread t([&] { helper.run(); });
        executor ex{test::virtual_clock()};
        EXPECT_TRUE(env.run(ex));
        t.join();
        EXPECT_EQ(tr.lines, ref);
        EXPECT_LE(env.stats().parallel_losses, env.stats().parallel_levels);
    }
}

}  // namespace

// The documented usage (worker.hpp): a thread runs helper.run(), then
// env.run(ex), then join. helper.run() returned only when the program
// finished, so a program that failed to start, or an executor that
// returned first, left join() waiting forever (review, 2026-11-26).
namespace {

// Watchdog only, against a hang: the helper has nothing left to wait for.
bool returns_in_time(std::future<void>& helper) {
    if (helper.wait_for(std::chrono::seconds(20)) == std::future_status::ready) return true;
    std::fprintf(stderr, "worker::run() did not return\n");
    std::fflush(stderr);
    std::_Exit(1);  // a thread that never returns cannot be joined
}

// Triggered by the output it writes: rejected at assembly.
struct self_triggered : reactor {
    using reactor::reactor;
    timer t{*this, "t", 0ms, 1ms};
    output<int> out{*this, "out"};
    reaction r{*this, "r", on(t, out), writes(out), [this] { out.set(1); }};
};

// Reads what it writes: legal, and runs once per tag with any workers.
struct self_reader : reactor {
    self_reader(place p) : reactor(p, "reader") {}  // NOLINT: implicit for the array initialiser
    int runs_ = 0;
    timer t{*this, "t", 0ms, 1ms};
    output<int> out{*this, "out"};
    reaction r{*this, "r", on(t), reads(out), writes(out), [this] { out.set(++runs_); }};
};
struct readers : reactor {
    explicit readers(basic_environment& e) : reactor(e, "readers"), r{{*this}, {*this}, {*this}, {*this}} {}
    self_reader r[4];
};

struct idle_app : reactor {
    using reactor::reactor;
    reaction r{*this, "r", on(startup()), [] {}};
};

}  // namespace

TEST(worker, returns_when_the_program_fails_to_assemble) {
    environment<8, 8> env{{.name = "self", .fast = true, .timeout = 2ms, .parallel_threshold = 1}};
    self_triggered app{env, "app"};
    worker helper{"helper"};
    env.add_worker(helper);
    auto done = std::async(std::launch::async, [&] { helper.run(); });
    executor ex{test::virtual_clock()};
    status s = env.run(ex);
    EXPECT_TRUE(test::failed_with(s, errc::cycle, "environment 'self': causality cycle: app.r -> app.r"));
    EXPECT_TRUE(returns_in_time(done));
}

TEST(worker, returns_when_the_executor_returns_before_the_program_ends) {
    // keepalive with nothing that could ever wake it: the virtual clock
    // stalls and ex.run() returns with the program still waiting.
    environment<8, 8> env{{.name = "idle", .keepalive = true}};
    idle_app app{env, "app"};
    worker helper{"helper"};
    env.add_worker(helper);
    auto done = std::async(std::launch::async, [&] { helper.run(); });
    executor ex{test::virtual_clock()};
    status s = env.run(ex);
    EXPECT_TRUE(test::failed_with(s, errc::invalid,
                                  "environment 'idle': executor stalled first (keepalive without event sources?)"));
    EXPECT_FALSE(env.finished());
    EXPECT_TRUE(returns_in_time(done));
}

TEST(worker, a_reaction_reading_its_own_output_runs_once_per_tag_with_workers) {
    for (int workers : {1, 2}) {
        environment<8, 8> env{{.fast = true, .timeout = 9ms, .parallel_threshold = 1}};
        readers app{env};
        worker helper{"helper"};
        std::thread t;
        if (workers > 1) {
            env.add_worker(helper);
            t = std::thread([&] { helper.run(); });
        }
        executor ex{test::virtual_clock()};
        EXPECT_TRUE(env.run(ex));
        if (workers > 1) t.join();
        for (auto& r : app.r) EXPECT_EQ(r.runs_, 10) << workers << " workers";
        EXPECT_EQ(env.stats().reactions, 40u);
    }
}
