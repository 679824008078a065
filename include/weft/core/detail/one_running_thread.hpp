// SPDX-License-Identifier: Apache-2.0
#pragma once
// Hosts: stops the program when executors run on two threads at once.
// Frame pools, the frame allocator (its remembered pool, the frame report,
// last_error(), use_frames) are process-wide and unsynchronised, so two
// threads creating coroutines at the same time corrupt them (a crash or a
// hang much later). One thread runs coroutines at a time; other threads
// hand work over with executor::post() and split_phase. Runs nested on one
// thread (an executor run from another's task) are not concurrent.
// One-core ports (boards) never instantiate it (no TLS there): the
// executor's calls are discarded by `if constexpr`.
#include <weft/core/detail/bounded_text.hpp>
#include <weft/port/port.hpp>

#include <atomic>

namespace weft::detail {

struct one_running_thread {
    static void enter(const char* name) noexcept {
        if (depth()++ != 0) return;
        const char* other = nullptr;
        if (!running().compare_exchange_strong(other, name ? name : "", std::memory_order_acq_rel))
            two_threads(name, other);
    }
    static void leave() noexcept {
        if (--depth() == 0) running().store(nullptr, std::memory_order_release);
    }
    /// True inside an executor's run() on the calling thread.
    static bool on_this_thread() noexcept { return depth() != 0; }
    /// The name of the executor whose run() a thread is inside, or nullptr.
    static const char* running_name() noexcept { return running().load(std::memory_order_acquire); }

private:
    static std::atomic<const char*>& running() noexcept {
        static std::atomic<const char*> r{nullptr};
        return r;
    }
    static unsigned& depth() noexcept {
        static thread_local unsigned d = 0;
        return d;
    }
    [[noreturn, gnu::noinline, gnu::cold]] static void two_threads(const char* name, const char* other) noexcept {
        char text[256];
        bounded_text t{text, sizeof text};
        t.put("weft: executor '").put(name).put("': run() while executor '").put(other)
            .put("' runs on another thread: frame pools and the frame allocator are process-wide "
                 "and not synchronised; run coroutines on one thread at a time (docs/core.md, Known limits)");
        port::fatal(text);
    }
};

}  // namespace weft::detail
