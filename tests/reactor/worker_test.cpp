// SPDX-License-Identifier: Apache-2.0
#include <weft/reactor/worker.hpp>

#include <weft/reactor.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>
#include "trace.hpp"

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
    EXPECT_EQ(ref[0], "0ms/0 collect " + std::to_string(
        [] { long long s = 0; for (int k = 1; k <= 8; ++k) s = s * 3 + (1 * k + 1); return s; }()));
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
