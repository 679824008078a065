// SPDX-License-Identifier: Apache-2.0
// Configure-time probe (cmake/compiler_checks.cmake): does this compiler
// run a co_await in an `if` condition of a coroutine that declares no local
// variable? GCC 12.2 does not: the call site and the coroutine's body
// disagree on the frame's layout, and the first resume lands elsewhere.
// Exit status 0: the compiler is fine.
#include <coroutine>

struct probe_task {
    struct promise_type {
        probe_task get_return_object() { return {std::coroutine_handle<promise_type>::from_promise(*this)}; }
        std::suspend_always initial_suspend() noexcept { return {}; }
        std::suspend_always final_suspend() noexcept { return {}; }
        void return_void() noexcept {}
        void unhandled_exception() noexcept {}
    };
    std::coroutine_handle<promise_type> h;
};

struct suspend_once {
    bool await_ready() noexcept { return false; }
    void await_suspend(std::coroutine_handle<>) noexcept {}
    bool await_resume() noexcept { return true; }
};

int reached = 0;

probe_task no_locals() {
    if (co_await suspend_once{}) reached = 1;
}

int main() {
    probe_task t = no_locals();
    t.h.resume();  // to the co_await
    t.h.resume();  // through it
    const bool ok = reached == 1 && t.h.done();
    t.h.destroy();
    return ok ? 0 : 1;
}
