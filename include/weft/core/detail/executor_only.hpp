// SPDX-License-Identifier: Apache-2.0
#pragma once
// Debug builds: stops the program when a call only the executor's own
// thread may make comes from somewhere else. Waking a task (event::set,
// semaphore::release, a channel's send or recv meeting a waiter, spawn)
// edits the executor's ready queue, and creating a coroutine edits the
// process-wide frame pools; from an interrupt handler, or from a host
// thread while an executor runs on another, either races with the
// executor and fails much later (a lost wake, a frame handed out twice),
// far from its cause. What may come from there instead: executor::post,
// split_phase::complete, a driver connected to a channel.
// Release builds compile the checks away (the wake path stays as fast).
#include <weft/core/detail/bounded_text.hpp>
#include <weft/core/detail/one_running_thread.hpp>
#include <weft/port/port.hpp>

namespace weft::detail {

#ifdef NDEBUG
inline constexpr bool check_executor_only = false;
#else
inline constexpr bool check_executor_only = true;
#endif

[[noreturn, gnu::noinline, gnu::cold]] inline void executor_only_misused(const char* what, const char* executor,
                                                                       bool from_handler) noexcept {
    char text[320];
    bounded_text t{text, sizeof text};
    t.put("weft: ");
    if (executor) t.put("executor '").put(executor).put("': ");
    t.put(what).put(from_handler ? " from an interrupt handler" : " from a thread that is not running it")
        .put(": only the executor's own thread may do that; hand the work over with executor::post, "
             "split_phase::complete or a driver connected to a channel (docs/core.md, Known limits)");
    port::fatal(text);
}

/// `what` on the executor called `executor` (nullptr: whichever runs),
/// which is inside run() on some thread when `running` is true.
[[gnu::always_inline]] inline void check_executor_only_call(const char* what, const char* executor,
                                                            bool running) noexcept {
    if constexpr (check_executor_only) {
        if (port::in_handler()) executor_only_misused(what, executor, true);
        if constexpr (!port::single_core) {
            if (running && !one_running_thread::on_this_thread()) executor_only_misused(what, executor, false);
        }
    }
}

/// For what touches every executor's state at once (the frame pools): a
/// thread other than the one inside an executor's run().
[[gnu::always_inline]] inline void check_executor_only_call(const char* what) noexcept {
    if constexpr (check_executor_only) {
        if constexpr (port::single_core) {
            check_executor_only_call(what, nullptr, false);
        } else {
            const char* running = one_running_thread::running_name();
            check_executor_only_call(what, running, running != nullptr);
        }
    }
}

}  // namespace weft::detail
