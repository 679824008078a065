// SPDX-License-Identifier: Apache-2.0
// The compiler's floor on the board (bench/run target-core, system
// "bare_coroutine"): core_bench's yield_roundtrip done by two plain C++20
// coroutines that resume each other by symmetric transfer, with no
// executor, ready queue or control block. Whatever a stackless runtime
// built with this compiler adds to a switch comes on top of this count.
// Method as in core_bench.cpp (instr_report.hpp).
#include <weft/port/port.hpp>

#include <coroutine>
#include <cstddef>
#include <cstdint>

#include "instr_report.hpp"

namespace {

// Frames from a static arena: the firmware links no heap.
alignas(8) unsigned char arena[512];
std::size_t arena_used = 0;

struct bare_task {
    struct promise_type {
        std::coroutine_handle<> other;  // whom a switch resumes
        static void* operator new(std::size_t n) noexcept {
            n = (n + 7) & ~std::size_t{7};
            if (arena_used + n > sizeof arena) return nullptr;
            void* p = arena + arena_used;
            arena_used += n;
            return p;
        }
        static void operator delete(void*) noexcept {}
        static bare_task get_return_object_on_allocation_failure() noexcept { return {}; }
        bare_task get_return_object() noexcept { return {std::coroutine_handle<promise_type>::from_promise(*this)}; }
        std::suspend_always initial_suspend() noexcept { return {}; }
        std::suspend_always final_suspend() noexcept { return {}; }
        void return_void() noexcept {}
        void unhandled_exception() noexcept {}
    };
    std::coroutine_handle<promise_type> h;
};

struct switch_to_other {
    bool await_ready() const noexcept { return false; }
    std::coroutine_handle<> await_suspend(std::coroutine_handle<bare_task::promise_type> h) noexcept {
        return h.promise().other;
    }
    void await_resume() const noexcept {}
};

// The loop of core_bench.cpp's yielder.
bare_task bare_yielder(int n) {
    for (int i = 0; i < n; ++i) co_await switch_to_other{};
}

// An op is one switch, as in core_bench's yield_roundtrip.
std::uint64_t bare_yield_run(int n) {
    arena_used = 0;
    std::uint64_t t0 = weft::port::now_ns();
    bare_task a = bare_yielder(n), b = bare_yielder(n);
    if (!a.h || !b.h) weft::port::fatal("floor_bench: arena too small");
    a.h.promise().other = b.h;
    b.h.promise().other = a.h;
    a.h.resume();  // returns when a reaches its final suspend
    a.h.destroy();
    b.h.destroy();
    return weft::port::now_ns() - t0;
}

}  // namespace

int main() {
    bench_target::measure("target-core", "yield_roundtrip", bare_yield_run, 20000, 2, "", "bare_coroutine");
    return 0;
}
