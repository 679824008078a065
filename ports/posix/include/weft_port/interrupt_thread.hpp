// SPDX-License-Identifier: Apache-2.0
#pragma once
// Simulated interrupt source for the host port: a thread that runs a
// handler every `period` (like a timer IRQ), or whenever raise() is called
// (like a software-pended IRQ), or once `d` after raise_after(d) (like a
// one-shot timer, or a conversion that completes later). The handler runs with the port's interrupt
// mask held, so code inside a critical_section never sees it mid-way,
// exactly as on a microcontroller. Handlers must only use interrupt-safe
// weft functions (split_phase::complete, executor::post, ...).
#include <weft_port/platform.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace weft::port {

class interrupt_thread {
public:
    /// Periodic source: handler() every `period` until stop().
    template <class Handler>
    interrupt_thread(std::chrono::nanoseconds period, Handler handler)
        : period_(period), thread_([this, handler]() mutable { loop(handler); }) {}

    /// Raised-on-demand source: handler() once per raise().
    template <class Handler>
    explicit interrupt_thread(Handler handler)
        : period_(0), thread_([this, handler]() mutable { loop(handler); }) {}

    interrupt_thread(const interrupt_thread&) = delete;
    interrupt_thread& operator=(const interrupt_thread&) = delete;
    ~interrupt_thread() {
        stop();
        // stop() does not join inside a critical_section; the thread may be
        // waiting to take the section to see that it has stopped, and this
        // object must outlive it. Stopped every time, not only when the
        // timing is unlucky.
        std::lock_guard<std::mutex> g(join_m_);
        if (thread_.joinable() && detail::critical_depth() > 0)
            fatal("weft: interrupt_thread: destroyed inside a critical_section while its thread runs: "
                  "the thread may wait for the section; stop() it there and destroy it outside");
    }

    /// Pends the interrupt (on-demand sources). Callable from any thread.
    void raise() {
        {
            std::lock_guard<std::mutex> g(m_);
            ++pending_;
        }
        cv_.notify_one();
    }

    /// Pends the interrupt once, `delay` from now (on-demand sources): a
    /// one-shot hardware timer, e.g. a conversion that completes later.
    /// A second call before it fired re-arms it (one delayed raise at a
    /// time); raise() is independent of it. Callable from any thread.
    void raise_after(std::chrono::nanoseconds delay) {
        {
            std::lock_guard<std::mutex> g(m_);
            due_ = std::chrono::steady_clock::now() + delay;
            armed_ = true;
            ++rearms_;
        }
        cv_.notify_one();
    }

    /// Ends the source; when it returns, the handler no longer runs.
    /// Callable from any thread, also from the handler itself (a source
    /// that stops itself) and inside a critical_section (another source's
    /// handler, masked code): there it only ends the source, and the
    /// destructor joins its thread later, outside the section.
    void stop() {
        {
            std::lock_guard<std::mutex> g(m_);
            stopping_ = true;
            // The loop checks stopping_ before it waits again; joining our
            // own thread would fail (and abort without exceptions).
            if (std::this_thread::get_id() == self_) return;
        }
        cv_.notify_one();
        // Holding the mask, we know the handler is not running, and the
        // loop reads stopping_ again once it holds the mask, so it will
        // not run. A join here could wait for ever: the thread may be
        // waiting for the mask we hold.
        if (detail::critical_depth() > 0) return;
        // Concurrent stop() calls: one joins, the others wait for it, so
        // none returns while the handler may still run.
        std::lock_guard<std::mutex> g(join_m_);
        if (thread_.joinable()) thread_.join();
    }

private:
    template <class Handler>
    void loop(Handler& handler) {
        auto next = std::chrono::steady_clock::now() + period_;
        std::unique_lock<std::mutex> lk(m_);
        self_ = std::this_thread::get_id();
        for (;;) {
            if (period_.count() > 0) {
                cv_.wait_until(lk, next, [&] { return stopping_; });
                if (stopping_) return;
                next += period_;
            } else {
                // A re-arm wakes the wait so that it waits for the new time.
                const unsigned seen = rearms_;
                auto woken = [&] { return stopping_ || pending_ > 0 || rearms_ != seen; };
                if (armed_) cv_.wait_until(lk, due_, woken);
                else cv_.wait(lk, woken);
                if (stopping_) return;
                if (pending_ > 0) --pending_;
                else if (armed_ && std::chrono::steady_clock::now() >= due_) armed_ = false;
                else continue;  // re-armed: wait again
            }
            lk.unlock();
            {
                critical_section irq_context;  // "interrupts masked" while the handler runs
                // A stop() made while we waited for the mask (by a
                // handler, or code inside a critical_section) returned
                // without waiting for us: the handler must not run now.
                if (stopped()) return;
                detail::handler_running() = true;
                handler();
                detail::handler_running() = false;
            }
            lk.lock();
        }
    }

    bool stopped() {
        std::lock_guard<std::mutex> g(m_);
        return stopping_;
    }

    std::chrono::nanoseconds period_;
    std::mutex m_;
    std::condition_variable cv_;
    unsigned pending_ = 0;
    bool stopping_ = false;
    bool armed_ = false;  // raise_after() is due at due_
    unsigned rearms_ = 0;
    std::chrono::steady_clock::time_point due_{};
    std::thread::id self_;  // the source's thread, under m_
    std::mutex join_m_;
    std::thread thread_;
};

}  // namespace weft::port
