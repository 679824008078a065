// SPDX-License-Identifier: Apache-2.0
#pragma once
// The per-task control block. It lives inside the root coroutine's promise
// (so inside the task's frame): a task costs no memory outside its frame.
// Nested coroutines awaited by a task share their root's control block.
//
//   (1) spawn ──> ready ──(2) resume──> running ──(3) await──> waiting
//                   ^                      │                      │
//                   └────(4) yield─────────┘                      │
//                   └────────────(5) woken / aborted──────────────┘
//                                 running ──(6) co_return──> finished
#include <weft/core/detail/bounded_text.hpp>
#include <weft/core/detail/wait_node.hpp>

#include <weft/port/port.hpp>

#include <coroutine>
#include <cstdint>

namespace weft {

class executor;

namespace detail {
/// What a task holds that must be given back before it ends (a mutex):
/// linked into its control block so that ending with one is reported by
/// name instead of leaving the lock owned by a dead task.
struct held_lock {
    held_lock* next_held = nullptr;
    const char* held_name;
};
/// Stops the program: a task ended holding `l`. Cold, out of line.
[[noreturn, gnu::noinline, gnu::cold]] inline void ended_holding(const held_lock& l) noexcept {
    // Built by hand (no printf in a firmware that never formats): the
    // message names the lock, and port::fatal takes one string.
    char text[96];
    bounded_text{text, sizeof text}
        .put("weft: a task ended holding mutex '")
        .put(l.held_name)
        .put("' (unlock it first; lock_guard does)");
    port::fatal(text);
}
}  // namespace detail

// Priority levels an executor provides (1 to 32). Each costs the executor
// two pointers (its ready queue's head and tail): 256 B for all 32 on a
// 32-bit core; an application that needs 4 levels builds with
// -DWEFT_PRIORITY_LEVELS=4 and spends 32 B (docs/core.md).
#ifndef WEFT_PRIORITY_LEVELS
#define WEFT_PRIORITY_LEVELS 32
#endif
static_assert(WEFT_PRIORITY_LEVELS >= 1 && WEFT_PRIORITY_LEVELS <= 32,
              "WEFT_PRIORITY_LEVELS must be 1 to 32 (one bit of the executor's ready bitmap each)");

/// Priority of a task: 0 (lowest) to max_priority (highest).
using priority = std::uint8_t;
inline constexpr priority max_priority = WEFT_PRIORITY_LEVELS - 1;

/// Scheduling state of one task (root coroutine and everything it awaits).
class task_control {
public:
    /// (3) Records where to resume and what, if anything, can be aborted.
    void park(std::coroutine_handle<> at, detail::wait_node* wait = nullptr) noexcept {
        resume_point_ = at;
        wait_ = wait;
    }
    /// (5) Makes the task ready again; the executor resumes resume_point_.
    /// Flattened: every hand-over wakes a task, and a second call into
    /// executor::schedule costs it a prologue, a branch and a return.
    [[gnu::flatten]] inline void wake() noexcept;

    /// Requests cancellation: the task's current await (if abortable) ends
    /// at once with errc::cancelled, and every later await does too. Runs on
    /// the executor; from an ISR use a split_phase or irq_node instead.
    void cancel() noexcept {
        if (cancel_requested_) return;
        cancel_requested_ = true;
        abort_wait(errc::cancelled);
    }
    /// Ends the current wait (if any) with `reason`.
    void abort_wait(errc reason) noexcept {
        if (detail::wait_node* w = wait_) {
            wait_ = nullptr;
            w->abort(w, reason);
        }
    }
    bool cancel_requested() const noexcept { return cancel_requested_; }
    /// The priority the task runs at now: its own, or higher while it holds
    /// a mutex a higher-priority task waits for (mutex.hpp).
    priority prio() const noexcept { return priority_; }
    /// The priority it was spawned with.
    priority base_prio() const noexcept { return base_priority_; }
    executor& exec() const noexcept { return *executor_; }
    detail::wait_node* current_wait() const noexcept { return wait_; }

    // --- used by the executor and the completion hooks ---
    task_control* next_ready_ = nullptr;
    std::coroutine_handle<> resume_point_;
    executor* executor_ = nullptr;
    detail::wait_node* wait_ = nullptr;
    /// Called when the root coroutine finishes (6); may destroy the frame.
    void (*on_done_)(task_control* self, std::coroutine_handle<> root) noexcept = nullptr;
    void* done_context_ = nullptr;  // owner of on_done_ (join state, when_all, ...)
    priority priority_ = 0;       // effective: what the ready queues use
    priority base_priority_ = 0;  // own; priority_ differs only while inheriting
    bool cancel_requested_ = false;
    std::uint8_t flags_ = 0;  // join state, see join_handle
    /// Locks held now, the latest first (mutex.hpp).
    detail::held_lock* held_ = nullptr;
};

}  // namespace weft
