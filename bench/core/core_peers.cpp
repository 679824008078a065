// SPDX-License-Identifier: Apache-2.0
// bench/run core — the peers, on the same workloads as core_bench.cpp:
// std_thread (mutex + condition variable), boost_context (callcc
// continuations), boost_coroutine2 (pull_type). Built with exceptions on,
// as these libraries expect. And `bare_coroutine`: the same switches as
// plain C++20 coroutines with no scheduler, no pool and no bookkeeping,
// i.e. what the compiler's coroutine lowering alone costs, the floor
// under any stackless runtime built with this compiler.
#include <boost/context/continuation.hpp>
#include <boost/coroutine2/coroutine.hpp>

#include <condition_variable>
#include <coroutine>
#include <mutex>
#include <thread>

#include "../common/harness.hpp"
#include "trees.hpp"

namespace ctx = boost::context;
namespace {
constexpr const char* suite = "core";

// --- bare_coroutine: a switch is one resume, nothing else -----------------
// The frames come from operator new (outside the timed loop); the loop
// bodies are those of core_bench.cpp's yielder and counter.
struct bare_task {
    struct promise_type {
        std::coroutine_handle<> other;  // whom a switch resumes
        bare_task get_return_object() noexcept {
            return {std::coroutine_handle<promise_type>::from_promise(*this)};
        }
        std::suspend_always initial_suspend() noexcept { return {}; }
        std::suspend_always final_suspend() noexcept { return {}; }
        void return_void() noexcept {}
        void unhandled_exception() noexcept { std::abort(); }
    };
    std::coroutine_handle<promise_type> h;
};
struct switch_to_other {
    bool await_ready() const noexcept { return false; }
    std::coroutine_handle<> await_suspend(std::coroutine_handle<bare_task::promise_type> h) noexcept {
        return h.promise().other;  // symmetric transfer
    }
    void await_resume() const noexcept {}
};
bare_task bare_yielder(long n) {
    for (long i = 0; i < n; ++i) co_await switch_to_other{};
}

struct bare_generator {
    struct promise_type {
        long value = 0;
        bare_generator get_return_object() noexcept {
            return {std::coroutine_handle<promise_type>::from_promise(*this)};
        }
        std::suspend_always initial_suspend() noexcept { return {}; }
        std::suspend_always final_suspend() noexcept { return {}; }
        std::suspend_always yield_value(long v) noexcept {
            value = v;
            return {};
        }
        void return_void() noexcept {}
        void unhandled_exception() noexcept { std::abort(); }
    };
    std::coroutine_handle<promise_type> h;
};
bare_generator bare_counter(long n) {
    for (long i = 0; i < n; ++i) co_yield i;
}

void yield_roundtrip(const bench::options& o) {
    {
        const long n = 100'000;  // round trips; 2n switches
        bench::measure(suite, "yield_roundtrip", "std_thread", o.runs(7), 2 * n, [&] {
            std::mutex m;
            std::condition_variable cv;
            int turn = 0;
            std::thread other([&] {
                for (long i = 0; i < n; ++i) {
                    std::unique_lock<std::mutex> lk(m);
                    cv.wait(lk, [&] { return turn == 1; });
                    turn = 0;
                    cv.notify_one();
                }
            });
            for (long i = 0; i < n; ++i) {
                std::unique_lock<std::mutex> lk(m);
                turn = 1;
                cv.notify_one();
                cv.wait(lk, [&] { return turn == 0; });
            }
            other.join();
        });
    }
    {
        const long n = 2'000'000;  // switches
        bench::measure(suite, "yield_roundtrip", "boost_context", o.runs(15), n, [&] {
            long count = 0;
            ctx::continuation c = ctx::callcc([&](ctx::continuation&& main) {
                for (;;) {
                    ++count;
                    main = main.resume();
                }
                return std::move(main);
            });
            for (long i = 0; i < n / 2; ++i) c = c.resume();
            if (count < n / 2) std::abort();
        });
    }
    {
        const long n = 2'000'000;  // switches per task, as core_bench's yielders
        bench::measure(suite, "yield_roundtrip", "bare_coroutine", o.runs(15), 2 * n, [&] {
            bare_task a = bare_yielder(n), b = bare_yielder(n);
            a.h.promise().other = b.h;
            b.h.promise().other = a.h;
            a.h.resume();  // returns when a reaches its final suspend
            if (!a.h.done()) std::abort();
            a.h.destroy();
            b.h.destroy();
        });
    }
}

void generator_1m(const bench::options& o) {
    using coro = boost::coroutines2::coroutine<long>;
    const long n = 1'000'000;
    volatile long sink = 0;
    bench::measure(suite, "generator_1m", "boost_coroutine2", o.runs(25), n, [&] {
        coro::pull_type gen([&](coro::push_type& yield) {
            for (long i = 0; i < n; ++i) yield(i);
        });
        long s = 0;
        for (long v : gen) s += v;
        sink = s;
    });
    bench::measure(suite, "generator_1m", "bare_coroutine", o.runs(25), n, [&] {
        bare_generator gen = bare_counter(n);
        long s = 0;
        for (;;) {
            gen.h.resume();
            if (gen.h.done()) break;
            s += gen.h.promise().value;
        }
        gen.h.destroy();
        sink = s;
    });
    (void)sink;
}

// Stackful same-fringe: each tree walked recursively on its own stack,
// handing leaves back through a continuation.
struct walker {
    ctx::continuation self;
    ctx::continuation back;
    int value = 0;
    bool done = false;
    void walk(const bench::node* n) {
        if (n->leaf()) {
            value = n->value;
            back = back.resume();
            return;
        }
        walk(n->left);
        walk(n->right);
    }
    explicit walker(const bench::node* root) {
        self = ctx::callcc([this, root](ctx::continuation&& caller) {
            back = std::move(caller);
            back = back.resume();  // wait for the first request
            walk(root);
            done = true;
            return std::move(back);
        });
    }
    bool next() {
        self = self.resume();
        return !done;
    }
};

bool same_fringe(const bench::node* a, const bench::node* b) {
    walker wa(a), wb(b);
    for (;;) {
        bool ha = wa.next(), hb = wb.next();
        if (ha != hb) return false;
        if (!ha) return true;
        if (wa.value != wb.value) return false;
    }
}

void same_fringe_bench(const bench::options& o, const char* workload, int leaves, int reps) {
    auto a = bench::make_tree(leaves, true);
    auto b = bench::make_tree(leaves, false);
    volatile bool sink = false;
    char extra[48];
    std::snprintf(extra, sizeof extra, ",\"leaves\":%d", leaves);
    bench::measure(suite, workload, "boost_context", o.runs(15), long(leaves) * reps, [&] {
        bool all = true;
        for (int r = 0; r < reps; ++r) all &= same_fringe(a.root, b.root);
        if (!all) std::abort();
        sink = all;
    }, extra);
    (void)sink;
}

void spawn_complete(const bench::options& o) {
    const long n = 20'000;
    bench::measure(suite, "spawn_complete", "std_thread", o.runs(7), n, [&] {
        for (long i = 0; i < n; ++i) {
            std::thread t([] {});
            t.join();
        }
    });
}

}  // namespace

int main(int argc, char** argv) {
    auto o = bench::parse(argc, argv);
    if (o.wants("yield_roundtrip")) yield_roundtrip(o);
    if (o.wants("generator_1m")) generator_1m(o);
    if (o.wants("same_fringe")) same_fringe_bench(o, "same_fringe", 8, 100'000);
    if (o.wants("same_fringe_large")) same_fringe_bench(o, "same_fringe_large", 1 << 16, 8);
    if (o.wants("spawn_complete")) spawn_complete(o);
}
