// SPDX-License-Identifier: Apache-2.0
#pragma once
// POSIX host: facts about the machine for weft/batch's tuner and benchmarks.
//
//  - read_cache_levels(): data/unified cache sizes of cpu0 from sysfs
//    (/sys/devices/system/cpu/cpu0/cache/index*/{level,type,size}), with a
//    sysconf() fallback and finally a fixed guess (32 KiB L1, 1 MiB L2);
//  - perf_counters: cycles, instructions and cache misses of the calling
//    thread through perf_event_open(2), when the kernel and the hypervisor
//    allow it (available() says so and why not).
// Linux-only parts are behind __linux__ here, in ports/, as DESIGN.md asks.
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

#if defined(__linux__)
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#endif

namespace weft::port {

namespace detail {
inline bool read_line(const char* path, char* buf, std::size_t n) noexcept {
    std::FILE* f = std::fopen(path, "r");
    if (!f) return false;
    bool ok = std::fgets(buf, int(n), f) != nullptr;
    std::fclose(f);
    if (ok) buf[std::strcspn(buf, "\n")] = 0;
    return ok;
}
// "32K", "1024K", "32M" -> bytes
inline std::size_t parse_size(const char* s) noexcept {
    char* end = nullptr;
    unsigned long long v = std::strtoull(s, &end, 10);
    if (end && (*end == 'K' || *end == 'k')) v <<= 10;
    else if (end && (*end == 'M' || *end == 'm')) v <<= 20;
    else if (end && (*end == 'G' || *end == 'g')) v <<= 30;
    return std::size_t(v);
}
}  // namespace detail

/// Data-cache sizes, innermost first (bytes; 0 = level absent). Converts
/// field by field to weft::batch::cache_hierarchy (ports do not include the
/// layers above them).
struct cache_levels {
    std::size_t level_bytes[4] = {};
    std::size_t levels = 0;
    std::size_t total() const noexcept {
        std::size_t t = 0;
        for (std::size_t i = 0; i < levels && i < 4; ++i) t += level_bytes[i];
        return t;
    }
};

/// Where the cache sizes came from.
enum class cache_source { sysfs, sysconf, fallback };

/// Data-cache sizes of cpu0, innermost first; `source` says how they were found.
inline cache_levels read_cache_levels(cache_source* source = nullptr) noexcept {
    cache_levels c;
    for (int i = 0; i < 8; ++i) {
        char path[96], level[16], type[32], size[32];
        std::snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        if (!detail::read_line(path, level, sizeof level)) break;
        std::snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
        if (!detail::read_line(path, type, sizeof type) || std::strcmp(type, "Instruction") == 0) continue;
        std::snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        if (!detail::read_line(path, size, sizeof size)) continue;
        int lv = std::atoi(level);
        if (lv >= 1 && lv <= 4) {
            c.level_bytes[lv - 1] = detail::parse_size(size);
            if (std::size_t(lv) > c.levels) c.levels = std::size_t(lv);
        }
    }
    if (c.total() > 0) {
        if (source) *source = cache_source::sysfs;
        return c;
    }
#if defined(_SC_LEVEL1_DCACHE_SIZE)
    long l1 = ::sysconf(_SC_LEVEL1_DCACHE_SIZE), l2 = ::sysconf(_SC_LEVEL2_CACHE_SIZE),
         l3 = ::sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (l1 > 0) {
        c = {};
        c.level_bytes[0] = std::size_t(l1);
        c.levels = 1;
        if (l2 > 0) { c.level_bytes[1] = std::size_t(l2); c.levels = 2; }
        if (l3 > 0) { c.level_bytes[2] = std::size_t(l3); c.levels = 3; }
        if (source) *source = cache_source::sysconf;
        return c;
    }
#endif
    c = {};
    c.level_bytes[0] = 32u << 10;
    c.level_bytes[1] = 1u << 20;
    c.levels = 2;
    if (source) *source = cache_source::fallback;
    return c;
}

/// Hardware counters of the calling thread (cycles, instructions, cache
/// misses). On machines without a PMU (many VMs) or with
/// perf_event_paranoid too high, available() is false and why() says so;
/// callers then report wall-clock medians only.
class perf_counters {
public:
    enum counter { cycles = 0, instructions = 1, cache_misses = 2, count = 3 };

    perf_counters() noexcept {
#if defined(__linux__)
        const std::uint64_t config[count] = {PERF_COUNT_HW_CPU_CYCLES, PERF_COUNT_HW_INSTRUCTIONS,
                                             PERF_COUNT_HW_CACHE_MISSES};
        for (int i = 0; i < count; ++i) {
            perf_event_attr a;
            std::memset(&a, 0, sizeof a);
            a.type = PERF_TYPE_HARDWARE;
            a.size = sizeof a;
            a.config = config[i];
            a.disabled = 1;
            a.exclude_kernel = 1;
            a.exclude_hv = 1;
            fd_[i] = int(::syscall(SYS_perf_event_open, &a, 0, -1, -1, 0));
            if (fd_[i] < 0) {
                std::snprintf(why_, sizeof why_, "perf_event_open(%s) failed: %s",
                              name(counter(i)), std::strerror(errno));
                close_all();
                return;
            }
        }
        ok_ = true;
#else
        std::snprintf(why_, sizeof why_, "perf_event_open is Linux-only");
#endif
    }
    ~perf_counters() { close_all(); }
    perf_counters(const perf_counters&) = delete;
    perf_counters& operator=(const perf_counters&) = delete;

    bool available() const noexcept { return ok_; }
    const char* why() const noexcept { return why_; }
    static const char* name(counter c) noexcept {
        return c == cycles ? "cycles" : c == instructions ? "instructions" : "cache_misses";
    }

    /// Resets and starts all counters.
    void start() noexcept {
#if defined(__linux__)
        if (!ok_) return;
        for (int f : fd_) { ::ioctl(f, PERF_EVENT_IOC_RESET, 0); ::ioctl(f, PERF_EVENT_IOC_ENABLE, 0); }
#endif
    }
    /// Stops the counters and stores their values (read with value()).
    void stop() noexcept {
#if defined(__linux__)
        if (!ok_) return;
        for (int i = 0; i < count; ++i) {
            ::ioctl(fd_[i], PERF_EVENT_IOC_DISABLE, 0);
            std::uint64_t v = 0;
            if (::read(fd_[i], &v, sizeof v) != ssize_t(sizeof v)) v = 0;
            value_[i] = v;
        }
#endif
    }
    std::uint64_t value(counter c) const noexcept { return value_[c]; }

private:
    void close_all() noexcept {
        for (int& f : fd_) {
            if (f >= 0) ::close(f);
            f = -1;
        }
    }
    int fd_[count] = {-1, -1, -1};
    std::uint64_t value_[count] = {};
    bool ok_ = false;
    char why_[160] = "";
};

}  // namespace weft::port
