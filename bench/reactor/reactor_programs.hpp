// SPDX-License-Identifier: Apache-2.0
#pragma once
// The workloads as weft reactor programs. Every run builds a fresh
// program on the stack (construction and assembly are start-up, and are
// inside the timed region: they cost microseconds next to the run) and
// runs it in fast mode on a virtual-clock executor. Reactor classes are at
// namespace scope (Clang 14: docs/reactor.md, Known limits).
#include "workloads.hpp"

#include <weft/core.hpp>
#include <weft/reactor.hpp>

#include <pthread.h>

#include <cstdio>
#include <utility>

namespace bench::rx::reactors {

using namespace weft;
using namespace weft::reactors;

inline frame_pool<2048, 4> frames{"bench-reactor"};

// Arrays of reactors and of ports need default constructors: they find
// their environment / reactor here (set just before the array is built).
inline basic_environment* current_env = nullptr;
inline reactor* current_reactor = nullptr;
struct note_current {
    explicit note_current(reactor* r) noexcept { current_reactor = r; }
};
template <class T>
struct in_port : input<T> {
    in_port() noexcept : input<T>(*current_reactor, "in") {}
};
template <class T>
struct out_port : output<T> {
    out_port() noexcept : output<T>(*current_reactor, "out") {}
};
template <class P, std::size_t... I>
auto on_each(P* ports, std::index_sequence<I...>) noexcept { return on(ports[I]...); }
template <class P, std::size_t... I>
auto writes_each(P* ports, std::index_sequence<I...>) noexcept { return writes(ports[I]...); }

inline status run(basic_environment& env) {
    executor ex{{"bench", clock_mode::virtual_}};
    status s = env.run(ex);
    if (!s) std::fprintf(stderr, "reactor program failed: %s\n", s.err().message().c_str());
    return s;
}

// --- tag_advance: one timer, one reaction (LF's TimeLimit).
struct time_limit : reactor {
    using reactor::reactor;
    timer t{*this, "t", 0ms, 1us};
    std::uint64_t n_ = 0;
    reaction r{*this, "r", on(t), [this] { ++n_; }};
};
inline std::uint64_t tag_advance(long tags) {
    environment<2, 2> env{{.name = "time_limit", .fast = true, .timeout = duration{(tags - 1) * 1000}}};
    time_limit app{env, "tl"};
    (void)run(env);
    return app.n_;
}

// --- reaction_switch: a timer starts a value down a chain of relays (one tag).
struct relay : reactor {
    relay() noexcept : reactor(*current_env, "relay") {}
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
struct chain_tail : reactor {
    using reactor::reactor;
    input<int> in{*this, "in"};
    std::uint64_t sum_ = 0;
    reaction r{*this, "r", on(in), [this] { sum_ += std::uint64_t(in.get()); }};
};
inline std::uint64_t reaction_switch(long tags) {
    environment<2, chain_len + 2> env{{.name = "chain", .fast = true, .timeout = duration{(tags - 1) * 1000}}};
    chain_head head{env, "head"};
    current_env = &env;
    relay relays[chain_len];
    chain_tail tail{env, "tail"};
    connect(head.out, relays[0].in);
    for (int i = 1; i < chain_len; ++i) connect(relays[i - 1].out, relays[i].in);
    connect(relays[chain_len - 1].out, tail.in);
    (void)run(env);
    return tail.sum_;
}

// --- PingPong: the ball goes back through a zero-delay action each round
// (one microstep per round trip).
struct ping : reactor {
    ping(basic_environment& e, long n) noexcept : reactor(e, "ping"), n_(n) {}
    long n_, sent_ = 0;
    std::uint64_t sum_ = 0;
    output<long> out{*this, "out"};
    input<long> in{*this, "in"};
    logical_action<void> serve{*this, "serve"};
    reaction start{*this, "serve", on(startup(), serve), writes(out), [this] { out.set(++sent_); }};
    reaction back{*this, "back", on(in), writes(serve), [this] {
        sum_ += std::uint64_t(in.get());
        if (sent_ < n_) (void)serve.schedule();
    }};
};
struct pong : reactor {
    using reactor::reactor;
    input<long> in{*this, "in"};
    output<long> out{*this, "out"};
    reaction r{*this, "r", on(in), writes(out), [this] { out.set(in.get()); }};
};
inline std::uint64_t pingpong(long n) {
    environment<2, 4> env{{.name = "pingpong", .fast = true}};
    ping p{env, n};
    pong q{env, "pong"};
    connect(p.out, q.in);
    connect(q.out, p.in);
    (void)run(env);
    return p.sum_;
}

// --- Counting: one increment per microstep, then a query that the
// counter answers in the same tag.
struct counting_producer : reactor {
    counting_producer(basic_environment& e, long n) noexcept : reactor(e, "producer"), n_(n) {}
    long n_, sent_ = 0;
    std::uint64_t result_ = 0;
    output<int> incr{*this, "incr"};
    output<int> query{*this, "query"};
    input<std::int64_t> reply{*this, "reply"};
    logical_action<void> next{*this, "next"};
    reaction send{*this, "send", on(startup(), next), writes(incr, query, next), [this] {
        if (sent_ == n_) { query.set(0); return; }
        incr.set(1);
        ++sent_;
        (void)next.schedule();
    }};
    reaction done{*this, "done", on(reply), [this] { result_ = std::uint64_t(reply.get()); }};
};
struct counter : reactor {
    using reactor::reactor;
    input<int> incr{*this, "incr"};
    input<int> query{*this, "query"};
    output<std::int64_t> reply{*this, "reply"};
    std::int64_t count_ = 0;
    reaction add{*this, "add", on(incr), [this] { count_ += incr.get(); }};
    reaction answer{*this, "answer", on(query), writes(reply), [this] { reply.set(count_); }};
};
inline std::uint64_t counting(long n) {
    environment<2, 4> env{{.name = "counting", .fast = true}};
    counting_producer p{env, n};
    counter c{env, "counter"};
    connect(p.incr, c.incr);
    connect(p.query, c.query);
    connect(c.reply, p.reply);
    (void)run(env);
    return p.result_;
}

// --- ThreadRing: node k passes the token to k + 1 one microstep later.
// `forward` is declared first: the declaration-order dependency then runs
// forward -> take inside a node, and the ring of ports has no cycle.
struct ring_node : reactor {
    ring_node() noexcept : reactor(*current_env, "node"), k_(next_index++) {}
    static inline int next_index = 0;
    static inline long hops = 0;
    int k_;
    std::uint64_t sum_ = 0;
    input<long> in{*this, "in"};
    output<long> out{*this, "out"};
    logical_action<long> pass{*this, "pass"};
    reaction forward{*this, "forward", on(pass), writes(out), [this] { out.set(pass.get()); }};
    reaction take{*this, "take", on(startup(), in), writes(pass), [this] {
        long t = in.is_present() ? in.get() : (k_ == 0 ? hops : 0);
        if (t <= 0) return;  // spent: no event left, the program ends
        sum_ += std::uint64_t(k_);
        (void)pass.schedule(t - 1);
    }};
};
inline std::uint64_t thread_ring(long hops) {
    environment<2, 2 * ring_nodes> env{{.name = "ring", .fast = true}};
    current_env = &env;
    ring_node::next_index = 0;
    ring_node::hops = hops;
    ring_node nodes[ring_nodes];
    for (int k = 0; k < ring_nodes; ++k) connect(nodes[k].out, nodes[(k + 1) % ring_nodes].in);
    (void)run(env);
    std::uint64_t s = 0;
    for (auto& n : nodes) s += n.sum_;
    return s;
}

// --- Throughput: each tag the producer sends message i; the 60 consumers
// form one level (shared with a worker when there is one).
struct consumer : reactor {
    consumer() noexcept : reactor(*current_env, "consumer"), a_(next_index++) {}
    static inline int next_index = 0;
    int a_;
    double acc_ = 0;
    input<long> in{*this, "in"};
    reaction r{*this, "r", on(in), [this] { acc_ += work(throughput_value(in.get(), a_)); }};
};
struct producer : reactor {
    using reactor::reactor;
    timer t{*this, "t", 0ms, 1us};
    long i_ = 0;
    output<long> out{*this, "out"};
    reaction r{*this, "r", on(t), writes(out), [this] { out.set(i_++); }};
};
inline void* worker_main(void* w) {
    static_cast<worker*>(w)->run();
    return nullptr;
}
inline std::uint64_t throughput(long per, int workers) {
    environment<2, consumers + 1> env{{.name = "throughput", .fast = true,
                                       .timeout = duration{(per - 1) * 1000}, .parallel_threshold = 16}};
    producer p{env, "producer"};
    current_env = &env;
    consumer::next_index = 0;
    consumer cs[consumers];
    for (auto& c : cs) connect(p.out, c.in);
    // pthread, not std::thread: std::thread allocates its state, which
    // would show in allocs_per_run as if weft had allocated.
    worker helper{"helper"};
    pthread_t t{};
    if (workers > 1) {
        env.add_worker(helper);
        pthread_create(&t, nullptr, &worker_main, &helper);
    }
    (void)run(env);
    if (workers > 1) pthread_join(t, nullptr);
    double total = 0;
    for (auto& c : cs) total += c.acc_;
    return fp_checksum(total);
}

// --- Chameneos: creatures send requests to the mall; it pairs them in
// index order within a tag (and across tags through `waiting_`), and tells
// both creatures of a pair their new colour. A creature asks again one
// microstep after an answer; after `meetings`, every request gets exit.
struct creature : reactor {
    creature() noexcept : reactor(*current_env, "creature"), colour_(std::uint32_t(next_index++ % 3)) {}
    static inline int next_index = 0;
    std::uint32_t colour_;
    std::uint64_t met_ = 0;
    output<msg> req{*this, "req"};
    input<msg> resp{*this, "resp"};
    logical_action<void> again{*this, "again"};
    reaction ask{*this, "ask", on(startup(), again), writes(req), [this] { req.set(msg{k_meet, 0, colour_}); }};
    reaction answer{*this, "answer", on(resp), writes(again), [this] {
        const msg& m = resp.get();
        if (m.kind == k_exit) return;
        ++met_;
        colour_ = std::uint32_t(m.value);
        (void)again.schedule();
    }};
};
struct mall : reactor, note_current {
    mall(basic_environment& e, long meetings) noexcept : reactor(e, "mall"), note_current(this), meetings_(meetings) {}
    long meetings_, held_ = 0;
    int waiting_ = -1;
    std::uint32_t waiting_colour_ = 0;
    in_port<msg> req[creatures];
    out_port<msg> resp[creatures];
    basic_reaction<2 * creatures> pair{*this, "pair", on_each(req, std::make_index_sequence<creatures>{}),
                                       writes_each(resp, std::make_index_sequence<creatures>{}),
                                       [this] { match(); }};
    void match() noexcept {
        for (int i = 0; i < creatures; ++i) {
            if (!req[i].is_present()) continue;
            std::uint32_t c = std::uint32_t(req[i].get().value);
            if (held_ == meetings_) {
                resp[i].set(msg{k_exit, 0, 0});
                if (waiting_ >= 0) resp[waiting_].set(msg{k_exit, 0, 0});
                waiting_ = -1;
            } else if (waiting_ < 0) {
                waiting_ = i;
                waiting_colour_ = c;
            } else {
                std::int64_t both = complement(waiting_colour_, c);
                resp[waiting_].set(msg{k_meet, std::uint32_t(i), both});
                resp[i].set(msg{k_meet, std::uint32_t(waiting_), both});
                waiting_ = -1;
                ++held_;
            }
        }
    }
};
inline std::uint64_t chameneos(long meetings) {
    environment<creatures + 2, 2 * creatures + 1> env{{.name = "chameneos", .fast = true}};
    mall m{env, meetings};
    current_env = &env;
    creature::next_index = 0;
    creature cs[creatures];
    for (int i = 0; i < creatures; ++i) {
        connect(cs[i].req, m.req[i]);
        connect(m.resp[i], cs[i].resp);
    }
    (void)run(env);
    std::uint64_t met = 0;
    for (auto& c : cs) met += c.met_;
    return met;
}

// --- Big: a full mesh of ports. A worker's output to j carries a ping
// and/or a pong bit (at most one of each per tag). `flush` sends, one
// microstep after `receive` decided what to send; each worker keeps one
// ping outstanding until it has sent big_pings.
struct big_worker : reactor, note_current {
    big_worker() noexcept : reactor(*current_env, "worker"), note_current(this), self_(next_index++), rng_(self_) {}
    static inline int next_index = 0;
    static inline long pings = 0;
    int self_;
    partner_rng rng_;
    long sent_ = 0;
    std::uint64_t pongs_ = 0;
    int ping_to_ = -1;
    bool pong_to_[big_workers] = {};
    in_port<std::uint8_t> from[big_workers];
    out_port<std::uint8_t> to[big_workers];
    logical_action<void> later{*this, "later"};
    static constexpr std::uint8_t ping_bit = 1, pong_bit = 2;
    basic_reaction<big_workers + 2> flush{*this, "flush", on(startup(), later),
                                          writes_each(to, std::make_index_sequence<big_workers>{}),
                                          [this] { send(); }};
    basic_reaction<big_workers + 1> receive{*this, "receive", on_each(from, std::make_index_sequence<big_workers>{}),
                                            writes(later), [this] { take(); }};
    void send() noexcept {
        if (sent_ == 0 && pings > 0) { ping_to_ = rng_.next(self_); sent_ = 1; }
        for (int j = 0; j < big_workers; ++j) {
            std::uint8_t v = std::uint8_t((pong_to_[j] ? pong_bit : 0) | (ping_to_ == j ? ping_bit : 0));
            if (v) to[j].set(v);
            pong_to_[j] = false;
        }
        ping_to_ = -1;
    }
    void take() noexcept {
        bool any = false;
        for (int j = 0; j < big_workers; ++j) {
            if (!from[j].is_present()) continue;
            std::uint8_t v = from[j].get();
            if (v & ping_bit) { pong_to_[j] = true; any = true; }
            if (v & pong_bit) {
                ++pongs_;
                if (sent_ < pings) { ping_to_ = rng_.next(self_); ++sent_; any = true; }
            }
        }
        if (any) (void)later.schedule();
    }
};
inline std::uint64_t big(long pings) {
    environment<big_workers + 2, 2 * big_workers> env{{.name = "big", .fast = true}};
    current_env = &env;
    big_worker::next_index = 0;
    big_worker::pings = pings;
    big_worker ws[big_workers];
    for (int i = 0; i < big_workers; ++i)
        for (int j = 0; j < big_workers; ++j) connect(ws[i].to[j], ws[j].from[i]);
    (void)run(env);
    std::uint64_t pongs = 0;
    for (auto& w : ws) pongs += w.pongs_;
    return pongs;
}

}  // namespace bench::rx::reactors
