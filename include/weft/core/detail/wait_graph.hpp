// SPDX-License-Identifier: Apache-2.0
#pragma once
// The wait-for graph between tasks, for refusing a wait that would
// deadlock: a task waits for another when it joins it, when it waits in
// when_all / when_any for its children, and when it waits for a lock, for
// the lock's owner (an edge the mutex registers). A join or a lock that
// would close a cycle ends at once with errc::cycle instead of blocking
// for ever. Nothing is stored for this: the edges are read from the wait
// node each blocked task already has.
#include <weft/core/detail/wait_node.hpp>
#include <weft/core/task_control.hpp>

#include <atomic>
#include <cstdint>

namespace weft::detail {

class task_group;

enum : std::uint8_t { join_finished = 1, join_detached = 2 };

/// A task's wait for another task's end (join_handle::join()). Not a
/// template, so that a join of any result type is recognised by its abort
/// function.
struct join_wait : wait_node {
    task_control* joiner = nullptr;
    task_control* target = nullptr;
    void* handle = nullptr;  // the join_handle joined; follows it when it moves
    errc outcome = errc::ok;

    /// The join `t` is blocked in, if it is blocked in one.
    static const join_wait* awaited_by(const task_control& t) noexcept {
        wait_node* w = t.current_wait();
        return w && w->abort == &on_abort ? static_cast<const join_wait*>(w) : nullptr;
    }
    /// Cancellation or a bound ends the join; the joined task goes on.
    static void on_abort(wait_node* w, errc why) noexcept {
        auto* self = static_cast<join_wait*>(w);
        self->target->done_context_ = nullptr;
        self->outcome = why;
        self->joiner->wake();
    }
};

/// The lock edge: the owner of the mutex `t` waits for, or nullptr. Set
/// by every mutex's constructor, so that a program without a mutex does
/// not link the mutex code into its joins; a lock wait needs a mutex, so
/// the edge is there before the first task can wait for a lock. Atomic:
/// hosts may construct mutexes on several threads (all store the same).
using wait_edge = const task_control* (*)(const task_control&) noexcept;
inline std::atomic<wait_edge> lock_owner_edge{nullptr};

/// Whether `o` is `c` or waits, through joined tasks, groups' children
/// and locks' owners, for `c`: then `c` waiting for `o` would deadlock.
/// The graph has no cycle (every wait that would close one is refused),
/// so this ends; it recurses only into groups' children. (`Group` is
/// task_group: a parameter so that the name is looked up where this is
/// used, after task_group.hpp, which includes task.hpp, which includes
/// this through join_handle.hpp.)
template <class Group = task_group>
bool wait_reaches(const task_control* o, const task_control& c) noexcept {
    const wait_edge lock_edge = lock_owner_edge.load(std::memory_order_relaxed);
    while (o) {
        if (o == &c) return true;
        if (const join_wait* j = join_wait::awaited_by(*o)) {
            o = j->target;
            continue;
        }
        if (const Group* g = Group::awaited_by(*o)) {
            bool found = false;
            g->for_each_running_child([&](const task_control& k) { found = found || wait_reaches<Group>(&k, c); });
            return found;
        }
        o = lock_edge ? lock_edge(*o) : nullptr;
    }
    return false;
}

}  // namespace weft::detail

// Last: task_group.hpp includes task.hpp, which may be what included us.
#include <weft/core/detail/task_group.hpp>
