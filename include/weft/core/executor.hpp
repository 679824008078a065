// SPDX-License-Identifier: Apache-2.0
#pragma once
// The executor: one per core. Ready queues (one FIFO per priority and a
// bitmap, so the next task is found in O(1)), a timer heap, and the
// interrupt hand-off. It sleeps in the port when nothing is ready.
#include <weft/core/detail/executor_only.hpp>
#include <weft/core/detail/one_running_thread.hpp>
#include <weft/core/detail/timer_heap.hpp>
#include <weft/core/interrupt_queue.hpp>
#include <weft/core/result.hpp>
#include <weft/core/task_control.hpp>
#include <weft/core/time.hpp>
#include <weft/port/port.hpp>

#include <atomic>
#include <bit>
#include <cstdint>
#include <type_traits>

namespace weft {

template <class T> class task;
template <class T> class join_handle;

namespace detail {
/// A mutex's link in its executor's list of contended locks (mutex.hpp).
struct lock_link {
    lock_link* next_contended = nullptr;
};
/// Stops the program: run() was entered again, from one of the tasks it
/// runs (or from a second thread). Cold, out of line.
[[noreturn, gnu::noinline, gnu::cold]] inline void run_reentered(const char* name) noexcept {
    fatal_error(error{errc::busy, "executor", name, 0, "run() called while it is running (from one of its tasks?)"});
}
/// Stops the program: external_end() without a matching external_begin()
/// (the count would wrap, and run() would never report `stalled`).
[[noreturn, gnu::noinline, gnu::cold]] inline void unbalanced_external(const char* name) noexcept {
    fatal_error(error{errc::invalid, "executor", name, 0, "external_end() without a matching external_begin()"});
}
/// An object outside the executor's tasks that keeps nodes in it (a
/// reactor program's alarm and wake-up node) and so has to know, when it
/// is destroyed first, whether the executor still exists. Hosts only
/// (executor_users below): a board destroys neither.
struct executor_user {
    executor_user* next_user = nullptr;
    void (*executor_gone)(executor_user*) noexcept = nullptr;
};
/// The executor's list of users: its destructor tells each that it is
/// gone, so that a user destroyed later does not touch it.
class executor_users {
public:
    executor_users() noexcept = default;
    executor_users(const executor_users&) = delete;
    executor_users& operator=(const executor_users&) = delete;
    ~executor_users() {
        while (executor_user* u = head_) {
            head_ = u->next_user;
            u->executor_gone(u);
        }
    }
    void add(executor_user& u) noexcept {
        u.next_user = head_;
        head_ = &u;
    }
    void remove(executor_user& u) noexcept {
        for (executor_user** p = &head_; *p; p = &(*p)->next_user)
            if (*p == &u) { *p = u.next_user; return; }
    }

private:
    executor_user* head_ = nullptr;
};
/// Boards: nothing is destroyed, nothing to tell (no bytes, no destructor).
struct no_executor_users {
    static void add(executor_user&) noexcept {}
    static void remove(executor_user&) noexcept {}
};
}  // namespace detail

/// Where the executor's notion of time comes from.
enum class clock_mode : std::uint8_t {
    real,     ///< the port's monotonic clock; idle means sleeping in the port
    virtual_  ///< starts at 0 and jumps to the next timer when idle (tests)
};

struct executor_config {
    const char* name = "executor";
    clock_mode clock = clock_mode::real;
};

/// Why run() returned.
enum class run_outcome : std::uint8_t {
    completed,  ///< every spawned task finished
    stopped,    ///< request_stop() was called
    stalled     ///< virtual clock only: tasks wait but nothing can wake them
};

/// "completed", "stopped" or "stalled", as to_string(errc) names codes.
constexpr const char* to_string(run_outcome o) noexcept {
    switch (o) {
        case run_outcome::completed: return "completed";
        case run_outcome::stopped: return "stopped";
        case run_outcome::stalled: return "stalled";
    }
    return "?";
}

class executor;

/// A hold on an executor's virtual clock (executor::hold_time()): time
/// stands still until every hold is released. Movable; releases in its
/// destructor or at release(), from any thread, before the executor is
/// destroyed (it points at it).
class [[nodiscard]] time_hold {
public:
    time_hold(time_hold&& o) noexcept : ex_(o.ex_) { o.ex_ = nullptr; }
    time_hold& operator=(time_hold&& o) noexcept {
        if (this != &o) { release(); ex_ = o.ex_; o.ex_ = nullptr; }
        return *this;
    }
    time_hold(const time_hold&) = delete;
    time_hold& operator=(const time_hold&) = delete;
    ~time_hold() { release(); }
    /// Lets time move again (if no other hold is taken). Idempotent.
    inline void release() noexcept;

private:
    friend class executor;
    explicit time_hold(executor& ex) noexcept : ex_(&ex) {}
    executor* ex_;
};

class executor {
public:
    // head_/tail_ are deliberately left uninitialised: a level's slots are read only
    // while its bitmap bit is set, and zeroing 64 slots costs a memset (and
    // newlib's 162-byte memset on the board) for nothing.
    explicit executor(executor_config cfg = {}) noexcept : cfg_(cfg) {}
    executor(const executor&) = delete;
    executor& operator=(const executor&) = delete;

    const char* name() const noexcept { return cfg_.name; }
    clock_mode mode() const noexcept { return cfg_.clock; }

    /// Current time on this executor's clock.
    time_point now() const noexcept {
        return from_ns(cfg_.clock == clock_mode::real ? port::now_ns() : virtual_now_);
    }

    /// Starts `t` as an independent task at priority `p`. Fails with the
    /// frame pool's error if the task's frame could not be allocated, and
    /// with `invalid` naming the executor if `p` is above max_priority.
    /// `p` is taken wide (not as a `priority` byte), so that 257 or -1 is
    /// refused instead of silently narrowed to 1 or 255.
    /// Does not allocate. Defined in join_handle.hpp.
    template <class T>
    result<join_handle<T>> spawn(task<T>&& t, unsigned p = 0) noexcept;

    /// Runs tasks until all have finished or request_stop() is called.
    /// Not from one of its own tasks: a nested run() would resume tasks
    /// inside the caller's frame, and its return would leave them mid-way.
    /// Hosts, and boards in Debug builds, stop the program there, naming
    /// the executor. Hosts also stop it when another thread is inside an
    /// executor's run() (detail/one_running_thread.hpp): frame pools are
    /// process-wide and not synchronised.
    run_outcome run() noexcept {
        if constexpr (check_misuse) {
            if (running_) detail::run_reentered(cfg_.name);
            running_ = true;
            // One-core ports have no second thread to check for.
            if constexpr (!port::single_core) detail::one_running_thread::enter(cfg_.name);
            const run_outcome o = run_watched();
            if constexpr (!port::single_core) detail::one_running_thread::leave();
            running_ = false;
            return o;
        }
        return run_watched();
    }

    /// Asks run() to return at its next scheduling point.
    /// Interrupt-safe and callable from a foreign thread.
    void request_stop() noexcept {
        stop_.store(true, std::memory_order_relaxed);
        // The node makes the interrupt queue non-empty, which is the one
        // thing the yield fast path checks besides the timers; its handler
        // does nothing (run() reads stop_ after draining). Already queued:
        // a stop is on its way anyway.
        (void)irqs_.post(stop_node_);
        waker_.notify();
    }

    /// Queues `n` so that its handler runs on this executor, and wakes the
    /// executor. Interrupt-safe (from handlers the port's critical section
    /// masks: not an NMI), lock-free or, on a one-core port, a few
    /// instructions masked; does not allocate. False if `n` is still
    /// queued from an earlier post.
    bool post(irq_node& n) noexcept {
        bool ok = irqs_.post(n);
        waker_.notify();
        return ok;
    }

    /// Executor thread only, once nothing can post `n` any more: unqueues
    /// it (its handler will not run) so that its owner can be destroyed.
    bool withdraw_post(irq_node& n) noexcept { return irqs_.withdraw(n); }

    /// post() from the executor thread for a node whose handler must run
    /// after the next task, not later in the batch run() is draining (a
    /// handler that gives the tasks ready now their turn first): taken out
    /// of that batch if it is there, then posted.
    void post_next_turn(irq_node& n) noexcept {
        irqs_.leave_batch(n);
        (void)post(n);
    }

    /// post() for nodes whose owner guarantees they are never queued twice
    /// (split_phase): no `queued` flag. Interrupt-safe as post().
    void post_unique(irq_node& n) noexcept {
        irqs_.push(n);
        waker_.notify();
    }

    /// Makes a task ready (FIFO within its priority). Executor thread only
    /// (Debug builds stop the program otherwise: detail/executor_only.hpp).
    void schedule(task_control& t) noexcept {
        if constexpr (detail::check_executor_only)
            detail::check_executor_only_call("executor", cfg_.name, "woke a task", running_);
        const unsigned level = t.priority_;
        const std::uint32_t bit = 1u << level;
        // Behind the tail, or as the head of an empty level (whose slots
        // hold garbage until now).
        if constexpr (port::small_code) {
            // In-order core: a select and unconditional stores are fewer
            // instructions than the branch GCC would if-convert anyway.
            task_control** link = (bitmap_ & bit) ? &tail_[level]->next_ready_ : &head_[level];
            *link = &t;
            bitmap_ |= bit;
        } else if (bitmap_ & bit) {
            // Out-of-order core: a branch, so that the store's address is
            // known early; a computed one made the next pop's load of the
            // head wait or replay (ThreadRing +20 % with Clang).
            tail_[level]->next_ready_ = &t;
        } else {
            head_[level] = &t;
            if constexpr (cache_front) front_[level] = t.resume_point_;
            bitmap_ |= bit;
        }
        tail_[level] = &t;
    }

    /// Makes `p` the priority `t` runs at (its effective priority; its
    /// own, base_prio(), stays). A task waiting in a ready queue moves to
    /// level `p`'s: to the back if raised, to the front if lowered (the
    /// POSIX rule: a lift that came and went costs it no place to tasks
    /// that became ready after it). Found by walking its old level, so this
    /// costs at most one step per task ready at that level. A running or
    /// blocked task is only relabelled: its next wake queues it at `p`.
    /// Executor thread only; mutexes use it for priority inheritance.
    void reprioritise(task_control& t, priority p) noexcept {
        const unsigned level = t.priority_;
        if (level == p) return;
        t.priority_ = p;
        if (!(bitmap_ & (1u << level))) return;
        task_control* prev = nullptr;
        for (task_control* c = head_[level];; prev = c, c = c->next_ready_) {
            if (c == &t) break;
            if (c == tail_[level]) return;  // not queued here
        }
        if (&t == tail_[level]) {
            if (!prev) bitmap_ &= ~(1u << level);  // it was the level's only task
            else tail_[level] = prev;
        } else if (prev) {
            prev->next_ready_ = t.next_ready_;
        } else {
            head_[level] = t.next_ready_;
            if constexpr (cache_front) front_[level] = head_[level]->resume_point_;
        }
        if (p > level) {
            schedule(t);
            return;
        }
        const std::uint32_t bit = 1u << p;
        if (bitmap_ & bit) t.next_ready_ = head_[p];
        else tail_[p] = &t;
        head_[p] = &t;
        if constexpr (cache_front) front_[p] = t.resume_point_;
        bitmap_ |= bit;
    }

    /// Head of the list of mutexes that tasks of this executor wait for,
    /// each linked once (mutex.hpp keeps it): what an owner's inherited
    /// priority is computed from. Executor thread only.
    detail::lock_link*& contended_locks() noexcept { return contended_locks_; }

    /// For an irq_node handler whose last action is waking `t`: when
    /// nothing else would run before `t` anyway (no node left in the batch
    /// run() is draining, no newer post, no timer, no stop request, no
    /// ready task at `t`'s priority or above), resumes `t` right here
    /// instead of queueing it and returning to run(). Otherwise, and when
    /// called from anywhere but a handler run by run() itself, the same as
    /// `t.wake()`. The resumed task runs one call deeper than from run();
    /// the depth is bounded: wakes from inside it are queued as usual.
    /// Executor thread only.
    void wake_from_handler(task_control& t) noexcept {
        t.wait_ = nullptr;
        if (in_drain_ && irqs_.batch_done() && (bitmap_ >> t.priority_) == 0 && !needs_loop() &&
            !stop_.load(std::memory_order_relaxed)) {
            in_drain_ = false;
            t.resume_point_.resume();
            return;
        }
        schedule(t);
    }

    /// The yield path (transition 4): requeues the running task `t` and
    /// returns what to resume. When `t`'s level is the highest ready one and
    /// no timer or interrupt (or stop request, which posts one) needs run(),
    /// the front task of that level runs next by symmetric transfer: t goes
    /// behind the tail, the head comes off, no return to run().
    [[gnu::always_inline]] std::coroutine_handle<> yield_from(task_control& t) noexcept {
        const unsigned level = t.priority_;
        if (level_alone_ready(level)) {
            // Same result as schedule(t) then pop_ready(), without branches:
            // link t after the tail, then unlink the head. With a single
            // other task (head == tail) the first store makes head->next
            // point to t, so t becomes the head, as it must.
            task_control* head = head_[level];
            tail_[level]->next_ready_ = &t;
            tail_[level] = &t;
            task_control* next = head->next_ready_;
            head_[level] = next;
            if constexpr (cache_front) {
                std::coroutine_handle<> run = front_[level];
                front_[level] = next->resume_point_;
                return run;
            }
            return head->resume_point_;
        }
        return yield_slow(t);
    }

    /// True when nothing but an interrupt (or a foreign thread) could give
    /// the executor work: no task ready, no interrupt node queued, and no
    /// timer, except on the real clock, where a running task may wait for
    /// the next deadline in the port as run() would (the virtual clock
    /// jumps to it instead). The running task's own thread only.
    [[gnu::always_inline]] bool idle_now() const noexcept {
        return bitmap_ == 0 && !irqs_.maybe_pending() && (timers_.empty() || cfg_.clock == clock_mode::real);
    }
    /// After idle_now(): the running task sleeps in the port, as run()
    /// would, until a notify() or the next timer's deadline, then returns
    /// still_idle(). Wakes may be spurious: check the awaited condition.
    [[gnu::always_inline]] bool wait_in_place() noexcept {
        if (!timers_.empty()) return wait_in_place_until_timer();
        // No timer: the port's wait for a notify is inline, and no timer
        // can have been armed meanwhile (only this thread arms them).
        return wait_in_place_for([] { return false; });
    }
    /// wait_in_place() without a timer armed (timer_armed() false) that
    /// also ends once ready() is true: the port's waker::wait(), so on a
    /// single-core port a handler that makes ready() true needs no notify().
    template <class Ready>
    [[gnu::always_inline]] bool wait_in_place_for(Ready ready) noexcept {
        waker_.wait(ready);
        return !irqs_.maybe_pending();
    }
    /// False once an interrupt node is queued or a timer is due, i.e. once
    /// run() has work that may come first. (No task can have become ready
    /// while a task waits in place: only the executor's thread schedules,
    /// and it is the one waiting.)
    [[gnu::always_inline]] bool still_idle() const noexcept {
        if constexpr (port::has_alarm) return !irqs_.maybe_pending() && !timer_due_;  // the flag says "due"
        return !irqs_.maybe_pending() && (timers_.empty() || port::now_ns() < timers_.next_deadline());
    }
    /// True while a timer is armed: after idle_now(), a wait in place then
    /// lasts at most until its deadline (real clock only). Executor
    /// thread only.
    bool timer_armed() const noexcept { return !timers_.empty(); }
    /// Ends a wait_in_place() (or run()'s next sleep: the wake is latched).
    /// Interrupt-safe and callable from a foreign thread.
    void notify() noexcept { waker_.notify(); }

    /// Timer queue (executor thread only). erase is a no-op if not armed.
    void arm(detail::timer_node& n) noexcept {
        timers_.push(n);
        // Perhaps a new earliest timer: the loop's next look at the clock
        // watches it (or fires it, if due already). Not tested here: every
        // arm site would carry the test, for one look at the clock saved.
        if constexpr (port::has_alarm) timer_due_ = true;
    }
    void disarm(detail::timer_node& n) noexcept { timers_.erase(n); }

    /// Counts operations an ISR or foreign thread will complete (armed
    /// split_phase operations, simulated interrupt sources). With the
    /// virtual clock, run() reports `stalled` only when this is zero.
    /// Either from any thread; a thread that posts its work and then ends
    /// its count is seen in that order (see idle()).
    void external_begin() noexcept { external_.fetch_add(1, std::memory_order_relaxed); }
    void external_end() noexcept {
        const std::uint32_t before = external_.fetch_sub(1, cross_thread_release);
        if constexpr (check_misuse) {  // hosts; boards in Debug builds
            if (before == 0) [[unlikely]] detail::unbalanced_external(cfg_.name);
        }
    }
    /// The same count for waits armed and ended on the executor thread
    /// only (split_phase): a plain counter, no atomic read-modify-write.
    void armed_begin() noexcept { ++armed_; }
    void armed_end() noexcept { --armed_; }

    /// Virtual clock only (a no-op on the real clock): moves time forward by
    /// `d` as if the running code had taken that long. Lets tests simulate
    /// execution time (e.g. a reaction that misses its deadline). Stops at
    /// the end of time (`time_point::max()`): the clock never wraps to
    /// before its epoch. Executor thread only.
    void advance(duration d) noexcept {
        if (cfg_.clock == clock_mode::virtual_ && d.count() > 0) {
            virtual_now_ = std::uint64_t(later(std::int64_t(virtual_now_), d.count()));
            if constexpr (port::has_alarm) timer_due_ = true;  // time moved: the loop looks
        }
    }

    /// Virtual clock: holds time still until the returned hold is released.
    /// While a hold is taken, an idle executor sleeps in the port until a
    /// post, a completion or the last hold's release, instead of jumping to
    /// its next timer. Meant for tests in which a foreign thread (a
    /// simulated device) works in real time on something a task awaits
    /// under a bound: without a hold, virtual time jumps to the bound while
    /// the thread works, and the bound expires at once. Take it before the
    /// executor could go idle (in the task that starts the work, handing it
    /// to the thread), release it once the work is delivered. No effect on
    /// the real clock. Any thread. Hosts only: on a single-core port only
    /// interrupt handlers complete work, and they run in no time.
    template <bool ForeignThreads = !port::single_core>
    time_hold hold_time() noexcept {
        static_assert(ForeignThreads, "hold_time(): no foreign threads on a single-core port");
        holds_.fetch_add(1, std::memory_order_relaxed);
        return time_hold{*this};
    }

    /// Registers (hosts; nothing on boards) an object that keeps nodes in
    /// this executor beyond its tasks, to be told if the executor is
    /// destroyed first (a reactor program: environment.hpp). Executor
    /// thread only, as are the nodes it keeps.
    void add_user(detail::executor_user& u) noexcept { users_.add(u); }
    void remove_user(detail::executor_user& u) noexcept { users_.remove(u); }

    /// Number of spawned tasks that have not finished.
    std::uint32_t live_tasks() const noexcept { return live_; }

    // --- used by spawn / task completion ---
    void task_started() noexcept { ++live_; }
    void task_finished() noexcept { --live_; }

private:
    // With the port's alarm, run() owns the alarm while it runs (the
    // innermost of nested runs): the alarm sets timer_due_ when the
    // earliest timer is due, and the loop looks at the clock only then.
    [[gnu::always_inline]] run_outcome run_watched() noexcept {
        if constexpr (port::has_alarm) {
            volatile bool* outer = port::set_alarm_flag(&timer_due_);
            timer_due_ = !timers_.empty();  // armed before run(): fire the due ones, watch the next
            const run_outcome o = run_loop();
            (void)port::set_alarm_flag(outer);
            // The executor whose task ran this one looks at its timers
            // again: the alarm served this one meanwhile.
            if (outer) *outer = true;
            return o;
        }
        return run_loop();
    }

    // run()'s loop; inlined into it.
    [[gnu::always_inline]] run_outcome run_loop() noexcept {
        for (;;) {
            if (irqs_.maybe_pending()) {
                in_drain_ = true;
                irqs_.drain();
                // A handler resumed its task right in the drain
                // (wake_from_handler clears the flag): what was posted
                // while that task ran is drained before anything else.
                // Otherwise one drain per turn, so that a flood of
                // interrupts cannot keep tasks from running.
                if (!in_drain_) continue;
                in_drain_ = false;
                // Only after a drain: request_stop() posts its node after
                // setting the flag, so the drain that takes the node sees
                // it (and no handler resumes a task inline meanwhile).
                // Consumed here, not cleared on entry: a stop requested
                // before run() (by another thread, an ISR) is not lost.
                if (stop_.load(std::memory_order_relaxed)) {
                    stop_.store(false, std::memory_order_relaxed);
                    return run_outcome::stopped;
                }
            }
            if constexpr (port::has_alarm) {
                if (timer_due_) {
                    timer_due_ = false;
                    fire_timers();
                }
            } else if (!timers_.empty()) {
                fire_timers();  // without an alarm only the clock tells
            }
            if (bitmap_ != 0) {
                pop_ready().resume();
                continue;
            }
            if (live_ == 0) return run_outcome::completed;
            if (!idle()) return run_outcome::stalled;
        }
    }

    // Precondition: bitmap_ != 0. Each level is a singly linked FIFO with
    // head and tail: the next task to run is one load from the executor
    // (its head), not two (a ring reached through its tail), which is one
    // dependent load less per switch, and the one a switch waits for on an
    // out-of-order core. Popping needs no branch: a level that empties
    // leaves garbage in its head, and its bit goes.
    std::coroutine_handle<> pop_ready() noexcept {
        const unsigned level = 31u - unsigned(std::countl_zero(bitmap_));
        task_control* head = head_[level];
        task_control* next = head->next_ready_;  // garbage when head == tail: the bit goes
        head_[level] = next;
        const bool last = head == tail_[level];
        bitmap_ &= ~(std::uint32_t(last) << level);
        // The next task's control block sits at the start of its frame,
        // which it touches first when it runs: fetched while this one runs.
        // With 100 or more tasks the ready queue cycles through more
        // frames than L1 holds (Savina Big -5 % with GCC, -7 % with
        // Clang). Unconditional: when this was the level's last task,
        // `next` is a stale link, harmless to prefetch, and testing for
        // it was slower. Microcontroller ports (small_code) have no data
        // cache to fetch into.
        if constexpr (!port::small_code) __builtin_prefetch(next);
        if constexpr (cache_front) {
            std::coroutine_handle<> run = front_[level];
            if (!last) front_[level] = next->resume_point_;
            return run;
        }
        return head->resume_point_;
    }

    // Out of line: the rare half of yield_from (a timer, an interrupt or a
    // higher level is waiting, or t is alone).
    [[gnu::noinline]] std::coroutine_handle<> yield_slow(task_control& t) noexcept {
        schedule(t);
        if (needs_loop()) return std::noop_coroutine();
        return pop_ready();
    }

    [[gnu::noinline]] bool wait_in_place_until_timer() noexcept {
        sleep_in_port();
        return still_idle();
    }

    static void on_stop_node(irq_node*) noexcept {}

    void fire_timers() noexcept {
        std::uint64_t now = to_ns(this->now());
        while (!timers_.empty() && timers_.top()->deadline_ns <= now) {
            detail::timer_node* n = timers_.pop();
            n->fire(n);
        }
        // With the alarm: watch the next one. On the virtual clock it is
        // not due (time moves when idle, or by advance()).
        if constexpr (port::has_alarm) {
            if (!timers_.empty() && cfg_.clock == clock_mode::real) (void)port::watch_deadline(timers_.top()->deadline_ns);
        }
    }

    // Nothing is ready: wait for the next timer or an interrupt. Returns
    // false if nothing could ever wake us (virtual clock only).
    [[gnu::always_inline]] bool idle() noexcept {
        if (cfg_.clock == clock_mode::virtual_) {
            // The holds before the queue: a thread posts its work, then
            // releases its hold. acquire: pairs with release(), so once
            // the release is seen here the post is seen below. Read the
            // other way round, a post and release between the two reads
            // (the executor's thread preempted there) let time jump past
            // queued work, or run() report `stalled` with a post queued.
            // (No load on a single-core port: holds_ is a constant 0.)
            [[maybe_unused]] const bool held = holds_.load(std::memory_order_acquire) != 0;
            // The same for a thread that posts, then calls external_end():
            // read the other way round, run() could report `stalled` with
            // its post queued.
            const bool outside = external_.load(cross_thread_acquire) != 0;
            // Work posted since the drain (by a handler or a timer's
            // callback) comes first, at this instant: the real clock's
            // wait would end at once on the post's notify, and virtual
            // time must not jump past it either.
            if (irqs_.maybe_pending()) return true;
            if constexpr (!port::single_core) {
                if (held) {
                    waker_.wait_until(~std::uint64_t{0});  // a post, or a release
                    return true;
                }
            }
            if (!timers_.empty()) {
                // Time passes only while idle, and only as far as the next timer.
                std::uint64_t next = timers_.top()->deadline_ns;
                if (next > virtual_now_) virtual_now_ = next;
                if constexpr (port::has_alarm) timer_due_ = true;
                return true;
            }
            if (!outside && armed_ == 0) return false;
        }
        // One call site for both clocks: the port inlines the wait for a
        // notify alone, and the run loop should hold one copy of it.
        sleep_in_port();
        return true;
    }

    // Sleeps in the port until a notify or the next timer. With the alarm
    // that is a wait for the notify or timer_due_, with no deadline: the
    // alarm is armed for the earliest timer (the loop watched it when it
    // last changed), and its end sets the flag.
    [[gnu::always_inline]] void sleep_in_port() noexcept {
        if constexpr (port::has_alarm) {
            waker_.wait([this] { return timer_due_; });
        } else {
            waker_.wait_until(timers_.next_deadline());
        }
    }

    // True when a timer, an interrupt or a stop request needs run(). With
    // the alarm, a timer needs it once due (timer_due_); without it, any
    // timer armed may be due, and only run()'s look at the clock can tell.
    [[gnu::always_inline]] bool needs_loop() const noexcept {
        if constexpr (port::has_alarm) return timer_due_ || irqs_.maybe_pending();
        return !timers_.empty() || irqs_.maybe_pending();
    }

    // The yield fast path's test: `level` is the highest ready level, some
    // other task waits in it, and !needs_loop(). Hosts fold the three into
    // one branch (an out-of-order core runs the ORs beside the loads, and
    // a switch there costs as many cycles as it has instructions: 3 fewer);
    // in-order microcontrollers count instructions, the same either way,
    // and an early exit skips loads there.
    [[gnu::always_inline]] bool level_alone_ready(unsigned level) const noexcept {
        if constexpr (port::small_code) {
            return (bitmap_ >> level) == 1 && !needs_loop();
        } else {
            return (((bitmap_ >> level) ^ 1u) | reinterpret_cast<std::uintptr_t>(timers_.top()) |
                    irqs_.pending_bits()) == 0;
        }
    }

    // Programming errors the executor stops on (run() re-entered, an
    // unbalanced external_end()): hosts always, boards in Debug builds.
#ifdef NDEBUG
    static constexpr bool check_misuse = !port::small_code;
#else
    static constexpr bool check_misuse = true;
#endif

    // The fields every switch reads come first, so that they share a cache
    // line (host) and short load offsets (Thumb-2).
    std::uint32_t bitmap_ = 0;
    interrupt_queue irqs_;
    detail::timer_heap timers_;
    // Two arrays, not one of {head, tail} pairs: GCC merges a yield's two
    // adjacent stores into one 16-byte vector store on x86-64, which then
    // delays the next switch's load of the head (yield 5.8 -> 7.7 ns).
    task_control* head_[max_priority + 1];  // each level's FIFO
    task_control* tail_[max_priority + 1];
    // Hosts also keep each level's head's resume point: what a switch
    // jumps to is then one load from the executor, with no load of the
    // head's control block in between, the chain an out-of-order core
    // waits on (yield 6.0 -> 3.3 ns with GCC, 4.1 -> 2.75 with Clang).
    // Valid while the level's bit is set; a queued task's resume point
    // does not change until it runs. Microcontrollers (small_code) count
    // instructions, not load latency, and skip it.
    static constexpr bool cache_front = !port::small_code;
    std::coroutine_handle<> front_[cache_front ? max_priority + 1 : 1];
    // The rest in an order that leaves no holes on a 32-bit core (the
    // board's waker is one byte, next to the flags).
    std::atomic<bool> stop_{false};
    bool in_drain_ = false;  // run() is in irqs_.drain() (wake_from_handler)
    // With the port's alarm: a timer may be due (set by the alarm, at
    // once by a watch of a deadline that has passed, and by arm()).
    volatile bool timer_due_ = false;
    bool running_ = false;   // in run(), when check_misuse
    port::waker waker_;
    irq_node stop_node_{&on_stop_node};
    executor_config cfg_;
    std::uint64_t virtual_now_ = 0;
    std::uint32_t live_ = 0;
    std::atomic<std::uint32_t> external_{0};
    std::uint32_t armed_ = 0;
    detail::lock_link* contended_locks_ = nullptr;
    // Orders for counts a foreign thread may change: on a single-core
    // port only handlers do, and a handler runs to its end before the
    // executor reads on (no barrier instructions there).
    static constexpr std::memory_order cross_thread_acquire =
        port::single_core ? std::memory_order_relaxed : std::memory_order_acquire;
    static constexpr std::memory_order cross_thread_release =
        port::single_core ? std::memory_order_relaxed : std::memory_order_release;
    // Time holds (hold_time()); nothing on a single-core port, where the
    // branches that use them are discarded but still compiled.
    struct no_holds {
        static constexpr std::uint32_t load(std::memory_order) noexcept { return 0; }
        static constexpr void fetch_add(std::uint32_t, std::memory_order) noexcept {}
        static constexpr void fetch_sub(std::uint32_t, std::memory_order) noexcept {}
    };
    [[no_unique_address]] std::conditional_t<port::single_core, no_holds, std::atomic<std::uint32_t>> holds_{};
    friend class time_hold;
    // Last: destroyed first, while the rest of the executor is intact.
    [[no_unique_address]] std::conditional_t<port::small_code, detail::no_executor_users, detail::executor_users>
        users_;
};

inline void time_hold::release() noexcept {
    if (!ex_) return;
    if constexpr (!port::single_core) {
        // release: pairs with idle()'s acquire load.
        ex_->holds_.fetch_sub(1, std::memory_order_release);
        ex_->waker_.notify();  // an idle executor re-reads the count
    }
    ex_ = nullptr;
}

inline void task_control::wake() noexcept {
    wait_ = nullptr;
    executor_->schedule(*this);
}

}  // namespace weft
