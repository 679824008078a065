// SPDX-License-Identifier: Apache-2.0
// `bare_coroutine` (runs.hpp): the switches of yield_roundtrip and
// generator_1m as plain C++20 coroutines with no scheduler, no pool and no
// bookkeeping, i.e. what the compiler's coroutine lowering alone costs, the
// floor under any stackless runtime built with this compiler. Built as weft
// is (no exceptions, no RTTI).
//
// Clang 14 does not make these two yielders' symmetric transfer a tail
// call (no musttail in the IR, with or without exceptions, at -O1 to -O3):
// each switch nests a call and 4 million overflow the stack. Its coroutine
// pass adds the tail call only where a ret is sure to follow the resume
// after its own ad hoc folding (LLVM replaced that search in 2024). weft's
// transfers are tail calls there (tests/core: task.long_await_chains_do_not_grow_the_stack,
// yields in every test); this one is not, so Clang builds have no bare
// yield row.
#include <coroutine>
#include <cstdlib>

#include "runs.hpp"

namespace {

using bench::core::fringe_inputs;

// The frame's address escapes, so that Clang cannot elide the frame into
// the caller and fold the loop away (CoroElide: 0.08 ns per element).
void escape(void* p) { asm volatile("" : : "r"(p) : "memory"); }

// --- yield_roundtrip: a switch is one resume, nothing else. The frames
// come from operator new (about a microsecond of a run of milliseconds);
// the loop bodies are those of weft_runs.cpp's yielder and counter.
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

constexpr long bare_yields_per_task = 2'000'000;  // as weft's yielders

[[maybe_unused]] void bare_yield_run(const fringe_inputs&) {  // not on Clang (above)
    bare_task a = bare_yielder(bare_yields_per_task), b = bare_yielder(bare_yields_per_task);
    escape(a.h.address());
    escape(b.h.address());
    a.h.promise().other = b.h;
    b.h.promise().other = a.h;
    a.h.resume();  // returns when a reaches its final suspend
    if (!a.h.done()) std::abort();
    a.h.destroy();
    b.h.destroy();
}

// --- generator_1m
constexpr long generated = 1'000'000;
volatile long long_sink;

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

void bare_generator_run(const fringe_inputs&) {
    bare_generator gen = bare_counter(generated);
    escape(gen.h.address());
    long s = 0;
    for (;;) {
        gen.h.resume();
        if (gen.h.done()) break;
        s += gen.h.promise().value;
    }
    gen.h.destroy();
    long_sink = s;
}

using namespace bench::core;
const timed_run runs[] = {
#ifndef __clang__
    {"yield_roundtrip", "bare_coroutine", 2 * bare_yields_per_task, 15, "", bare_yield_run},
#endif
    {"generator_1m", "bare_coroutine", generated, 25, "", bare_generator_run},
};

}  // namespace

bench::core::run_table bench::core::bare_runs() { return {runs, sizeof runs / sizeof runs[0]}; }
