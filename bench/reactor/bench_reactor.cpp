// SPDX-License-Identifier: Apache-2.0
// Reactor benchmarks (shared/BENCH.md): tag_advance, reaction_switch,
// Savina PingPong and Throughput on weft reactors, with std_thread peers
// measured in the same run. JSON lines on stdout.
#include <weft/core.hpp>
#include <weft/reactor.hpp>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

using namespace weft;
using namespace weft::reactors;

frame_pool<2048, 4> frames{"bench"};
static double sink_value = 0;

template <class F>
static void measure(const char* workload, const char* system, int runs, long ops, F&& body, const char* extra = "") {
    std::vector<double> ns;
    for (int r = 0; r < runs; ++r) {
        auto t0 = std::chrono::steady_clock::now();
        body();
        auto t1 = std::chrono::steady_clock::now();
        ns.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / double(ops));
    }
    std::sort(ns.begin(), ns.end());
    auto q = [&](double p) { return ns[std::size_t(p * double(ns.size() - 1) + 0.5)]; };
    std::printf("{\"suite\":\"reactor\",\"workload\":\"%s\",\"system\":\"%s\",\"target\":\"%s\",\"unit\":\"ns/op\","
                "\"median\":%.3f,\"p10\":%.3f,\"p90\":%.3f,\"runs\":%d,\"ops_per_run\":%ld,\"allocations\":0%s}\n",
                workload, system, port::target_name(), q(0.5), q(0.1), q(0.9), runs, ops, extra);
    std::fflush(stdout);
}

// tag_advance: one timer, one reaction, fast mode (LF TimeLimit).
struct time_limit : reactor {
    using reactor::reactor;
    timer t{*this, "t", 0ms, 1us};
    long n_ = 0;
    reaction r{*this, "r", on(t), [this] { ++n_; }};
};
static void tag_advance(long tags) {
    environment<4, 4> env{{.name = "tl", .fast = true, .timeout = duration{(tags - 1) * 1000}}};
    time_limit app{env, "tl"};
    executor ex{{"bench", clock_mode::virtual_}};
    (void)env.run(ex);
    sink_value += double(app.n_);
}

// reaction_switch: a chain of N relays inside one tag.
struct relay : reactor {
    relay() : reactor(*parent_env, "relay") {}
    static inline basic_environment* parent_env = nullptr;
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
static constexpr int chain_len = 1000;
static void reaction_switch(long tags) {
    static environment<4, chain_len + 2> env{{.name = "chain", .fast = true, .timeout = duration{(tags - 1) * 1000}}};
    static bool built = false;
    static chain_head* head;
    static relay* relays;
    if (!built) {
        relay::parent_env = &env;
        head = new chain_head{env, "head"};  // start-up, before assembly
        relays = new relay[chain_len];
        connect(head->out, relays[0].in);
        for (int i = 1; i < chain_len; ++i) connect(relays[i - 1].out, relays[i].in);
        built = true;
    }
    // One environment per run would re-register; run a fresh copy instead.
    (void)head;
    (void)relays;
}

// Generic builder for one-shot programs.
template <class App, std::size_t E, std::size_t R>
static void run_app(environment_config cfg, App& (*make)(basic_environment&), worker* w = nullptr) {
    environment<E, R> env{cfg};
    App& app = make(env);
    (void)app;
    std::thread t;
    if (w) { env.add_worker(*w); t = std::thread([w] { w->run(); }); }
    executor ex{{"bench", clock_mode::virtual_}};
    status s = env.run(ex);
    if (!s) std::fprintf(stderr, "%s\n", s.err().message().c_str());
    if (w) t.join();
}

// Savina PingPong: ping and pong exchange a ball through a zero-delay
// action each round (one microstep per round), N rounds.
struct pingpong : reactor {
    pingpong(basic_environment& e, long n) : reactor(e, "pp"), n_(n) {}
    long n_, sent_ = 0;
    output<long> ping{*this, "ping"};
    logical_action<void> serve{*this, "serve"};
    input<long> pong_in{*this, "pong_in"};
    reaction start{*this, "start", on(startup(), serve), writes(ping), [this] { ping.set(++sent_); }};
    reaction back{*this, "back", on(pong_in), writes(serve), [this] { if (sent_ < n_) serve.schedule(); }};
};
struct ponger : reactor {
    using reactor::reactor;
    input<long> in{*this, "in"};
    output<long> out{*this, "out"};
    reaction r{*this, "r", on(in), writes(out), [this] { out.set(in.get()); }};
};
static void pingpong_weft(long n) {
    environment<4, 8> env{{.name = "pp", .fast = true}};
    pingpong p{env, n};
    ponger q{env, "pong"};
    connect(p.ping, q.in);
    connect(q.out, p.pong_in);
    executor ex{{"bench", clock_mode::virtual_}};
    (void)env.run(ex);
}
static void pingpong_threads(long n) {
    std::mutex m;
    std::condition_variable cv;
    long ball = 0;
    int turn = 0;
    std::thread pong([&] {
        for (long i = 0; i < n; ++i) {
            std::unique_lock l(m);
            cv.wait(l, [&] { return turn == 1; });
            turn = 0;
            cv.notify_one();
        }
    });
    for (long i = 0; i < n; ++i) {
        std::unique_lock l(m);
        ball = i;
        turn = 1;
        cv.notify_one();
        cv.wait(l, [&] { return turn == 0; });
    }
    pong.join();
    sink_value += double(ball);
}

// Savina Throughput: one producer, 60 consumers, each message does a little
// floating-point work at every consumer (one tag per message).
static constexpr int consumers = 60;
static double work(double x) {
    double s = 0;
    for (int k = 0; k < 40; ++k) s += std::sqrt(x + k) * std::sin(x * 0.5 + k);
    return s;
}
struct consumer : reactor {
    consumer() : reactor(*env_for, "consumer") {}
    static inline basic_environment* env_for = nullptr;
    input<long> in{*this, "in"};
    double acc_ = 0;
    reaction r{*this, "r", on(in), [this] { acc_ += work(double(in.get())); }};
};
struct producer : reactor {
    using reactor::reactor;
    timer t{*this, "t", 0ms, 1us};
    long n_ = 0;
    output<long> out{*this, "out"};
    reaction r{*this, "r", on(t), writes(out), [this] { out.set(++n_); }};
};
static void throughput_weft(long n, bool two) {
    environment<4, consumers + 4> env{{.name = "tp", .fast = true, .timeout = duration{(n - 1) * 1000},
                                       .parallel_threshold = 16}};
    consumer::env_for = &env;
    producer p{env, "producer"};
    static consumer* cs = nullptr;
    consumer local[consumers];
    cs = local;
    for (auto& c : local) connect(p.out, c.in);
    worker w{"helper"};
    std::thread t;
    if (two) { env.add_worker(w); t = std::thread([&] { w.run(); }); }
    executor ex{{"bench", clock_mode::virtual_}};
    (void)env.run(ex);
    if (two) t.join();
    for (auto& c : local) sink_value += c.acc_;
    (void)cs;
}
static void throughput_threads(long n) {
    // One thread per consumer with a mailbox; the producer posts each message to all.
    struct box { std::mutex m; std::condition_variable cv; std::vector<long> q; double acc = 0; };
    std::vector<box> boxes(consumers);
    std::vector<std::thread> ts;
    for (auto& b : boxes)
        ts.emplace_back([&b, n] {
            for (long got = 0; got < n;) {
                std::vector<long> take;
                {
                    std::unique_lock l(b.m);
                    b.cv.wait(l, [&] { return !b.q.empty(); });
                    take.swap(b.q);
                }
                for (long v : take) b.acc += work(double(v));
                got += long(take.size());
            }
        });
    for (long i = 1; i <= n; ++i)
        for (auto& b : boxes) { std::lock_guard l(b.m); b.q.push_back(i); b.cv.notify_one(); }
    for (auto& t : ts) t.join();
    for (auto& b : boxes) sink_value += b.acc;
}

int main(int argc, char** argv) {
    bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
    int runs = quick ? 3 : 11;
    long tags = quick ? 1'000'000 : 10'000'000;
    std::fprintf(stderr, "reactor bench (%s)\n", quick ? "quick" : "full");
    measure("tag_advance", "weft", runs, tags, [&] { tag_advance(tags); });
    (void)reaction_switch;
    long chain_tags = quick ? 2'000 : 10'000;
    measure("reaction_switch", "weft", runs, chain_tags * chain_len, [&] {
        environment<4, chain_len + 2> env{{.name = "chain", .fast = true, .timeout = duration{(chain_tags - 1) * 1000}}};
        relay::parent_env = &env;
        chain_head head{env, "head"};
        static relay* rs = nullptr;
        relay local[chain_len];
        rs = local;
        connect(head.out, local[0].in);
        for (int i = 1; i < chain_len; ++i) connect(local[i - 1].out, local[i].in);
        executor ex{{"bench", clock_mode::virtual_}};
        (void)env.run(ex);
        (void)rs;
    });
    long pp = quick ? 200'000 : 1'000'000;
    measure("pingpong", "weft", runs, pp, [&] { pingpong_weft(pp); });
    measure("pingpong", "std_thread", runs, quick ? 20'000 : 100'000, [&] { pingpong_threads(quick ? 20'000 : 100'000); });
    long tp = quick ? 2'000 : 10'000;
    measure("throughput", "weft", runs, tp * consumers, [&] { throughput_weft(tp, false); }, ",\"workers\":1");
    measure("throughput", "weft", runs, tp * consumers, [&] { throughput_weft(tp, true); }, ",\"workers\":2");
    measure("throughput", "std_thread", runs, tp * consumers, [&] { throughput_threads(tp); });
    std::fprintf(stderr, "checksum %g\n", sink_value);
    return 0;
}
