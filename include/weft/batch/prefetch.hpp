// SPDX-License-Identifier: Apache-2.0
#pragma once
// Execution policies and the prefetch / yield awaitables of batch kernels.
//
// A kernel is written once, as a lane coroutine templated on a policy, and
// says `co_await Policy::prefetch(p, bytes)` before it touches a block:
//
//   policy                 prefetch instructions   suspends
//   sequential             no                      no  (await_ready() is constant true)
//   interleaved            yes                     yes
//   interleaved_no_prefetch no                     yes (plain round-robin yield)
//
// `Policy::hint(p, bytes)` / `hint_write` prefetch a further block of the
// same step without suspending (no-ops unless the policy prefetches).
// With `sequential` the awaits compile to nothing, so the same source is the
// honest baseline for the interleaved run.
#include <coroutine>
#include <cstddef>
#include <cstdint>

namespace weft::batch {

/// Bytes per cache line assumed when issuing prefetches (x86-64, Cortex-A).
inline constexpr std::size_t cache_line_bytes = 64;

/// Issues one read prefetch per cache line of [p, p + bytes). Never faults.
inline void prefetch_read(const void* p, std::size_t bytes) noexcept {
    auto a = reinterpret_cast<std::uintptr_t>(p) & ~std::uintptr_t(cache_line_bytes - 1);
    auto end = reinterpret_cast<std::uintptr_t>(p) + bytes;
    for (; a < end; a += cache_line_bytes) __builtin_prefetch(reinterpret_cast<const void*>(a), 0, 3);
}

/// Issues one write-intent prefetch per cache line of [p, p + bytes).
inline void prefetch_write(const void* p, std::size_t bytes) noexcept {
    auto a = reinterpret_cast<std::uintptr_t>(p) & ~std::uintptr_t(cache_line_bytes - 1);
    auto end = reinterpret_cast<std::uintptr_t>(p) + bytes;
    for (; a < end; a += cache_line_bytes) __builtin_prefetch(reinterpret_cast<const void*>(a), 1, 3);
}

/// The awaiter of prefetch()/yield(): suspends iff `Suspends`.
/// The interleaver resumes the lane on its next round; nothing is queued,
/// so any other coroutine (a weft::task) would never be resumed.
template <bool Suspends>
struct [[nodiscard("co_await it: it does nothing until awaited")]] step_operation {
    static constexpr bool await_ready() noexcept { return !Suspends; }
    template <class P>
    static constexpr void await_suspend(std::coroutine_handle<P>) noexcept {
        static_assert(requires { P::is_batch_lane; },
                      "weft::batch prefetch()/yield() suspend only inside a weft::batch::lane "
                      "(nothing would resume a task that awaited them)");
    }
    static constexpr void await_resume() noexcept {}
};

/// Policy: run each item to completion; prefetch and suspension compiled out.
struct sequential {
    static constexpr bool interleaves = false;
    static constexpr bool prefetches = false;
    static constexpr const char* name = "sequential";
    static constexpr step_operation<false> prefetch(const void*, std::size_t) noexcept { return {}; }
    static constexpr step_operation<false> prefetch_for_write(const void*, std::size_t) noexcept { return {}; }
    static constexpr step_operation<false> yield() noexcept { return {}; }
    static constexpr void hint(const void*, std::size_t) noexcept {}
    static constexpr void hint_write(const void*, std::size_t) noexcept {}
};

/// Policy: prefetch the next block, then let the other lanes run.
struct interleaved {
    static constexpr bool interleaves = true;
    static constexpr bool prefetches = true;
    static constexpr const char* name = "interleaved";
    static step_operation<true> prefetch(const void* p, std::size_t bytes) noexcept {
        prefetch_read(p, bytes);
        return {};
    }
    static step_operation<true> prefetch_for_write(const void* p, std::size_t bytes) noexcept {
        prefetch_write(p, bytes);
        return {};
    }
    static constexpr step_operation<true> yield() noexcept { return {}; }
    /// Prefetch without suspending (a second block for the same step).
    static void hint(const void* p, std::size_t bytes) noexcept { prefetch_read(p, bytes); }
    static void hint_write(const void* p, std::size_t bytes) noexcept { prefetch_write(p, bytes); }
};

/// Policy: interleave lanes without prefetch instructions (the control that
/// separates the effect of the access pattern from that of the prefetches).
struct interleaved_no_prefetch {
    static constexpr bool interleaves = true;
    static constexpr bool prefetches = false;
    static constexpr const char* name = "interleaved_no_prefetch";
    static constexpr step_operation<true> prefetch(const void*, std::size_t) noexcept { return {}; }
    static constexpr step_operation<true> prefetch_for_write(const void*, std::size_t) noexcept { return {}; }
    static constexpr step_operation<true> yield() noexcept { return {}; }
    static constexpr void hint(const void*, std::size_t) noexcept {}
    static constexpr void hint_write(const void*, std::size_t) noexcept {}
};

}  // namespace weft::batch
