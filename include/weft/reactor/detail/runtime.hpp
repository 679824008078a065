// SPDX-License-Identifier: Apache-2.0
#pragma once
// basic_environment, part 1: the state of a running reactor program and
// the operations that ports, actions, timers and reactions perform on it
// (mark a reaction ready, make an element present, post an event). The
// assembly and the scheduler loop are defined in environment.hpp.
#include <weft/core/executor.hpp>
#include <weft/core/result.hpp>
#include <weft/reactor/detail/event_queue.hpp>
#include <weft/reactor/detail/nodes.hpp>
#include <weft/reactor/detail/ready_set.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace weft::reactors {

class worker;

/// How an environment runs. All fields have LF's defaults.
struct environment_config {
    const char* name = "environment";
    /// Do not wait for physical time: jump to the next tag at once (LF `fast`).
    bool fast = false;
    /// Logical time at which the program stops (LF `timeout`); none if negative.
    duration timeout = duration{-1};
    /// Keep running with an empty event queue, waiting for physical actions
    /// (LF `keepalive`). Programs with physical actions always keep alive.
    bool keepalive = false;
    /// A level is split across workers only when it has at least this many
    /// ready reactions (below that, waking a worker costs more than it saves).
    unsigned parallel_threshold = 8;
};

/// Counters for tests, examples and benchmarks.
struct environment_stats {
    std::uint64_t tags = 0;             ///< tags processed
    std::uint64_t reactions = 0;        ///< reaction bodies run
    std::uint64_t deadline_misses = 0;  ///< deadline handlers run instead
    std::uint64_t parallel_levels = 0;  ///< levels split across workers
    /// Of those, levels after which sharing had lost time overall (each
    /// makes the scheduler run the next wide levels alone for a while,
    /// doubling each time: see worker.hpp).
    std::uint64_t parallel_losses = 0;
};

/// The part of an environment that does not depend on its capacities.
/// Declare an environment<Events, Reactions> (environment.hpp).
class basic_environment {
public:
    basic_environment(const basic_environment&) = delete;
    basic_environment& operator=(const basic_environment&) = delete;

    const char* name() const noexcept { return cfg_.name; }
    const environment_config& config() const noexcept { return cfg_; }
    /// The tag being processed (or last processed).
    tag current_tag() const noexcept { return now_; }
    /// Logical time since start (LF lf_time_logical_elapsed).
    duration logical_time() const noexcept { return duration{now_.time}; }
    /// Physical time since start, from the executor's clock.
    duration physical_time() const noexcept {
        return ex_ ? duration{std::int64_t(to_ns(ex_->now()) - start_ns_)} : duration{0};
    }
    /// The executor the program runs on (nullptr before start(), and on
    /// hosts once that executor has been destroyed). The
    /// executor's thread; from other threads and interrupts: started_on().
    executor* exec() const noexcept { return ex_; }
    /// exec() from any thread or interrupt: nullptr until start() has
    /// succeeded (and exec() is published).
    executor* started_on() const noexcept {
        // acquire: pairs with start()'s release, which publishes ex_ and
        // start_ns_ to the foreign thread (a plain read of ex_ raced).
        return flags_.load(std::memory_order_acquire) & not_started_flag ? nullptr : ex_;
    }
    const environment_stats& stats() const noexcept {
        stats_.tags = stamp_ - 1;  // not counted per tag: the stamp is the count
        return stats_;
    }
    /// Largest number of events queued at once so far.
    std::size_t event_queue_peak() const noexcept { return queue_.peak(); }
    std::size_t event_queue_capacity() const noexcept { return queue_.capacity(); }
    std::uint32_t level_count() const noexcept { return levels_; }
    std::uint32_t reaction_count() const noexcept { return reaction_count_; }

    /// Stops at the next microstep: shutdown reactions run at (t, m + 1).
    /// Interrupt-safe and callable from a foreign thread or a task, also
    /// before start() (the program then stops at its first tag) and once
    /// the program has finished (nothing happens: the environment posts no
    /// wake-up any more, so it may be destroyed).
    void request_stop() noexcept;

    /// Builds the dependency graph, rejects causality cycles (naming them),
    /// assigns levels and scheduling ranks. Idempotent. Does not allocate.
    [[nodiscard]] status assemble() noexcept;
    /// For programs driven only by timers: the exact maximum number of
    /// queued events (one per timer). An error for other programs.
    [[nodiscard]] result<std::size_t> event_queue_bound() noexcept;
    /// Assembles the program and starts it on `ex` (call ex.run()): tags run
    /// in the executor's timer and wake-up callbacks, so the program needs
    /// no task frame; ex.run() counts it as one live task until it ends.
    /// Does not allocate. Fails if assembly fails (its workers are then
    /// released: worker::run() returns) or if already started. From here
    /// on started_on() is `&ex` on every thread.
    [[nodiscard]] status start(executor& ex) noexcept;
    /// start(ex), ex.run(), then the program's outcome; `invalid` if the
    /// executor returned before the program ended (its workers are then
    /// released; a later ex.run() goes on without them).
    [[nodiscard]] status run(executor& ex) noexcept;
    /// True once the program has stopped (shutdown done or failed).
    bool finished() const noexcept { return finished_; }
    /// finished(), readable from any thread and from interrupts (physical
    /// actions refuse what they can no longer deliver).
    bool ended() const noexcept { return flags_.load(std::memory_order_relaxed) & finished_flag; }
    /// How the program ended: ok, or the first error (overflow, ...).
    status outcome() const noexcept { return failure_; }
    /// Adds a worker (worker.hpp) before start(). Not interrupt-safe.
    void add_worker(worker& w) noexcept;
    /// The builtin triggers: present at the first tag and at the last one.
    detail::element& startup() noexcept { return startup_; }
    detail::element& shutdown() noexcept { return shutdown_; }

    // --- used by ports, actions, timers, reactions and modes ---
    void register_reactor(detail::reactor_node& r) noexcept;
    void register_element(detail::element& e) noexcept {
        if (last_element_) last_element_->next_global_ = &e; else first_element_ = &e;
        last_element_ = &e;
    }
    void register_reaction(detail::reaction_node& r) noexcept {
        r.index_ = reaction_count_++;
        if (last_reaction_) last_reaction_->next_global_ = &r; else first_reaction_ = &r;
        last_reaction_ = &r;
    }
    void register_resettable(detail::resettable& s) noexcept { s.next_ = resettables_; resettables_ = &s; }
    void register_source(detail::physical_source& s) noexcept {
        s.next_source_ = sources_;
        sources_ = &s;
        has_physical_ = true;
        // Installed here so that programs without physical actions link
        // none of the draining (two atomic read-modify-writes).
        drain_ = [](basic_environment& env) noexcept { env.drain_physical(); };
    }
    /// A mode entered for the first time: triggers its startup reactions
    /// (at its reset trigger's tag). Scheduler thread (mode.hpp).
    void start_mode(detail::mode_node& m) noexcept;
    /// Called by the first mode: events for elements of an inactive mode
    /// are then suspended with it (mode.hpp). Programs without modes link
    /// none of that code.
    void enable_mode_suspension() noexcept;
    /// Called by the first mode and the first deadline: from then on,
    /// assembly gives reactions with a mode or a deadline a body that runs
    /// the checks first. Programs with neither link none of that code.
    void enable_checked_bodies() noexcept {
        checked_body_ = [](basic_environment& env, detail::rank_entry& h, detail::reaction_node& r) noexcept {
            basic_environment* e = &env;
            detail::reaction_node* rp = &r;
            h.body = [e, rp] { e->run_one(*rp); };
        };
    }
    /// Called by the first deadline: assembly infers deadlines upstream
    /// (programs without deadlines link none of that code).
    void enable_deadline_inference() noexcept {
        infer_deadlines_ = [](basic_environment& env) noexcept { env.infer_deadlines(); };
    }
    /// A declaration error (bad connection, too many dependencies, ...),
    /// reported by assemble().
    void declaration_error(const error& e) noexcept { if (!decl_error_) decl_error_ = e; }

    std::uint64_t stamp() const noexcept { return stamp_; }
    /// Executor time (ns) at which logical time 0 began.
    std::uint64_t start_ns() const noexcept { return start_ns_; }
    bool is_present(const detail::element& e) const noexcept { return e.stamp_ == stamp_; }

    /// Marks `r` to run at the current tag.
    void mark(detail::reaction_node& r) noexcept { ready_.mark(r.rank_, parallel_); }
    /// Marks every reaction triggered by `e` (source links carry no bit).
    /// Inlined: timers and actions call it once per event.
    [[gnu::always_inline]] void trigger_readers(detail::element& e) noexcept {
        for (detail::link* l = e.readers_; l; l = l->next) detail::ready_set::mark(*l->ready_word, l->ready_bit, parallel_);
    }
    /// Makes `e` present at the current tag and triggers its reactions.
    [[gnu::always_inline]] void make_present(detail::element& e) noexcept {
        e.stamp_ = stamp_;
        trigger_readers(e);
    }
    /// An origin port got a value: present it downstream (zero delay).
    /// Inlined into reaction bodies: this is most of a reaction switch.
    [[gnu::always_inline]] void set_port(detail::port_node& p) noexcept {
        p.stamp_ = stamp_;
        // Readers see the origin's stamp, so only the marks are left.
        if (!p.set_slow_) detail::ready_set::mark(*p.mark_word_, p.mark_bit_, parallel_);
        else set_port_slow(p);
    }
    /// Queues an event for `target` at `at` (>= next microstep). False when
    /// the event queue is full: the program then stops with overflow_error(target).
    bool post(detail::element& target, const tag& at, std::uint16_t slot) noexcept;
    /// Keeps an event for an element of inactive mode `m` (or one inside
    /// it) with the suspended events, its remaining delay counted from now.
    /// False, and the program stops naming `m`, when that store is full.
    bool suspend_event(detail::element& target, const tag& at, std::uint16_t slot,
                       const detail::mode_node& m) noexcept;
    /// "action 'b': event queue full (limit 8)" (or the microstep limit).
    error overflow_error(const detail::element& target, const tag& at) const noexcept;
    /// Is an event for `e` at `at` queued? O(queue size).
    bool has_event(const detail::element& e, tag at, std::uint16_t slot) const noexcept {
        return queue_.find(&e, at, slot) != queue_.size();
    }
    /// Is any event for `e` at `at` queued, whatever its value slot? O(queue size).
    bool has_event(const detail::element& e, tag at) const noexcept {
        return has_event(e, at, detail::event_queue::any_slot);
    }
    /// `at`, or the first later microstep of its time with no event for
    /// `e`: events of one element at one tag pile up in superdense time
    /// (LF's lf_schedule_trigger), so no value is lost. O(queue size) each.
    tag free_microstep(const detail::element& e, tag at) const noexcept {
        while (at.microstep != UINT32_MAX && has_event(e, at)) ++at.microstep;
        return at;
    }
    /// True once a mode exists: events may then come back from suspension
    /// (mode.hpp), at tags their action did not choose last.
    bool suspends_events() const noexcept { return suspend_inactive_ != nullptr; }
    /// Removes the queued event for `e` at `at`, if any.
    void remove_event(const detail::element& e, tag at, std::uint16_t slot) noexcept {
        std::size_t i = queue_.find(&e, at, slot);
        if (i != queue_.size()) queue_.remove_at(i);
    }
    /// Stops the program at once with `e` (no shutdown reactions).
    void fail(const error& e) noexcept;
    /// A reaction asked its reactor to switch to `m` at the end of the tag.
    void request_mode(detail::reactor_node& r, detail::mode_node& m, bool history) noexcept;
    /// A physical source has data (interrupt-safe): wake the scheduler.
    /// Preconditions: the source is registered (register_source), the
    /// program has started (started_on()), and the caller holds the port's
    /// critical_section, in which it found the program not ended()
    /// (see request_stop()).
    void physical_pending() noexcept;
    /// Serialises shared structures while a level runs on several workers.
    struct guard {
        explicit guard(basic_environment& env) noexcept : e_(env.parallel_ ? &env : nullptr) {
            if (e_) while (e_->lock_.test_and_set(std::memory_order_acquire)) {}
        }
        ~guard() { if (e_) e_->lock_.clear(std::memory_order_release); }
        basic_environment* e_;
    };

protected:
    /// From an environment's destructor (hosts): a program that started
    /// and has not ended (its executor returned `stopped` or `stalled`
    /// first) takes its alarm, its wake-up node and its live-task count
    /// out of the executor, which may run on without it. Before, the
    /// executor fired the destroyed program's alarm (its reactions ran on
    /// freed memory) and counted it as live for ever. Its workers are not
    /// touched: env.run() released them when the executor returned, and
    /// they may already be gone.
    void abandon() noexcept {
        if (!started_ || finished_ || !ex_) return;  // ended, or the executor went first
        finished_ = true;
        {
            port::critical_section cs;  // as in finish(): no post after this
            mark_ended();
        }
        ex_->disarm(alarm_);
        withdraw_wake();
        ex_->task_finished();
        set_user(*ex_, user_, false);
    }

    basic_environment(const environment_config& cfg, detail::event* events, std::size_t nevents,
                      detail::event* suspended, detail::reaction_node** by_rank,
                      detail::ready_set::word* ready_words, std::size_t max_reactions,
                      detail::reaction_node** batch, detail::rank_entry* hot) noexcept
        : cfg_(cfg), queue_(events, nevents), suspended_(suspended), by_rank_(by_rank), hot_(hot),
          max_reactions_(max_reactions), ready_(ready_words, detail::ready_set::words_for(max_reactions)),
          batch_(batch) {
        // One byte loop instead of a store per member (~190 B less on a
        // board). Volatile: a plain loop becomes a call to memset, which
        // newlib's 162 B would then cost. Zero bytes are the null pointer,
        // 0 and false on every target weft supports.
        for (volatile unsigned char* p = reinterpret_cast<unsigned char*>(&suspended_count_);
             p != reinterpret_cast<unsigned char*>(&started_ + 1); ++p)
            *p = 0;
        alarm_.env = this;
        startup_.name_ = "startup";
        startup_.kind_ = detail::element_kind::startup;
        shutdown_.name_ = "shutdown";
        shutdown_.kind_ = detail::element_kind::shutdown;
    }

private:
    friend class worker;
    /// The executor timer that wakes the scheduler at the next tag's
    /// physical time. One for the program (a member, zeroed with the
    /// others); reusable: the timer heap resets a node's links when it is
    /// armed.
    struct alarm : weft::detail::timer_node {
        basic_environment* env;
    };
    void propagate(detail::port_node& p) noexcept {
        for (detail::port_node* d = p.first_down_; d; d = d->next_down_) {
            if (d->on_set_) { d->on_set_(d); continue; }
            trigger_readers(*d);
            propagate(*d);
        }
    }
    // Walks the tree: wide fan-outs and `after`s are rare next to the
    // one-reader connection, and one walk for all cases is the smallest
    // code on a board.
    [[gnu::noinline]] void set_port_slow(detail::port_node& p) noexcept {
        trigger_readers(p);
        propagate(p);
    }
    void plan_set(detail::port_node& origin) noexcept;
    void resume() noexcept;
    void finish() noexcept;
    // Hosts: the program's entry in its executor's list of users (see
    // abandon()); nothing, and no bytes, on a board, which destroys neither.
    struct no_user {};
    struct env_user : weft::detail::executor_user {
        basic_environment* env;
    };
    using user_link = std::conditional_t<port::small_code, no_user, env_user>;
    template <class U>
    void set_user([[maybe_unused]] executor& ex, [[maybe_unused]] U& u, [[maybe_unused]] bool add) noexcept {
        if constexpr (std::is_same_v<U, env_user>) {
            u.env = this;
            u.executor_gone = [](weft::detail::executor_user* self) noexcept {
                // The executor went first: nothing of it is left to take
                // back, and nothing may post to it any more (request_stop()
                // and physical actions refuse once the program has ended).
                basic_environment* env = static_cast<env_user*>(self)->env;
                port::critical_section cs;
                env->mark_ended();
                env->ex_ = nullptr;
            };
            if (add) ex.add_user(u);
            else ex.remove_user(u);
        }
    }
    void withdraw_wake() noexcept;
    void release_workers() noexcept;  // worker.hpp; nothing without workers
    // For finish(), under the port's critical section: ended() reads true
    // from now on. A store, not an OR: no tag runs any more, so the other
    // flags no longer matter. Relaxed: the critical section orders it
    // against the posts (request_stop(), physical_pending()); a schedule()
    // that sees it only refuses, reading nothing the scheduler wrote.
    void mark_ended() noexcept { flags_.store(finished_flag, std::memory_order_relaxed); }
    // wait: until `due` (port::no_deadline: until a physical action).
    enum class step : std::uint8_t { wait, done };
    step advance(std::uint64_t& due) noexcept;
    status assemble_graph() noexcept;
    void check_foreign_links() noexcept;
    void infer_deadlines() noexcept;
    void startup_tag() noexcept;
    tag next_stop_candidate() noexcept;
    void process_tag(tag t, bool first, bool stopping) noexcept;
    void attend() noexcept;
    void run_reactions() noexcept;
    void run_one(detail::reaction_node& r) noexcept;
    void run_batch(std::uint32_t n) noexcept;
    std::uint32_t work_batch(std::uint32_t generation) noexcept;
    bool share_level() noexcept;
    template <class F> void for_each_successor(detail::reaction_node& r, F&& f) noexcept;
    void report_cycle() noexcept;
    void drain_physical() noexcept;
    void stop_at_next_microstep() noexcept;
    // The stop tag a stop request or starvation sets: (t, m + 1), or the
    // first tag if none has run yet.
    tag next_microstep_stop() const noexcept { return stamp_ == 1 ? tag{0, 0} : delay_tag(now_, duration{0}); }
    // A stop requested but not yet handled (request_stop() earlier in this
    // tag, by a reaction, a task or another thread): attend() will set the
    // stop tag to next_microstep_stop(), so an event after it can never
    // fire. LF sets the stop tag at once; without this check such an event
    // took room in the queue and could overflow it.
    bool past_requested_stop(const tag& at) const noexcept {
        return (flags_.load(std::memory_order_relaxed) & stop_flag) && !stop_handled_ && next_microstep_stop() < at;
    }
    void apply_mode_changes() noexcept;
    void switch_mode(detail::reactor_node& r) noexcept;
    void suspend_events(detail::mode_node& leaving) noexcept;
    void enter_reset(detail::mode_node& entering) noexcept;
    void enter_history(detail::mode_node& entering) noexcept;
    bool has_startup_reactions(const detail::mode_node& m) const noexcept;
    bool runs_at_shutdown(const detail::reaction_node& r) const noexcept;

    environment_config cfg_;
    detail::event_queue queue_;
    detail::event* suspended_;
    detail::reaction_node** by_rank_;
    detail::rank_entry* hot_;
    std::size_t max_reactions_;
    detail::ready_set ready_;
    // Level batches shared with workers (worker.hpp).
    detail::reaction_node** batch_;
    tag stop_tag_ = never_tag;
    std::uint64_t stamp_ = 1;

    // From suspended_count_ to started_: no initialisers, the constructor
    // zeroes them all at once. Members that must not be written byte by
    // byte (atomics) or that start non-zero are kept outside.
    std::size_t suspended_count_;
    detail::reactor_node* first_reactor_;
    detail::reactor_node* last_reactor_;
    detail::element* first_element_;
    detail::element* last_element_;
    detail::reaction_node* first_reaction_;
    detail::reaction_node* last_reaction_;
    detail::resettable* resettables_;
    detail::physical_source* sources_;
    detail::reactor_node* pending_modes_;
    // Set by the first request_mode (mode_switch.hpp), so that a program
    // without modes links none of the transition code (~700 B on a board).
    void (*apply_modes_)(basic_environment&) noexcept;
    // Set by the first mode (mode.hpp): suspends an event for an element
    // of an inactive mode, so a program without modes links none of it.
    bool (*suspend_inactive_)(basic_environment&, detail::element&, const tag&, std::uint16_t) noexcept;
    void (*infer_deadlines_)(basic_environment&) noexcept;
    void (*drain_)(basic_environment&) noexcept;  // set by register_source
    void (*checked_body_)(basic_environment&, detail::rank_entry&, detail::reaction_node&) noexcept;
    worker* workers_;
    std::uint32_t reactor_count_;
    std::uint32_t reaction_count_;
    std::uint32_t levels_;
    // In unions so that no member initialiser runs before the zeroing.
    union {
        error decl_error_;
    };
    union {
        error failure_;
    };
    char cycle_text_[96];  // written by report_cycle before any read

    executor* ex_;
    std::uint64_t start_ns_;
    union {
        tag now_;
    };
    union {
        mutable environment_stats stats_;
    };
    union {
        alarm alarm_;  // env set in the constructor
    };
    bool waiting_;  // between two resume()s: the alarm or a wake-up resumes
    std::uint32_t batch_gen_;
    // Wide levels still to run alone after a lost parallel level, and the
    // current back-off (see run_batch).
    std::uint32_t share_skip_;
    std::int64_t share_credit_;  // ns won by sharing, decaying (see run_batch)
    std::uint32_t share_backoff_;
    static constexpr std::uint32_t max_share_backoff = 4095;
    bool stop_handled_;
    detail::element startup_;  // name and kind set in the constructor
    detail::element shutdown_;
    bool assembled_;
    bool has_physical_;
    bool finished_;
    bool failed_;
    bool parallel_;
    bool started_;  // the last zeroed member

    // What interrupts and other threads tell the scheduler, in one byte so
    // that the per-tag check is one load. (Not atomic<bool>: its load is
    // not always_inline in libstdc++, and GCC 12 -Os calls it.)
    static constexpr std::uint8_t physical_flag = 1;  // physical actions have buffered events
    static constexpr std::uint8_t stop_flag = 2;      // request_stop() was called
    static constexpr std::uint8_t finished_flag = 4;  // finish() ran (read by ended())
    // Until start() has published ex_ (cleared there, before the first
    // tag, so the per-tag check still finds a zero byte).
    static constexpr std::uint8_t not_started_flag = 8;
    std::atomic<std::uint8_t> flags_{not_started_flag};
    std::atomic_flag lock_ = ATOMIC_FLAG_INIT;
    struct wake_node : irq_node {
        explicit wake_node(basic_environment* e) noexcept : irq_node(&on_wake), env(e) {}
        basic_environment* env;
    } wake_node_{this};
    std::atomic<std::uint32_t> batch_size_{0};
    std::atomic<std::uint64_t> batch_claim_{0};  // (generation << 32) | next index
    static constexpr std::uint64_t closed_batch = 0xffffffffu;  // index of a finished batch
    std::atomic<std::uint32_t> batch_done_{0};
    std::atomic<bool> backing_off_{false};
    [[no_unique_address]] user_link user_;

    static void on_wake(irq_node* n) noexcept;
    friend struct detail::reactor_node;
};

inline void basic_environment::register_reactor(detail::reactor_node& r) noexcept {
    r.index_ = reactor_count_++;
    if (last_reactor_) last_reactor_->next_global_ = &r; else first_reactor_ = &r;
    last_reactor_ = &r;
}

namespace detail {
/// "action", "timer", ... for messages.
constexpr const char* kind_name(element_kind k) noexcept {
    switch (k) {
        case element_kind::input: return "input";
        case element_kind::output: return "output";
        case element_kind::timer: return "timer";
        case element_kind::logical_action: return "action";
        case element_kind::physical_action: return "physical action";
        case element_kind::startup: return "startup";
        case element_kind::shutdown: return "shutdown";
        case element_kind::reset: return "mode";
        case element_kind::delay: return "after";
    }
    return "element";
}
}  // namespace detail

// Out of line, with the overflow in a cold function of its own: timers
// (at start and on a reset), actions and `after`s all post. The tag by
// reference: by value, GCC 12 -Os copied it twice more on a board.
[[gnu::noinline]] inline bool basic_environment::post(detail::element& target, const tag& at,
                                                      std::uint16_t slot) noexcept {
    // Beyond the end of time, or after the stop tag, set or requested (LF
    // does not queue those either): it would never fire, so it takes no
    // room in the queue. The whole tag, not only the time: one at the stop
    // time's later microsteps (a zero-delay action scheduled by a shutdown
    // reaction, next to a timer's next period kept in the queue) used to
    // wait there and could fill the queue, ending a clean shutdown with
    // "event queue full".
    if (at.time == never_tag.time || stop_tag_ < at || past_requested_stop(at)) [[unlikely]] {
        if (target.discard_) target.discard_(&target, slot);  // its value slot, if any
        return true;
    }
    // An element of an inactive mode (an `after` fed from outside it, an
    // action scheduled by a reaction of an enclosing reactor): its event
    // waits with the mode's suspended events, as LF's does.
    if (target.mode_ && !detail::mode_active(target.mode_)) [[unlikely]]
        return suspend_inactive_(*this, target, at, slot);
    if (queue_.full() || at.microstep == UINT32_MAX) [[unlikely]] {
        fail(overflow_error(target, at));
        return false;
    }
    queue_.push(at, &target, slot);
    return true;
}

// An event for an element of a mode that is not active (a physical
// action's, scheduled meanwhile) waits with the events suspended when its
// mode was left: delivered on a history entry, dropped on a reset entry,
// never fired while the mode is inactive.
inline bool basic_environment::suspend_event(detail::element& target, const tag& at, std::uint16_t slot,
                                             const detail::mode_node& m) noexcept {
    if (suspended_count_ == queue_.capacity()) {
        fail(error{errc::overflow, "mode", m.name_, queue_.capacity(), "too many suspended events"});
        return false;
    }
    detail::event& s = suspended_[suspended_count_++];
    s.at = tag{at.time - now_.time, at.microstep};  // remaining delay
    s.target = &target;
    s.seq = 0;
    s.slot = slot;
    return true;
}

[[gnu::cold, gnu::noinline]] inline error basic_environment::overflow_error(
    const detail::element& target, const tag& at) const noexcept {
    // Names the action that could not be queued and the queue's capacity
    // (seed 001's "Unbounded" program ends here), or the microstep limit
    // (4 294 967 294 zero-delay steps at one time: tags would wrap).
    if (at.microstep == UINT32_MAX)
        return error{errc::overflow, detail::kind_name(target.kind_), target.name_, UINT32_MAX - 1,
                     "microsteps at one time exhausted"};
    return error{errc::overflow, detail::kind_name(target.kind_), target.name_, queue_.capacity(),
                 "event queue full"};
}

[[gnu::cold, gnu::noinline]] inline void basic_environment::fail(const error& e) noexcept {
    if (failed_) return;
    failed_ = true;
    failure_ = e;
}

inline void basic_environment::physical_pending() noexcept {
    // release: the scheduler's acquire load (drain_physical) sees the
    // buffered entry. A read-modify-write, not a store: the byte also
    // carries the stop flag.
    flags_.fetch_or(physical_flag, std::memory_order_release);
    ex_->post(wake_node_);  // the caller found the program started and not ended
}

inline void basic_environment::request_stop() noexcept {
    // The check and the post under the critical section in which finish()
    // marks the end before it withdraws wake_node_: a post comes either
    // before (and is withdrawn) or after (and sees the end), so the node
    // is never left in the executor's queue after the program, where the
    // executor would run it after the environment is gone.
    port::critical_section cs;
    // release: pairs with the scheduler's acquire load in attend().
    // acquire: pairs with start()'s release of ex_ (not_started_flag).
    const std::uint8_t f = flags_.fetch_or(stop_flag, std::memory_order_acq_rel);
    // Before start(): the first tag sees the flag (start() clears its own
    // flag with a read-modify-write, which keeps this one).
    if (!(f & (not_started_flag | finished_flag))) ex_->post(wake_node_);
}

namespace detail {
/// Whether links between programs are checked (across_environments):
/// hosts always, boards in Debug builds, as the executor's misuse checks.
/// The mistake is in the declarations, the same on every run, so a Debug
/// or host run finds it; a release board keeps the 300 B the checks and
/// their texts take (the reactor runtime's size target is 5 KB).
#ifdef NDEBUG
inline constexpr bool check_links_across_environments = !port::small_code;
#else
inline constexpr bool check_links_across_environments = true;
#endif
/// A connection or a reaction dependency declared between two programs.
/// Each environment has its own tags, event queue and ready set: a mark
/// made by one landed in the other's tables at the wrong tag, and assembly
/// walked from one program's writer into the other's readers, ranking
/// them past the end of its rank table (a crash in the review of two
/// programs on one executor). A declaration error of both, so that
/// whichever assembles first reports it. Cold: only a wrong program
/// reaches it.
[[gnu::cold, gnu::noinline]] inline void across_environments(basic_environment& a, basic_environment& b,
                                                             const char* kind, const char* name,
                                                             const char* what) noexcept {
    a.declaration_error(error{errc::invalid, kind, name, 0, what});
    b.declaration_error(error{errc::invalid, kind, name, 0, what});
}

// Out of line: every port, timer and action constructor calls it.
[[gnu::noinline]] inline void init_element(element& e, place where, const char* name, element_kind k) noexcept {
    init_fields(e, where.owner, where.mode, name, k);
    where.owner->env_->register_element(e);
}

}  // namespace detail

}  // namespace weft::reactors
