// SPDX-License-Identifier: Apache-2.0
#pragma once
// environment<Events, Reactions>: owns the event queue (Events entries)
// and the scheduling tables (up to Reactions reactions), assembles the
// program, and runs it on a weft executor (in the executor's timer and
// interrupt callbacks: no task, no coroutine frame).
//
//   weft::reactors::environment<16, 32> env{{.name = "app", .timeout = 1s}};
//   my_app app{env, "app"};
//   weft::executor ex{{"main"}};
//   weft::status s = env.run(ex);          // or env.start(ex); ... ex.run();
//
// The scheduler loop, once per tag:
//
//   ┌─> (1) drain physical actions (interrupt buffers -> event queue)
//   │   (2) next tag = min(earliest event, stop tag); starvation or a stop
//   │       request fixes the stop tag (LF termination rules)
//   │   (3) unless fast: sleep until physical time reaches the tag's time;
//   │       a physical action or request_stop wakes the sleep early -> (1)
//   │   (4) pop every event of the tag, mark triggered reactions; startup /
//   │       shutdown at the first / stop tag
//   │   (5) run marked reactions by rank (level, then deadline); levels with
//   │       enough ready reactions are shared with workers
//   │   (6) apply mode transitions requested during the tag
//   └── (7) stop tag or failure? finish : continue
//
// Waiting uses the executor's timer heap and an irq_node, so the executor
// sleeps in the port (never polls) and tasks run meanwhile.
#include <weft/core/executor.hpp>
#include <weft/reactor/deadline.hpp>
#include <weft/reactor/detail/assembly.hpp>
#include <weft/reactor/detail/mode_switch.hpp>
#include <weft/reactor/detail/runtime.hpp>
#include <weft/reactor/worker.hpp>

#include <cstddef>
#include <type_traits>

namespace weft::reactors {

// A physical action or request_stop() (posted): run now if the program
// waits (its alarm, if armed, is then withdrawn). Otherwise the program
// is running, finished or not started, and attend() sees the flags.
inline void basic_environment::on_wake(irq_node* n) noexcept {
    basic_environment* env = static_cast<wake_node*>(n)->env;
    if (!env->waiting_) return;
    env->ex_->disarm(env->alarm_);
    env->resume();
}

inline void basic_environment::drain_physical() noexcept {
    // A plain load first: the read-modify-write is a locked instruction
    // (an LDREX/STREX loop on ARM), and physical actions are rare.
    // acquire (both): pairs with physical_pending()'s release.
    if (!(flags_.load(std::memory_order_acquire) & physical_flag)) return;
    if (!(flags_.fetch_and(std::uint8_t(~physical_flag), std::memory_order_acquire) & physical_flag)) return;
    for (detail::physical_source* s = sources_; s; s = s->next_source_) s->drain_(s);
}

inline void basic_environment::run_one(detail::reaction_node& r) noexcept {
    if (r.mode_ && !detail::mode_active(r.mode_) && !runs_at_shutdown(r)) return;
    if (r.deadline_ >= 0) {
        std::int64_t lag = std::int64_t(to_ns(ex_->now()) - start_ns_) - now_.time;
        if (detail::deadline_missed(lag, r.deadline_)) {
            if (detail::workers_supported && parallel_) std::atomic_ref<std::uint64_t>(stats_.deadline_misses).fetch_add(1, std::memory_order_relaxed);
            else ++stats_.deadline_misses;
            if (r.handler_) r.handler_();
            return;
        }
    }
    r.body_();
}

// Not inlined into advance(): with its own registers the loop keeps its
// state across the body calls instead of spilling it (ARMv7-M, GCC 12).
[[gnu::noinline]] inline void basic_environment::run_reactions() noexcept {
    if (!detail::workers_supported || !workers_) {
        // The common case, kept tight: one ready-set pop, one packed entry
        // and one indirect call per reaction; the counter stays in a register.
        stats_.reactions += ready_.drain(hot_, [](detail::rank_entry& h) { h.body(); });
        return;
    }
    // With workers: take one level at a time; share it if it is wide enough.
    ready_.reset_cursor();
    for (std::int64_t k; (k = ready_.peek()) >= 0;) {
        const std::int64_t first = k;
        std::uint32_t level = hot_[k].level;
        std::uint32_t n = 0;
        while ((k = ready_.peek()) >= 0 && hot_[k].level == level) {
            (void)ready_.pop();
            batch_[n++] = by_rank_[k];
        }
        stats_.reactions += n;
        if (n >= cfg_.parallel_threshold && share_level()) run_batch(n);
        else for (std::uint32_t i = 0; i < n; ++i) run_one(*batch_[i]);
        // The last peek above may have moved the cursor past the ranks the
        // level has just marked (all above `first`): scan again from there.
        ready_.rewind(std::uint32_t(first));
    }
}

// always_inline: called once, from advance(); out of line, GCC 12 -Os
// passes the tag through the stack.
[[gnu::always_inline]] inline void basic_environment::process_tag(tag t, bool first, bool stopping) noexcept {
    now_ = t;
    ++stamp_;
    if (first) make_present(startup_);
    while (!queue_.empty()) {
        const detail::event& top = queue_.top();
        if (!(top.at == t)) break;
        // Timers fire with their event still on top and replace it with
        // the next period (one sift at most instead of a pop and a push).
        detail::element* target = top.target;
        if (target->kind_ == detail::element_kind::timer) {
            make_present(*target);
            const std::int64_t period = static_cast<detail::timer_node*>(target)->period_;
            // Both are non-negative, so the unsigned sum does not wrap; it
            // is past the end of time from INT64_MAX on (never_tag's time,
            // where post() drops an action's or an `after`'s event too: a
            // signed test for a wrapped sum let a period ending exactly
            // there fire at the end of time).
            const std::uint64_t next = static_cast<std::uint64_t>(t.time) + static_cast<std::uint64_t>(period);
            if (period > 0 && next < static_cast<std::uint64_t>(never_tag.time))
                queue_.replace_top(tag{static_cast<std::int64_t>(next), 0}, 0);
            else queue_.drop_top();  // once, or the next period is at or past the end of time
            continue;
        }
        const std::uint16_t slot = top.slot;
        queue_.drop_top();
        target->fire_(target, slot);
    }
    if (stopping) make_present(shutdown_);
    run_reactions();
}

// Physical actions or a stop request arrived (rare: off the per-tag path).
inline void basic_environment::attend() noexcept {
    if (drain_) drain_(*this);  // (1)
    // acquire: pairs with request_stop()'s release.
    if ((flags_.load(std::memory_order_acquire) & stop_flag) && !stop_handled_) {  // (2)
        stop_handled_ = true;
        stop_at_next_microstep();
    }
}

// A stop request or starvation: shutdown at (t, m + 1), or with startup if
// no tag has run yet; never later than a stop tag already set.
[[gnu::noinline]] inline void basic_environment::stop_at_next_microstep() noexcept {
    tag s = next_microstep_stop();
    if (s < stop_tag_) stop_tag_ = s;
}

// (1)-(7) until the program must wait for physical time or is over. The
// tag it computes stays in registers: kept in memory (as in the coroutine
// that used to run the loop), writing its fields one by one and passing it
// as a whole defeated store forwarding (x86-64, GCC 12 -O3: a third of the
// cost of a tag in fast mode).
inline basic_environment::step basic_environment::advance(std::uint64_t& due) noexcept {
    // A failure outside a tag (start(), a task scheduling an action) stops
    // the program before its next tag, as one inside a tag does.
    if (failed_) return step::done;
    for (;;) {
        // One plain load per tag: an acquire load is a barrier instruction
        // on ARM, and physical actions and stop requests are rare (attend()
        // loads again with acquire).
        if (flags_.load(std::memory_order_relaxed)) {  // (1) (2)
            attend();
            if (failed_) return step::done;  // a physical action overflowed the queue
        }
        tag next;
        const bool first = stamp_ == 1;
        if (first) {
            next = tag{0, 0};  // startup
        } else if (!queue_.empty()) {
            next = queue_.top().at;
        } else {
            next = never_tag;
            if (!cfg_.keepalive && !has_physical_) stop_at_next_microstep();  // starvation (stamp_ > 1 here)
        }
        bool last = false;
        if (next.time >= stop_tag_.time) {  // else: before the stop tag, and not never_tag
            if (stop_tag_ < next) next = stop_tag_;
            if (next == never_tag) {  // keepalive: until a physical action
                due = port::no_deadline;
                return step::wait;
            }
            last = next == stop_tag_;
        }
        if (!cfg_.fast) {  // (3)
            due = start_ns_ + std::uint64_t(next.time);
            if (to_ns(ex_->now()) < due) return step::wait;
        }
        process_tag(next, first, last);  // (4) (5)
        if (failed_) return step::done;
        if (pending_modes_) {  // (6)
            apply_modes_(*this);  // set by request_mode
            if (failed_) return step::done;
        }
        if (last) return step::done;  // (7)
    }
}

// Runs tags until the program must wait for physical time (the alarm is
// then armed for it; physical actions and request_stop() wake it early
// through wake_node_) or is over. Runs on the executor, from the alarm's
// callback or wake_node_'s handler: the program is not a task and needs
// no frame.
[[gnu::noinline]] inline void basic_environment::resume() noexcept {
    waiting_ = false;
    if (advance(alarm_.deadline_ns) == step::done) {
        finish();
        return;
    }
    if (alarm_.deadline_ns != port::no_deadline) ex_->arm(alarm_);
    waiting_ = true;
}

// Cold and out of line: a walk of the executor's interrupt queue, once
// per program.
[[gnu::cold, gnu::noinline]] inline void basic_environment::withdraw_wake() noexcept {
    ex_->withdraw_post(wake_node_);
}

inline void basic_environment::finish() noexcept {
    finished_ = true;
    {
        // Under the critical section in which request_stop() and physical
        // actions check ended() and post wake_node_: from here on nothing
        // posts it, so the withdraw below is final.
        port::critical_section cs;
        mark_ended();
    }
    // A wake-up posted before (request_stop() in the last tag, a physical
    // action) may still be queued: it must not outlive the environment there.
    withdraw_wake();
    release_workers();
    set_user(*ex_, user_, false);  // nothing left in the executor to take back
    ex_->task_finished();  // run() returns once nothing else is live
}

// One status, returned on every path: each other return copied an error
// (five words) once more (GCC 12 -Os).
inline status basic_environment::start(executor& ex) noexcept {
    status s = started_ ? status{error{errc::busy, "environment", cfg_.name, 0, "already started"}} : assemble();
    if (s) {
        if (cfg_.timeout.count() >= 0) stop_tag_ = tag{cfg_.timeout.count(), 0};
        ex_ = &ex;
        start_ns_ = to_ns(ex.now());
        for (detail::element* e = first_element_; e; e = e->next_global_)
            if (e->start_ && detail::mode_active(e->mode_)) e->start_(e);
        started_ = true;
        // release: publishes ex_ and start_ns_ to threads and interrupts
        // that schedule physical actions or request a stop (started_on()).
        // A read-modify-write: a stop requested before keeps its flag.
        flags_.fetch_and(std::uint8_t(~not_started_flag), std::memory_order_release);
        // Counted as a live task, so that ex.run() returns only once the
        // program has finished; the first tag runs when ex.run() fires the
        // alarm (its deadline is still the constructor's 0: already due).
        ex.task_started();
        set_user(ex, user_, true);  // see abandon()
        alarm_.fire = [](weft::detail::timer_node* n) noexcept { static_cast<alarm*>(n)->env->resume(); };
        ex.arm(alarm_);
    } else if (!started_) {
        release_workers();  // the program will not run: worker::run() returns
    }
    return s;
}

inline status basic_environment::run(executor& ex) noexcept {
    status s = start(ex);
    if (!s) return s;
    const run_outcome o = ex.run();
    if (!finished_) {
        // The workers must not wait for a program that env.run() gives up
        // on (run on without them if ex.run() is called again).
        release_workers();
        // Told apart: a stall is a program that can never be woken, a
        // stop was asked for (and ex.run() again goes on with the program).
        // One error built, for size: a board inlines each construction.
        const bool stalled = o == run_outcome::stalled;
        return error{stalled ? errc::invalid : errc::cancelled, "environment", cfg_.name, 0,
                     stalled ? "executor stalled first (keepalive without event sources?)"
                             : "executor stopped first (its request_stop())"};
    }
    return failure_;
}

namespace detail {
/// Hosts: an environment destroyed before its program ended lets go of
/// its executor (basic_environment::abandon()). Boards never destroy a
/// program, and keep environments trivially destructible (no destructor
/// or exit-time registration in flash), as frame pools are.
class abandoning_environment : public basic_environment {
protected:
    using basic_environment::basic_environment;
    ~abandoning_environment() { abandon(); }
};
}  // namespace detail

/// A reactor program's environment with static capacities: `Events`
/// queued events, `Reactions` reactions.
template <std::size_t Events = 32, std::size_t Reactions = 64>
class environment
    : public std::conditional_t<port::small_code, basic_environment, detail::abandoning_environment> {
    static_assert(Events >= 1 && Reactions >= 1, "environment capacities must be positive");
    using base = std::conditional_t<port::small_code, basic_environment, detail::abandoning_environment>;

public:
    explicit environment(const environment_config& cfg = {}) noexcept
        : base(cfg, t_.events, Events, t_.suspended, t_.by_rank, t_.ready_words, Reactions, t_.batch, t_.hot) {}

private:
    // Written before read (queue, assembly, worker batches, ready words):
    // left uninitialised, like any storage an application reserves. In a
    // union so that not even the members' default initialisers run (a
    // loop per array and a memset in every environment's constructor).
    struct tables {
        detail::event events[Events];
        detail::event suspended[Events];
        detail::reaction_node* by_rank[Reactions];
        detail::reaction_node* batch[Reactions];
        detail::rank_entry hot[Reactions];
        detail::ready_set::word ready_words[detail::ready_set::words_for(Reactions)];
    };
    union {
        tables t_;
    };
};

}  // namespace weft::reactors
