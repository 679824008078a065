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
// Release builds compile the checks away (the wake path stays as fast):
// callers write `if constexpr (check_executor_only) check_...(...)`, so
// that not even the arguments (a name loaded from the object) are
// evaluated; GCC otherwise hoisted one such load into spawn's fast path.
#include <weft/core/detail/bounded_text.hpp>
#include <weft/core/detail/one_running_thread.hpp>
#include <weft/port/port.hpp>

namespace weft::detail {

#ifdef NDEBUG
inline constexpr bool check_executor_only = false;
#else
inline constexpr bool check_executor_only = true;
#endif

[[noreturn, gnu::noinline, gnu::cold]] inline void executor_only_misused(const char* kind, const char* name,
                                                                       const char* what,
                                                                       bool from_handler) noexcept {
    char text[320];
    bounded_text t{text, sizeof text};
    t.put("weft: ");
    if (name) t.put(kind).put(" '").put(name).put("': ");
    t.put(what).put(from_handler ? " from an interrupt handler" : " from a thread other than the executor's")
        .put(": only the executor's own thread may do that; hand the work over with executor::post, "
             "split_phase::complete or a driver connected to a channel (docs/core.md, Known limits)");
    port::fatal(text);
}

/// `what` on the object `kind` `name` (no prefix if name is nullptr),
/// whose executor is inside run() on some thread when `running` is true.
[[gnu::always_inline]] inline void check_executor_only_call(const char* kind, const char* name, const char* what,
                                                            bool running) noexcept {
    if constexpr (check_executor_only) {
        if (port::in_handler()) executor_only_misused(kind, name, what, true);
        if constexpr (!port::single_core) {
            if (running && !one_running_thread::on_this_thread()) executor_only_misused(kind, name, what, false);
        }
    }
}

/// The executor inside run() on some thread, or nullptr. One-core ports
/// have no other thread (and no one_running_thread): always nullptr.
inline const char* executor_running() noexcept {
    if constexpr (port::single_core) return nullptr;
    else return one_running_thread::running_name();
}

/// For an object that does not know its executor (an event, a channel):
/// from a handler, or from a thread while an executor runs on another one.
[[gnu::always_inline]] inline void check_executor_only_call(const char* kind, const char* name,
                                                            const char* what) noexcept {
    if constexpr (check_executor_only) check_executor_only_call(kind, name, what, executor_running() != nullptr);
}

/// A coroutine frame (the pools every executor shares): named after the
/// executor that runs, if one does.
[[gnu::always_inline]] inline void check_frame_creation() noexcept {
    if constexpr (check_executor_only) {
        const char* running = executor_running();
        check_executor_only_call("executor", running, "created a coroutine", running != nullptr);
    }
}

}  // namespace weft::detail
