// SPDX-License-Identifier: Apache-2.0
#pragma once
// POSIX host port: CLOCK_MONOTONIC, a condition variable for wait/notify, a
// process-wide recursive mutex as the "interrupt mask". Interrupt sources
// are simulated by threads (see weft_port/interrupt_thread.hpp).
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace weft::port {

/// Speed over code size: the frame allocator's fast path is inlined into
/// every coroutine's creation and destruction.
inline constexpr bool small_code = false;

/// Simulated interrupt sources are threads, possibly on other cores.
inline constexpr bool single_core = false;

inline std::uint64_t now_ns() noexcept {
    timespec ts;
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return std::uint64_t(ts.tv_sec) * 1'000'000'000u + std::uint64_t(ts.tv_nsec);
}

[[noreturn]] inline void fatal(const char* message) noexcept {
    // What the program printed before stays in the log: abort() does not
    // flush stdio, and stdout redirected to a file or pipe is buffered.
    std::fflush(stdout);
    std::fprintf(stderr, "%s\n", message);
    std::abort();
}

namespace detail {
inline pthread_mutex_t& interrupt_mask() noexcept {
    static pthread_mutex_t m = [] {
        pthread_mutex_t mm;
        pthread_mutexattr_t a;
        pthread_mutexattr_init(&a);
        pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
        pthread_mutex_init(&mm, &a);
        pthread_mutexattr_destroy(&a);
        return mm;
    }();
    return m;
}
// Set by interrupt_thread while its handler runs.
inline bool& handler_running() noexcept {
    static thread_local bool running = false;
    return running;
}
// How many critical_sections this thread is inside: interrupt_thread::stop()
// must not wait for a handler that waits for this thread's section.
inline unsigned& critical_depth() noexcept {
    static thread_local unsigned depth = 0;
    return depth;
}
[[noreturn, gnu::noinline, gnu::cold]] inline void waited_masked() noexcept {
    fatal("weft: executor: waits for work inside a critical_section: no simulated interrupt handler can run "
          "until the section ends, so only a timer could end the wait (end the section before run())");
}
}  // namespace detail

/// Sleep/wake for one executor. notify() may come from any thread.
class waker {
public:
    waker() noexcept {
        pthread_condattr_t attr;
        pthread_condattr_init(&attr);
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
        pthread_cond_init(&cond_, &attr);
        pthread_condattr_destroy(&attr);
        pthread_mutex_init(&mutex_, nullptr);
    }
    waker(const waker&) = delete;
    waker& operator=(const waker&) = delete;
    ~waker() {
        pthread_cond_destroy(&cond_);
        pthread_mutex_destroy(&mutex_);
    }

    void wait_until(std::uint64_t deadline_ns) noexcept {
        // Inside a critical_section this thread holds the "interrupt mask":
        // no simulated handler could run, so no notify() could come, and
        // the wait would end only at a deadline, if there is one. Checked
        // before the latch, so the mistake stops the program every time,
        // not only when no notify happened to be latched. (The board checks
        // the same in Debug builds; here it is one thread-local read on
        // the idle path.)
        if (detail::critical_depth() != 0) detail::waited_masked();
        sleep_until(deadline_ns);
    }

    /// Waits for notify() like wait_until(no_deadline), or until ready()
    /// is true. Several threads: whoever makes ready() true must notify()
    /// afterwards, or this may sleep on.
    template <class Ready>
    void wait(Ready ready) noexcept {
        if (detail::critical_depth() != 0) detail::waited_masked();  // as in wait_until()
        if (!ready()) sleep_until(~std::uint64_t{0});
    }

    void notify() noexcept {
        pthread_mutex_lock(&mutex_);
        // release: publishes the notifier's writes (e.g. a completed
        // split_phase value) to the thread that observes pending_.
        pending_.store(true, std::memory_order_release);
        pthread_cond_signal(&cond_);
        pthread_mutex_unlock(&mutex_);
    }

private:
    // wait_until() after its critical_section check.
    void sleep_until(std::uint64_t deadline_ns) noexcept {
        // Fast path: a latched notify costs one atomic exchange, no lock.
        // acquire: pairs with the release in notify() so that whatever the
        // notifier published before notifying is visible after we return.
        if (pending_.exchange(false, std::memory_order_acquire)) return;
        pthread_mutex_lock(&mutex_);
        // acquire, as on the fast path (a fence after the loop said the
        // same, but GCC's -fsanitize=thread rejects fences: -Wtsan).
        while (!pending_.load(std::memory_order_acquire)) {
            if (deadline_ns == ~std::uint64_t{0}) {
                pthread_cond_wait(&cond_, &mutex_);
            } else {
                if (now_ns() >= deadline_ns) break;
                timespec ts{time_t(deadline_ns / 1'000'000'000u),
                            long(deadline_ns % 1'000'000'000u)};
                pthread_cond_timedwait(&cond_, &mutex_, &ts);
            }
        }
        pending_.store(false, std::memory_order_relaxed);
        pthread_mutex_unlock(&mutex_);
    }

    std::atomic<bool> pending_{false};
    pthread_mutex_t mutex_;
    pthread_cond_t cond_;
};

/// True inside a simulated interrupt source's handler (interrupt_thread).
inline bool in_handler() noexcept { return detail::handler_running(); }

/// On the host "masking interrupts" means excluding the simulated interrupt
/// threads, which take the same lock around their handlers.
class critical_section {
public:
    critical_section() noexcept {
        pthread_mutex_lock(&detail::interrupt_mask());
        ++detail::critical_depth();
    }
    ~critical_section() {
        --detail::critical_depth();
        pthread_mutex_unlock(&detail::interrupt_mask());
    }
    critical_section(const critical_section&) = delete;
    critical_section& operator=(const critical_section&) = delete;
};

inline void console_write(const char* text, std::size_t length) noexcept {
    (void)!::write(1, text, length);
}

inline const char* target_name() noexcept {
#if defined(__x86_64__)
    return "host-x86_64";
#elif defined(__aarch64__)
    return "host-aarch64";
#else
    return "host";
#endif
}

}  // namespace weft::port
