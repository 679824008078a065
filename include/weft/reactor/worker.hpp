// SPDX-License-Identifier: Apache-2.0
#pragma once
// worker: another host thread (or core) that helps run wide levels.
//
//   weft::reactors::worker helper{"helper"};
//   env.add_worker(helper);
//   std::thread t([&] { helper.run(); });   // returns when the program ends
//   env.run(ex);  t.join();                  // (or env.run() fails: also then)
//
// A worker is added before start() and serves that one environment for
// its lifetime (adding it later, or twice, stops the program naming it).
//
// Reactions of one level do not depend on each other, so any split of a
// level gives the results of one worker. When a level has at least
// `parallel_threshold` ready reactions the scheduler publishes it as a
// batch; the scheduler thread and the workers claim chunks of it with one
// compare-and-swap each and the scheduler waits for the last chunk.
//
// A worker spins briefly between batches (tags follow each other within
// microseconds in a busy program) and then sleeps in the port's waker; it
// never polls while the program is idle.
//
// Sharing a level must never be slower than running it on the scheduler
// thread alone. After each shared level the scheduler compares the level's
// time with its own pace on it and keeps a decaying balance; while sharing
// has lost time overall (helpers asleep, or preempted while holding a chunk
// on a loaded machine) it runs the next 1, 3, 7, ... 4095 wide levels
// alone, and the workers sleep meanwhile instead of spinning. Small levels
// (below `parallel_threshold`) are never shared. A worker is not an executor:
// reactions that start tasks or touch an executor must not be shared
// (keep them in levels narrower than the threshold, or use one worker).
#include <weft/core/detail/bounded_text.hpp>
#include <weft/port/port.hpp>
#include <weft/reactor/detail/runtime.hpp>

#include <atomic>
#include <cstdint>

namespace weft::reactors {

class worker {
public:
    explicit worker(const char* name = "worker") noexcept : name_(name) {}
    worker(const worker&) = delete;
    worker& operator=(const worker&) = delete;

    const char* name() const noexcept { return name_; }

    /// Runs batches until the program ends, or until env.start() or
    /// env.run() fails (assembly error, executor returned before the end):
    /// it returns whenever env.run() does. Call once, on the worker's own
    /// thread, after env.add_worker(*this). Blocks; does not allocate.
    void run() noexcept {
        std::uint32_t seen = 0;
        for (;;) {
            std::uint32_t gen = 0;
            for (int spin = 0; spin < spin_limit; ++spin) {
                gen = current_generation();
                if (gen != seen || stop_.load(std::memory_order_acquire)) break;
                // relaxed: a hint only. While the scheduler runs wide levels
                // alone (back-off), spinning would only take CPU time from
                // it on a loaded machine: sleep until the next batch.
                if (env_->backing_off_.load(std::memory_order_relaxed)) break;
                pause();
            }
            if (stop_.load(std::memory_order_acquire)) return;
            if (gen == seen) {
                // seq_cst pairs with the scheduler's seq_cst publish + load
                // of sleeping_: either it sees us asleep (and notifies) or
                // we see its new generation here.
                sleeping_.store(true, std::memory_order_seq_cst);
                if (current_generation() == seen && !stop_.load(std::memory_order_seq_cst))
                    waker_.wait_until(port::no_deadline);
                sleeping_.store(false, std::memory_order_relaxed);
                continue;
            }
            seen = gen;
            env_->work_batch(gen);
        }
    }

private:
    friend class basic_environment;
    // ~10-50 us of pause instructions: longer than the sequential part of
    // a busy tag, short enough not to hold a core the program is not using.
    static constexpr int spin_limit = 4000;

    std::uint32_t current_generation() const noexcept {
        return std::uint32_t(env_->batch_claim_.load(std::memory_order_seq_cst) >> 32);
    }
    static void pause() noexcept {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
    void notify_if_sleeping() noexcept {
        if (sleeping_.load(std::memory_order_seq_cst)) waker_.notify();
    }
    void stop() noexcept {
        stop_.store(true, std::memory_order_seq_cst);
        waker_.notify();
    }

    const char* name_;
    basic_environment* env_ = nullptr;
    worker* next_ = nullptr;
    port::waker waker_;
    std::atomic<bool> sleeping_{false};
    std::atomic<bool> stop_{false};
};

namespace detail {
/// Stops the program: a worker added after start() (the scheduler and the
/// running workers read the list without a lock) or added twice (its link
/// would point to itself). Names both; no printf.
[[noreturn, gnu::noinline, gnu::cold]] inline void worker_refused(const char* env, const char* w,
                                                                 const char* why) noexcept {
    char text[128];
    weft::detail::bounded_text{text, sizeof text}
        .put("weft: environment '")
        .put(env)
        .put("': worker '")
        .put(w)
        .put("' ")
        .put(why);
    port::fatal(text);
}
}  // namespace detail

inline void basic_environment::add_worker(worker& w) noexcept {
    if (started_ || w.env_) [[unlikely]]
        detail::worker_refused(cfg_.name, w.name_, w.env_ ? "added twice" : "added after start()");
    w.env_ = this;
    w.next_ = workers_;
    workers_ = &w;
}

// At the end, and on the failure paths of start() and run() (the program
// never started, or the executor returned first): worker::run() must
// return whenever env.run() does, or the documented join() would hang.
// Nothing on a port without workers (the loop is discarded there).
inline void basic_environment::release_workers() noexcept {
    if constexpr (detail::workers_supported)
        for (worker* x = workers_; x; x = x->next_) x->stop();
}

inline std::uint32_t basic_environment::work_batch(std::uint32_t generation) noexcept {
    // acquire: pairs with run_batch's release of the size. A helper that
    // saw generation G and then reads the size of batch G+1 also sees G
    // closed (index at closed_batch), so it never claims entries of a
    // batch that is still being written under G's number.
    const std::uint32_t n = batch_size_.load(std::memory_order_acquire);
    std::uint32_t workers = 1;
    for (worker* w = workers_; w; w = w->next_) ++workers;
    // Small chunks: a thread that the OS preempts while holding a chunk
    // makes everyone wait for it, so hold little (one CAS per chunk is
    // cheap next to reactions worth sharing).
    const std::uint32_t chunk = n / (8 * workers) ? n / (8 * workers) : 1;
    std::uint32_t ran = 0;
    for (;;) {
        // acquire: the batch entries were written before the release that
        // published this generation.
        std::uint64_t c = batch_claim_.load(std::memory_order_acquire);
        std::uint32_t i;
        do {
            if (std::uint32_t(c >> 32) != generation) return ran;
            i = std::uint32_t(c);
            if (i >= n) return ran;
        } while (!batch_claim_.compare_exchange_weak(c, c + chunk, std::memory_order_acq_rel,
                                                     std::memory_order_acquire));
        std::uint32_t end = i + chunk < n ? i + chunk : n;
        for (std::uint32_t k = i; k < end; ++k) run_one(*batch_[k]);
        ran += end - i;
        // release: publishes this chunk's effects to the scheduler.
        batch_done_.fetch_add(end - i, std::memory_order_release);
    }
}

inline bool basic_environment::share_level() noexcept {
    if (share_skip_ == 0) return true;
    if (--share_skip_ == 0) {
        // The next wide level is a probe: wake the workers now, so that it
        // measures sharing rather than a wake-up from sleep.
        backing_off_.store(false, std::memory_order_relaxed);
        for (worker* w = workers_; w; w = w->next_) w->notify_if_sleeping();
    }
    return false;
}

inline void basic_environment::run_batch(std::uint32_t n) noexcept {
    ++stats_.parallel_levels;
    parallel_ = true;
    backing_off_.store(false, std::memory_order_relaxed);
    batch_size_.store(n, std::memory_order_release);
    batch_done_.store(0, std::memory_order_relaxed);
    ++batch_gen_;
    const std::uint64_t t0 = port::now_ns();
    // seq_cst: publishes the batch (release) and orders the store before
    // the loads of sleeping_ (see worker::run).
    batch_claim_.store(std::uint64_t(batch_gen_) << 32, std::memory_order_seq_cst);
    for (worker* w = workers_; w; w = w->next_) w->notify_if_sleeping();
    const std::uint64_t tm = port::now_ns();
    const std::uint32_t mine = work_batch(batch_gen_);
    const std::uint64_t t1 = port::now_ns();
    // acquire: every chunk's effects are visible after this.
    while (batch_done_.load(std::memory_order_acquire) != n) worker::pause();
    // Close the batch before the next one's size and entries are written:
    // a late helper still holding this generation must find nothing left
    // to claim whatever size it reads (see work_batch).
    batch_claim_.store((std::uint64_t(batch_gen_) << 32) | closed_batch, std::memory_order_relaxed);
    parallel_ = false;
    // Sharing must never lose to running the level here alone. Estimate
    // that from this thread's own pace (the wake-ups count against the
    // shared run, not the pace) and keep a decaying balance of time won:
    // one level lost to a preempted helper costs a scheduler time slice
    // (milliseconds) and outweighs many won by microseconds, so while the
    // balance is negative run the next 1, 3, 7, ... wide levels alone.
    const std::uint64_t t2 = port::now_ns();
    const std::int64_t shared = std::int64_t(t2 - t0);
    const std::int64_t alone = mine ? std::int64_t((t1 - tm) * n / mine) : shared;
    share_credit_ += (alone - shared) - share_credit_ / 8;
    if (share_credit_ < 0) {
        ++stats_.parallel_losses;
        share_backoff_ = share_backoff_ >= max_share_backoff ? max_share_backoff : 2 * share_backoff_ + 1;
        share_skip_ = share_backoff_;
        backing_off_.store(true, std::memory_order_relaxed);
    } else {
        share_backoff_ = 0;
    }
}

}  // namespace weft::reactors
