// SPDX-License-Identifier: Apache-2.0
#pragma once
// Static memory for coroutine frames.
//
// The application declares one or more pools, each with a slot size and a
// slot count fixed at compile time:
//
//     weft::frame_pool<256, 8> small_frames{"small"};
//     weft::frame_pool<1024, 2> big_frames{"big"};
//
// Every weft coroutine (task, generator, batch lane) takes its frame from
// the pools: the smallest slot that fits and is free, or the pool named by
// an active weft::use_frames scope. Nothing falls back to the heap; when no
// slot fits, the coroutine is not created and its creator receives an error
// that names the pool and its capacity (and, with the frame report compiled
// in, the coroutine and its frame size when no slot is large enough).
//
// Each allocation is also recorded per coroutine function (the compiler
// reports the frame size to operator new), so that a build can print the
// size of every coroutine's frame and the peak use of every pool: the facts
// needed to size the pools of the next build (see docs/port-cortex-m.md,
// "Frame sizes before deployment").
#include <weft/core/detail/bounded_text.hpp>
#include <weft/core/detail/executor_only.hpp>
#include <weft/core/result.hpp>
#include <weft/port/port.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#ifndef WEFT_FRAME_REPORT_ENTRIES
/// Distinct coroutine functions recorded in the frame-size report; 0 turns
/// the report off (and its bookkeeping compiles out).
#define WEFT_FRAME_REPORT_ENTRIES 48
#endif

namespace weft {

/// Where a coroutine frame is being allocated: the coroutine's name, as the
/// compiler sees it at the call to operator new. Used only for reporting.
struct frame_site {
    const char* function;
    static constexpr frame_site current(const char* f = __builtin_FUNCTION()) noexcept {
        return {f};
    }
};

/// One line of the frame-size report.
struct frame_record {
    const char* function = nullptr;  ///< coroutine name (compiler-provided)
    std::uint32_t bytes = 0;         ///< frame size requested by the compiler
    std::uint32_t created = 0;       ///< frames created since start-up
};

/// Untyped part of a pool; frame_pool<S, N> supplies the storage.
class frame_pool_base {
public:
    frame_pool_base(const frame_pool_base&) = delete;
    frame_pool_base& operator=(const frame_pool_base&) = delete;

    const char* name() const noexcept { return name_; }
    std::size_t slot_bytes() const noexcept { return slot_bytes_; }
    std::size_t capacity() const noexcept { return slots_; }
    std::size_t in_use() const noexcept { return used_; }
    std::size_t peak() const noexcept { return peak_; }
    std::size_t failures() const noexcept { return failures_; }
    /// Largest frame this pool has been asked for: those it served or had
    /// no free slot for, a frame too large for it when a use_frames scope
    /// forced it, and, when no pool's slots fit a frame, that frame in the
    /// largest pool (the one the error names). A pool passed over because
    /// its slots are too small is not asked: up to slot_bytes(), this is
    /// the largest frame the pool had to hold, which the report's
    /// per-name lines cannot tell (one name, several frame sizes).
    std::size_t largest_request() const noexcept { return largest_; }
    bool owns(const void* p) const noexcept {
        auto a = reinterpret_cast<std::uintptr_t>(p);
        return a >= reinterpret_cast<std::uintptr_t>(base_) &&
               a < reinterpret_cast<std::uintptr_t>(end_);
    }

    /// Not ISR-safe: frames are created and destroyed on the executor.
    void* try_allocate(std::size_t n) noexcept {
        note_request(n);
        if (n > slot_bytes_) return nullptr;
        return pop();
    }
    void deallocate(void* p) noexcept {
        auto* s = static_cast<free_slot*>(p);
        s->next = free_;
        free_ = s;
        --used_;
    }
    /// Records a request for the report (largest_request()).
    void note_request(std::size_t n) noexcept {
        if (n > largest_) largest_ = n;
    }
    /// Forget the peak (e.g. between measurement phases).
    void reset_peak() noexcept;

    /// Registered pools, in increasing slot size.
    static frame_pool_base* first() noexcept { return head(); }
    frame_pool_base* next() const noexcept { return next_; }

protected:
    frame_pool_base(const char* name, unsigned char* base, std::size_t slot_bytes,
                    std::size_t slots) noexcept
        : name_(name), base_(base), end_(base + slot_bytes * slots), slot_bytes_(slot_bytes),
          slots_(slots) {
        // Threaded here rather than on first use: a lazy free list needs a
        // second allocation path (never-used slots) that costs more flash
        // than this loop (measured on Cortex-M4, docs/footprint.md).
        for (std::size_t i = slots; i-- > 0;) {
            auto* s = reinterpret_cast<free_slot*>(base + i * slot_bytes);
            s->next = free_;
            free_ = s;
        }
        link();
    }
    ~frame_pool_base() = default;
    void unlink() noexcept;

private:
    friend struct frame_allocator;
    struct free_slot { free_slot* next; };

    // The allocator's fast path: a recycled slot, if any.
    [[gnu::always_inline]] void* pop() noexcept {
        free_slot* s = free_;
        if (s == nullptr) return nullptr;
        free_ = s->next;
        count_allocation();
        return s;
    }
    [[gnu::always_inline]] void count_allocation() noexcept {
        if (++used_ > peak_) peak_ = used_;
    }

    static frame_pool_base*& head() noexcept {
        static frame_pool_base* h = nullptr;
        return h;
    }
    void link() noexcept;

    const char* name_;
    unsigned char* base_;
    unsigned char* end_;  // base_ + slot_bytes_ * slots_: owns() without a multiply
    std::size_t slot_bytes_;
    std::size_t slots_;
    free_slot* free_ = nullptr;
    std::size_t used_ = 0, peak_ = 0, failures_ = 0, largest_ = 0;
    frame_pool_base* next_ = nullptr;
};

/// A pool that leaves the registry when destroyed, so that pools may also
/// be locals (host tests do that).
class unlinking_pool_base : public frame_pool_base {
protected:
    using frame_pool_base::frame_pool_base;
    ~unlinking_pool_base() { unlink(); }
};

/// A pool of `Slots` frames of at most `SlotBytes` bytes each, in static
/// storage inside the object (declare it as a global or a static).
/// On small-code ports (the bare-metal ones, where static objects are
/// never destroyed) the pool is trivially destructible: no destructor and
/// no exit-time registration in flash, and so it must not be a local.
template <std::size_t SlotBytes, std::size_t Slots>
class frame_pool : public std::conditional_t<port::small_code, frame_pool_base, unlinking_pool_base> {
    using base = std::conditional_t<port::small_code, frame_pool_base, unlinking_pool_base>;
    static_assert(Slots > 0, "a frame_pool needs at least one slot");
    static_assert(SlotBytes >= sizeof(void*),
                  "frame_pool slots must hold at least a pointer");
    static constexpr std::size_t align = alignof(std::max_align_t);
    static constexpr std::size_t slot = (SlotBytes + align - 1) / align * align;

public:
    explicit frame_pool(const char* name) noexcept
        : base(name, storage_, slot, Slots) {}

private:
    alignas(std::max_align_t) unsigned char storage_[slot * Slots];
};

/// The allocator every weft coroutine promise uses.
struct frame_allocator {
    /// Allocates a frame of n bytes for the coroutine `site`; nullptr (and a
    /// recorded error, see last_error()) when no pool can provide it.
    ///
    /// Inline fast path: a coroutine allocates frames of one size again and
    /// again (a generator per tree node, a task per request), so the pool
    /// the last search found first-fitting for that size (and that
    /// coroutine's report record) is remembered. A hit with a recycled slot
    /// free is a compare, a pop and the counters; anything else (another
    /// size, that pool out of recycled slots, a use_frames scope, a pool
    /// added or removed) takes the full search, which gives the same answer.
    [[gnu::always_inline]] static void* allocate(std::size_t n, frame_site site) noexcept {
        detail::check_frame_creation();
        if constexpr (port::small_code) return search(n, site);
        hint& h = last();
        if (n == h.bytes && same_site(h, site.function)) {
            if (void* p = h.pool->pop()) {
                count_hit(h);
                return p;
            }
            return allocate_further(n, site);
        }
        return allocate_slow(n, site);
    }

    [[gnu::always_inline]] static void deallocate(void* p) noexcept {
        if constexpr (port::small_code) {
            give_back(p);
            return;
        }
        hint& h = last();
        if (h.pool && h.pool->owns(p)) {
            h.pool->deallocate(p);
            return;
        }
        deallocate_slow(p);
    }

    /// The error of the most recent failed allocation; each failure
    /// rewrites it.
    ///
    /// With the frame report compiled in (WEFT_FRAME_REPORT_ENTRIES > 0), a
    /// frame too large for every slot it could take also names the frame:
    /// "frame pool 'app': 784 B frame of 'shell' larger than its slots
    /// (limit 512)". That detail is formatted into one static buffer owned
    /// by the allocator, which, like this record, holds the latest such
    /// failure: a copy of an older frame_too_large error (in a result)
    /// keeps its code, pool and limit, but its message() reads the latest
    /// frame's size and name. Print it before another frame fails to fit.
    /// Without the report the detail is a static phrase ("frame larger
    /// than its slots") and no formatting code is linked.
    static error& last_error() noexcept {
        static error e{};
        return e;
    }
    /// The pool forced by the innermost use_frames scope, or nullptr.
    static frame_pool_base*& scoped() noexcept {
        static frame_pool_base* p = nullptr;
        return p;
    }

    /// The frame-size report: one record per coroutine function seen.
    static frame_record* records() noexcept { return table(); }
    static std::size_t record_count() noexcept {
        std::size_t n = 0;
#if WEFT_FRAME_REPORT_ENTRIES > 0
        while (n < WEFT_FRAME_REPORT_ENTRIES && table()[n].function) ++n;
#endif
        return n;
    }

    /// Forgets the remembered pool (its search result may have changed).
    static void forget() noexcept {
        if constexpr (!port::small_code) {
            last().bytes = 0;
            last().pool = nullptr;
        }
    }

private:
    struct hint {
        std::size_t bytes = 0;  // 0: nothing remembered
        frame_pool_base* pool = nullptr;
#if WEFT_FRAME_REPORT_ENTRIES > 0
        const char* function = nullptr;
        frame_record* record = nullptr;
#endif
    };
    static hint& last() noexcept {
        static hint h;
        return h;
    }
    [[gnu::always_inline]] static bool same_site(const hint& h, const char* fn) noexcept {
#if WEFT_FRAME_REPORT_ENTRIES > 0
        return h.function == fn;
#else
        (void)h, (void)fn;
        return true;
#endif
    }
    [[gnu::always_inline]] static void count_hit(hint& h) noexcept {
#if WEFT_FRAME_REPORT_ENTRIES > 0
        if (h.record) ++h.record->created;
#else
        (void)h;
#endif
    }

    // The full search: the smallest pool whose slots fit and that has one
    // free (or the scoped pool).
    [[gnu::noinline]] static void* allocate_slow(std::size_t n, frame_site site) noexcept {
        return search(n, site);
    }
    static void* search(std::size_t n, frame_site site) noexcept {
        frame_pool_base* tried = scoped();
        frame_pool_base* fitting = nullptr;
        void* p = nullptr;
        if (tried) {
            p = tried->try_allocate(n);
        } else {
            for (frame_pool_base* pool = frame_pool_base::first(); pool; pool = pool->next_) {
                if (pool->slot_bytes_ < n) continue;
                if (!tried) fitting = pool;
                tried = pool;
                if ((p = pool->try_allocate(n))) break;
            }
        }
        frame_record* r = record(site.function, n, p != nullptr);
        if constexpr (!port::small_code) {
            if (fitting) remember(n, fitting, site.function, r);
        }
#if WEFT_FRAME_REPORT_ENTRIES > 0
        if (!p) fail(tried, n, site.function);  // also names the frame
#else
        if (!p) fail(tried, n);
#endif
        return p;
    }

    static void remember(std::size_t n, frame_pool_base* pool, const char* fn, frame_record* r) noexcept {
        hint& h = last();
        h.bytes = n;
        h.pool = pool;
#if WEFT_FRAME_REPORT_ENTRIES > 0
        h.function = fn;
        h.record = r;
#else
        (void)fn, (void)r;
#endif
    }

    // The remembered pool has no free slot: the larger pools, in the
    // order of the full search (the smaller ones cannot fit n).
    [[gnu::noinline]] static void* allocate_further(std::size_t n, frame_site site) noexcept {
        hint& h = last();
        for (frame_pool_base* pool = h.pool->next_; pool; pool = pool->next_) {
            if (void* p = pool->try_allocate(n)) {
                count_hit(h);
                return p;
            }
        }
        return allocate_slow(n, site);  // fails again, and records why
    }

    [[gnu::noinline]] static void deallocate_slow(void* p) noexcept { give_back(p); }
    static void give_back(void* p) noexcept {
        for (frame_pool_base* pool = frame_pool_base::first(); pool; pool = pool->next_) {
            if (pool->owns(p)) {
                pool->deallocate(p);
                return;
            }
        }
        // Where pools have destructors (the host), the usual cause is a
        // global that outlives the pool holding its frame (globals are
        // destroyed in reverse order of declaration). Bare-metal pools are
        // never destroyed: there the short text, which costs less flash.
        if constexpr (port::small_code)
            WEFT_ASSERT(false, "freed frame is in no pool");
        else
            WEFT_ASSERT(false, "freed frame is in no pool (was its frame_pool destroyed first? "
                               "declare pools before anything that holds a frame)");
    }

    // Out of line and cold: running out of frames is the rare path, and
    // its error bookkeeping would otherwise be inlined into every spawn.
    [[gnu::noinline, gnu::cold]] static void fail(frame_pool_base* tried, std::size_t n) noexcept {
        error& e = last_error();
        e.kind = "frame pool";
        frame_pool_base* p = tried;
        if (!p) {  // no pool has a slot this large: name the largest (if any)
            p = frame_pool_base::first();
            while (p && p->next_) p = p->next_;
            if (p) p->note_request(n);  // the report shows the size refused
        }
        // No pool at all: "frame pool: none declared". A null name reads as
        // an empty one (error::put_to) and costs no literal (flash).
        e.object = p ? p->name_ : nullptr;
        e.limit = 0;
        if (p) {
            ++p->failures_;
            // The pool tried had no free slot; or its slots, or those of
            // the pool a use_frames scope imposes, are too small.
            e.limit = p->slot_bytes_ < n ? p->slot_bytes_ : p->slots_;
        }
        if (!p || p->slot_bytes_ < n) {
            e.code = errc::frame_too_large;
            e.detail = p ? "frame larger than its slots" : "none declared";
        } else {
            e.code = errc::no_memory;
            e.detail = "all slots in use";
        }
    }

#if WEFT_FRAME_REPORT_ENTRIES > 0
    // Longest coroutine name quoted in a failure's text (a longer one is
    // cut and ends with "..."), and the text's buffer: enough for the
    // longest detail, "<20 digits> B frame of '<name>' larger than its
    // slots" ("none declared for " is shorter than the tail it replaces).
    static constexpr std::size_t failure_name_chars = 40;
    static constexpr std::size_t failure_text_chars =
        20 + sizeof " B frame of ''" - 1 + failure_name_chars + sizeof " larger than its slots";
    static char* failure_text() noexcept {
        static char t[failure_text_chars];
        return t;
    }
    // The development build's failure: as above, and a frame too large for
    // every slot it could take also says its size and coroutine, formatted
    // into failure_text() (see last_error()). An exhausted pool keeps its
    // static phrase: its limit is a slot count, which a byte size beside
    // it would make ambiguous, and the fix (more slots) needs neither. Nor
    // does it name the coroutine: the formatted text is one buffer, which
    // the next too-large failure rewrites, and an exhausted pool's error
    // is the one a group (when_all) keeps per child and reports later.
    [[gnu::noinline, gnu::cold]] static void fail(frame_pool_base* tried, std::size_t n,
                                                  const char* fn) noexcept {
        fail(tried, n);
        error& e = last_error();
        if (e.code != errc::frame_too_large) return;
        char name[failure_name_chars + 1];  // no strlen: 220 B on the board
        weft::detail::bounded_text cut{name, sizeof name};
        cut.put(fn);
        if (cut.full() && fn[failure_name_chars]) cut.mark_cut();  // longer than the room
        const bool none = e.object == nullptr;  // no pool declared
        weft::detail::bounded_text t{failure_text(), failure_text_chars};
        if (none) t.put("none declared for ");
        t.put_decimal(n).put(" B frame");
        if (fn) t.put(" of '").put(name).put("'");
        if (!none) t.put(" larger than its slots");
        e.detail = failure_text();
    }
#endif

#if WEFT_FRAME_REPORT_ENTRIES > 0
    static frame_record* table() noexcept {
        static frame_record t[WEFT_FRAME_REPORT_ENTRIES];
        return t;
    }
    static frame_record* find(const char* fn) noexcept {
        // Two coroutines that alternate (a task and the child it awaits)
        // miss the allocator's hint in turn: remember the last record too.
        static frame_record* last = nullptr;
        if (last && last->function == fn) return last;
        frame_record* t = table();
        std::size_t used = 0;
        for (; used < WEFT_FRAME_REPORT_ENTRIES && t[used].function; ++used)
            if (t[used].function == fn) return last = &t[used];
        // strcmp merges the copies of an inline coroutine's name emitted
        // by several object files.
        for (std::size_t i = 0; i < used; ++i)
            if (std::strcmp(t[i].function, fn) == 0) return last = &t[i];
        if (used == WEFT_FRAME_REPORT_ENTRIES) return nullptr;  // report truncated, not wrong
        t[used].function = fn;
        return last = &t[used];
    }
    static frame_record* record(const char* fn, std::size_t n, bool ok) noexcept {
        if (!fn) return nullptr;
        frame_record* r = find(fn);
        if (!r) return nullptr;
        if (n > r->bytes) r->bytes = std::uint32_t(n);
        if (ok) ++r->created;
        return r;
    }
#else
    static frame_record* table() noexcept { return nullptr; }
    static frame_record* record(const char*, std::size_t, bool) noexcept { return nullptr; }
#endif
};

inline void frame_pool_base::reset_peak() noexcept {
    peak_ = used_;
    failures_ = 0;
    largest_ = 0;
    frame_allocator::forget();  // the fast path skips note_request
}

inline void frame_pool_base::link() noexcept {
    frame_pool_base** p = &head();
    while (*p && (*p)->slot_bytes_ <= slot_bytes_) p = &(*p)->next_;
    next_ = *p;
    *p = this;
    frame_allocator::forget();
}

inline void frame_pool_base::unlink() noexcept {
    frame_allocator::forget();
    for (frame_pool_base** p = &head(); *p; p = &(*p)->next_)
        if (*p == this) { *p = next_; return; }
}

/// For its lifetime, coroutine frames come from `pool` only.
class use_frames {
public:
    explicit use_frames(frame_pool_base& pool) noexcept : saved_(frame_allocator::scoped()), pool_(&pool) {
        frame_allocator::scoped() = &pool;
        frame_allocator::forget();
    }
    ~use_frames() {
        // Scopes end in the reverse order they began. One that spans a
        // co_await breaks that as soon as another task opens a scope (and
        // it forces its pool on every task that runs meanwhile): refused.
        if (frame_allocator::scoped() != pool_) [[unlikely]] out_of_order(*pool_, frame_allocator::scoped());
        frame_allocator::scoped() = saved_;
        frame_allocator::forget();
    }
    use_frames(const use_frames&) = delete;
    use_frames& operator=(const use_frames&) = delete;

private:
    // Names both pools: with several scopes in flight (tasks holding them
    // across awaits) the bare fact does not say which scope is at fault.
    [[noreturn, gnu::noinline, gnu::cold]] static void out_of_order(const frame_pool_base& ending,
                                                                   const frame_pool_base* open) noexcept {
        char text[160];
        detail::bounded_text t{text, sizeof text};
        t.put("weft: use_frames scopes ended out of order (one spans a co_await?): '").put(ending.name());
        if (open) t.put("' ended while '").put(open->name()).put("' is open");
        else t.put("' ended while no scope is open");
        port::fatal(text);
    }

    frame_pool_base* saved_;
    frame_pool_base* pool_;
};

}  // namespace weft
