// SPDX-License-Identifier: Apache-2.0
// The frame allocator against a model of its documented choice (docs/core.md,
// "Memory"): the smallest pool whose slots fit and that has one free, or the
// pool of the innermost use_frames scope; the counters the frame report
// prints, which tools/frame_report_to_header sizes the next build's pools
// from; and the board benchmarks' statistics.
#include <weft/core/frame_pool.hpp>
#include <weft/core/frame_report.hpp>

#include "../../bench/target/instr_report.hpp"

#include <gtest/gtest.h>
#include <support/weft_test.hpp>

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

using namespace weft;

namespace {

const frame_record* record_named(const char* name) {
    const frame_record* r = frame_allocator::records();
    for (std::size_t i = 0, n = frame_allocator::record_count(); i < n; ++i)
        if (std::strcmp(r[i].function, name) == 0) return &r[i];
    return nullptr;
}

}  // namespace

// A pool skipped because its slots are too small was never asked for the
// frame. Counting the frame as its largest request hid the frames it did
// serve: tools/frame_report_to_header ignores a largest_request above the
// slot size, so a small frame whose report line carries a larger frame of
// the same name (every coroutine lambda is "operator()") was left out, and
// the header gave the pool slots too small for it.
TEST(review3_frames, a_pool_skipped_for_size_keeps_the_largest_frame_it_served) {
    static frame_pool<64, 2> tiny{"r3_tiny"};
    tiny.reset_peak();
    void* served = frame_allocator::allocate(48, frame_site{"r3_lambda"});
    ASSERT_TRUE(tiny.owns(served));
    void* skipped = frame_allocator::allocate(200, frame_site{"r3_lambda"});  // test_small's
    ASSERT_NE(skipped, nullptr);
    EXPECT_FALSE(tiny.owns(skipped));
    EXPECT_EQ(tiny.largest_request(), 48u);
    EXPECT_EQ(record_named("r3_lambda")->bytes, 200u);  // the line the tool cannot use for tiny
    frame_allocator::deallocate(skipped);
    frame_allocator::deallocate(served);
}

// With no pool large enough, the error names the largest pool; its report
// line shows the request that did not fit.
TEST(review3_frames, a_frame_too_large_for_every_pool_is_charged_to_the_largest) {
    static frame_pool<4096, 1> huge{"r3_huge"};
    huge.reset_peak();
    test::small_frames.reset_peak();
    EXPECT_EQ(frame_allocator::allocate(5000, frame_site{"r3_giant"}), nullptr);
    const error& e = frame_allocator::last_error();
    EXPECT_EQ(e.code, errc::frame_too_large);
    EXPECT_STREQ(e.message().c_str(), "frame pool 'r3_huge': 5000 B frame of 'r3_giant' larger than its slots (limit 4096)");
    EXPECT_EQ(huge.failures(), 1u);
    EXPECT_EQ(huge.largest_request(), 5000u);
    EXPECT_EQ(test::small_frames.largest_request(), 0u);  // skipped, not asked
}

// A name cut to report_name_chars is cut between characters: half of a
// multi-byte UTF-8 character makes the line no valid JSON (which is UTF-8).
TEST(review3_frames, a_long_name_is_cut_between_utf8_characters) {
    // "é" is two bytes: 46 of them fill 92 bytes, so the cut at 93 would
    // fall inside the 47th.
    std::string name;
    for (int i = 0; i < 60; ++i) name += "\xc3\xa9";
    static const std::string kept = name;
    static frame_pool<64, 1> accented{kept.c_str()};
    std::string out;
    print_frame_report([&](const char* s, std::size_t n) { out.append(s, n); });
    const auto at = out.find("{\"pool\":\"\xc3\xa9");
    ASSERT_NE(at, std::string::npos) << out;
    const std::string line = out.substr(at, out.find('\n', at) - at);
    const auto cut = line.find("...\",\"slot_bytes\":64,");
    ASSERT_NE(cut, std::string::npos) << line;
    const std::string head = line.substr(9, cut - 9);  // after {"pool":"
    EXPECT_EQ(head.size() % 2, 0u) << "a character was split: " << head.size() << " bytes";
    EXPECT_EQ(head.size(), 92u);
}

// Random allocations, frees, scopes, pools declared and destroyed and
// reset_peak() calls: after each, every pool's counters and every frame's
// pool are those of the model (a full search each time), whichever path
// (remembered pool, further pools, search) the allocator took.
TEST(review3_frames, allocator_matches_the_full_search_model) {
    struct model_pool {
        frame_pool_base* real;
        std::size_t used, peak, failures, largest;
    };
    std::vector<model_pool> order;  // the registry: slot size, then declaration order
    auto sync = [&](frame_pool_base& p) {
        p.reset_peak();
        return model_pool{&p, p.in_use(), p.in_use(), 0, 0};
    };
    auto model_of = [&](const frame_pool_base* p) -> model_pool& {
        for (auto& m : order)
            if (m.real == p) return m;
        ADD_FAILURE() << "pool not in the model";
        return order.front();
    };
    for (frame_pool_base* p = frame_pool_base::first(); p; p = p->next()) order.push_back(sync(*p));

    struct live_frame { void* p; frame_pool_base* pool; };
    std::vector<live_frame> live;
    std::vector<std::pair<std::unique_ptr<use_frames>, frame_pool_base*>> scopes;

    // Pools that come and go (ties in slot size keep declaration order).
    std::optional<frame_pool<32, 2>> p32a, p32b;
    std::optional<frame_pool<64, 3>> p64;
    std::optional<frame_pool<128, 1>> p128;
    std::optional<frame_pool<512, 2>> p512;
    // Ends the scopes innermost first and gives the frames back before the
    // pools go, also when an assertion returns early.
    struct cleanup {
        std::vector<live_frame>& live;
        std::vector<std::pair<std::unique_ptr<use_frames>, frame_pool_base*>>& scopes;
        ~cleanup() {
            while (!scopes.empty()) scopes.pop_back();
            for (auto& f : live) frame_allocator::deallocate(f.p);
        }
    } at_end{live, scopes};
    // One of the five: declares it if absent, else destroys it if it has
    // no frame and no scope on it.
    auto toggle = [&](int which) {
        frame_pool_base* p = nullptr;
        auto flip = [&](auto& opt, const char* name) {
            if (!opt) {
                opt.emplace(name);
                p = &*opt;
                order.insert(std::find_if(order.begin(), order.end(),
                                          [&](const model_pool& m) { return m.real->slot_bytes() > p->slot_bytes(); }),
                             model_pool{p, 0, 0, 0, 0});  // not sync(): reset_peak() would hide a stale hint
                return;
            }
            p = &*opt;
            if (p->in_use() != 0 || std::any_of(scopes.begin(), scopes.end(), [&](auto& s) { return s.second == p; }))
                return;
            order.erase(std::find_if(order.begin(), order.end(), [&](const model_pool& m) { return m.real == p; }));
            opt.reset();
        };
        switch (which) {
        case 0: flip(p32a, "r3_32a"); break;
        case 1: flip(p32b, "r3_32b"); break;
        case 2: flip(p64, "r3_64"); break;
        case 3: flip(p128, "r3_128"); break;
        default: flip(p512, "r3_512"); break;
        }
    };

    // Sites: two copies of one name (two object files' copies of an inline
    // coroutine's name) and two other names.
    static const char name_a1[] = "r3_site_a";
    static const char name_a2[] = "r3_site_a";
    static const char name_b[] = "r3_site_b";
    static const char name_c[] = "r3_site_c";
    const char* sites[] = {name_a1, name_a2, name_b, name_c};
    struct model_record { const char* name; std::uint32_t bytes, created; };
    std::vector<model_record> records;
    for (const char* n : {name_a1, name_b, name_c}) {
        const frame_record* r = record_named(n);
        records.push_back({n, r ? r->bytes : 0u, r ? r->created : 0u});
    }
    auto record_of = [&](const char* fn) -> model_record& {
        for (auto& r : records)
            if (std::strcmp(r.name, fn) == 0) return r;
        return records.front();
    };
    const std::size_t sizes[] = {16, 24, 32, 48, 64, 100, 128, 200, 256, 400, 512, 1000, 2000};

    std::size_t last_n = sizes[0];
    const char* last_fn = sites[0];
    std::mt19937 rng(20261126);
    auto pick = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); };

    for (int step = 0; step < 20000 && !HasFailure(); ++step) {
        const std::size_t op = pick(100);
        if (op < 42) {
            // Often the previous request again: the remembered pool's case.
            if (pick(2) == 0) last_n = sizes[pick(std::size(sizes))], last_fn = sites[pick(std::size(sites))];
            const std::size_t n = last_n;
            const char* fn = last_fn;
            // The model: the scoped pool, or the first fitting pool with a
            // free slot; the pools asked (their largest_request).
            frame_pool_base* want = nullptr;
            model_pool* charged = nullptr;  // the pool the failure names
            bool too_large = false;
            if (!scopes.empty()) {
                model_pool& m = model_of(scopes.back().second);
                m.largest = std::max(m.largest, n);
                if (n <= m.real->slot_bytes() && m.used < m.real->capacity()) want = m.real;
                else charged = &m, too_large = n > m.real->slot_bytes();
            } else {
                for (auto& m : order) {
                    if (m.real->slot_bytes() < n) continue;
                    m.largest = std::max(m.largest, n);
                    charged = &m;
                    if (m.used < m.real->capacity()) { want = m.real; break; }
                }
                if (!charged && !order.empty()) {
                    charged = &order.back();
                    charged->largest = std::max(charged->largest, n);
                    too_large = true;
                }
            }
            void* p = frame_allocator::allocate(n, frame_site{fn});
            model_record& r = record_of(fn);
            r.bytes = std::max<std::uint32_t>(r.bytes, std::uint32_t(n));
            if (want) {
                ASSERT_NE(p, nullptr) << "step " << step << ": " << n << " B";
                ASSERT_TRUE(want->owns(p)) << "step " << step << ": " << n << " B not from " << want->name();
                model_pool& m = model_of(want);
                m.peak = std::max(m.peak, ++m.used);
                ++r.created;
                live.push_back({p, want});
            } else {
                ASSERT_EQ(p, nullptr) << "step " << step << ": " << n << " B";
                ASSERT_NE(charged, nullptr);
                ++charged->failures;
                const error& e = frame_allocator::last_error();
                EXPECT_EQ(e.code, too_large ? errc::frame_too_large : errc::no_memory) << "step " << step;
                EXPECT_STREQ(e.object, charged->real->name()) << "step " << step;
                EXPECT_EQ(e.limit, too_large ? charged->real->slot_bytes() : charged->real->capacity())
                    << "step " << step;
            }
        } else if (op < 85) {
            if (live.empty()) continue;
            const std::size_t i = pick(live.size());
            frame_allocator::deallocate(live[i].p);
            --model_of(live[i].pool).used;
            live.erase(live.begin() + std::ptrdiff_t(i));
        } else if (op < 90) {
            if (scopes.size() < 2 && pick(2) == 0) {
                frame_pool_base* p = order[pick(order.size())].real;
                scopes.emplace_back(std::make_unique<use_frames>(*p), p);
            } else if (!scopes.empty()) {
                scopes.pop_back();
            }
        } else if (op < 96) {
            toggle(int(pick(5)));
        } else {
            model_pool& m = order[pick(order.size())];
            m.real->reset_peak();
            m.peak = m.used, m.failures = 0, m.largest = 0;
        }
        for (const auto& m : order) {
            ASSERT_EQ(m.real->in_use(), m.used) << "step " << step << ": " << m.real->name();
            ASSERT_EQ(m.real->peak(), m.peak) << "step " << step << ": " << m.real->name();
            ASSERT_EQ(m.real->failures(), m.failures) << "step " << step << ": " << m.real->name();
            ASSERT_EQ(m.real->largest_request(), m.largest) << "step " << step << ": " << m.real->name();
        }
        for (const auto& r : records) {
            const frame_record* got = record_named(r.name);
            if (r.created == 0 && r.bytes == 0) continue;
            ASSERT_NE(got, nullptr) << r.name;
            ASSERT_EQ(got->bytes, r.bytes) << "step " << step << ": " << r.name;
            ASSERT_EQ(got->created, r.created) << "step " << step << ": " << r.name;
        }
    }
}

// The board benchmarks' statistics (bench/target/instr_report.hpp): three
// runs of N and of 0 operations, printed as median and p10/p90 of the
// three differences.

namespace {

// run(n) and run(0) in measure()'s order: full, none, full, none, ...
const std::uint64_t* scripted = nullptr;
std::uint64_t scripted_run(int) { return *scripted++; }

std::string measured(const std::uint64_t (&counts)[6]) {
    frame_allocator::last_error() = error{};  // earlier tests' failures
    scripted = counts;
    ::testing::internal::CaptureStdout();  // console_write is write(1, ...)
    bench_target::measure("target-core", "w", scripted_run, 10, 10);
    return ::testing::internal::GetCapturedStdout();
}

}  // namespace

TEST(review3_bench, board_spread_counts_every_run) {
    // 100 operations: 500, 900 and 500 instructions each. The middle run
    // is the odd one; its count must show in p90 (as the host harness's
    // interpolation gives it: 500 + 0.8 x 400), not vanish.
    const std::uint64_t counts[6] = {51000, 1000, 91000, 1000, 51000, 1000};
    const std::string line = measured(counts);
    EXPECT_NE(line.find("\"median\":500.00,\"p10\":500.00,\"p90\":820.00,\"runs\":3"), std::string::npos) << line;
}

TEST(review3_bench, board_run_that_cost_less_than_its_baseline_is_refused) {
    // The second run's N operations cost less than its 0-op run: no count.
    const std::uint64_t counts[6] = {51000, 1000, 900, 1000, 51000, 1000};
    EXPECT_DEATH((void)measured(counts), "bench: a workload did no work");
}
