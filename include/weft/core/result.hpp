// SPDX-License-Identifier: Apache-2.0
#pragma once
// Errors are values: every operation that can fail returns result<T> (or
// status for result<void>). An error carries a code, the name of the object
// that failed and the limit involved, so that its message can say
// "frame pool 'sensors': all slots in use (limit 4)" without formatting
// anything (or allocating) until someone asks for the text.
#include <weft/core/detail/bounded_text.hpp>
#include <weft/port/port.hpp>

#include <cstddef>
#include <cstdint>
#include <new>
#include <type_traits>
#include <utility>

namespace weft {

/// The ways a weft operation can fail.
enum class errc : std::uint8_t {
    ok = 0,
    full,             ///< a bounded queue, buffer or pool has no room
    empty,            ///< nothing to take
    closed,           ///< the channel or object was closed
    timeout,          ///< the deadline passed before the operation completed
    no_memory,        ///< a frame pool could not provide a frame
    frame_too_large,  ///< a coroutine frame is larger than any pool's slot
    cancelled,        ///< the awaiting task was cancelled
    busy,             ///< the object is already in use (e.g. armed twice)
    overflow,         ///< an event or interrupt queue overflowed
    cycle,            ///< a dependency graph has a cycle
    deadline_missed,  ///< a real-time deadline was violated
    invalid,          ///< an argument or state that is not allowed
    device,           ///< a driver reported a failure
};

/// Short name of an error code ("timeout", "no_memory", ...).
constexpr const char* to_string(errc e) noexcept {
    switch (e) {
        case errc::ok: return "ok";
        case errc::full: return "full";
        case errc::empty: return "empty";
        case errc::closed: return "closed";
        case errc::timeout: return "timeout";
        case errc::no_memory: return "no_memory";
        case errc::frame_too_large: return "frame_too_large";
        case errc::cancelled: return "cancelled";
        case errc::busy: return "busy";
        case errc::overflow: return "overflow";
        case errc::cycle: return "cycle";
        case errc::deadline_missed: return "deadline_missed";
        case errc::invalid: return "invalid";
        case errc::device: return "device";
    }
    return "?";
}

/// Text of an error, formatted on demand into a fixed buffer (no heap).
struct error_text {
    char text[128];
    const char* c_str() const noexcept { return text; }
};

/// What went wrong, on which object, against which limit.
/// `kind` names the sort of object ("channel", "frame pool", ...), `object`
/// its user-given name, `limit` the capacity or bound involved (0 if none),
/// `detail` an optional static phrase. All strings must outlive the error
/// (they are normally string literals or static names).
struct error {
    errc code = errc::ok;
    const char* kind = "";
    const char* object = "";
    std::size_t limit = 0;
    const char* detail = nullptr;

    /// "channel 'uart_rx': full (limit 8)" style message; "sleep:
    /// cancelled" for an error of an unnamed object, "timeout" for a code
    /// alone.
    /// A null name or kind (an object built with nullptr for its name)
    /// reads as an empty one; a name without a kind reads "'rx': full".
    error_text message() const noexcept {
        error_text t{};
        weft::detail::bounded_text b{t.text, sizeof t.text};
        put_to(b);
        return t;
    }
    /// Appends message()'s text: the one wording of an error, shared with
    /// the fatal report (no printf, which a board does not link for it).
    void put_to(weft::detail::bounded_text& t) const noexcept {
        const char* k = or_empty(kind);
        const char* o = or_empty(object);
        // Without a kind the name comes first: the quote without its space.
        if (*o) t.put(k).put(&" '"[*k ? 0 : 1]).put(o).put("': ");
        else if (*k) t.put(k).put(": ");
        t.put(detail ? detail : to_string(code));
        if (limit != 0) t.put(" (limit ").put_decimal(limit).put(")");
    }
    constexpr explicit operator bool() const noexcept { return code != errc::ok; }

    static constexpr const char* or_empty(const char* s) noexcept { return s ? s : ""; }
};

/// The error of a success (code ok, no names): what err() returns when
/// nothing failed.
inline constexpr error no_error{};

namespace detail {
/// Stops the program with `e`'s message (as error::message() words it),
/// after "weft: " and `context`: the one way a programming error names its
/// object and limit. Built by hand: a board that never formats does not
/// link printf for it.
[[noreturn, gnu::noinline, gnu::cold]] inline void fatal_error(const error& e, const char* context = "") noexcept {
    char text[160];
    bounded_text t{text, sizeof text};
    t.put("weft: ").put(context);
    e.put_to(t);
    port::fatal(text);
}
}  // namespace detail

/// Either a T or an error. [[nodiscard]]: ignoring a failure is a bug.
template <class T>
class [[nodiscard]] result {
public:
    constexpr result(T value) noexcept(std::is_nothrow_move_constructible_v<T>)
        : ok_(true) { ::new (&storage_) T(std::move(value)); }
    /// The value built in place from `args`: no intermediate T, so a value
    /// moved in from a buffer is copied once, at its own width (a by-value
    /// parameter goes through registers, and GCC 12 then reads the result
    /// back with a wider load than the stores that wrote it, which stalls).
    template <class... Args>
    constexpr explicit result(std::in_place_t, Args&&... args) noexcept(
        std::is_nothrow_constructible_v<T, Args&&...>)
        : ok_(true) { ::new (&storage_) T(std::forward<Args>(args)...); }
    // By reference: a by-value parameter costs GCC one more 20-byte copy
    // on the failure path of every spawn (last_error() -> parameter ->
    // result).
    constexpr result(const error& e) noexcept : ok_(false) { ::new (&storage_) error(e); }
    constexpr result(errc code) noexcept : result(error{code}) {}

    result(const result& o) noexcept(std::is_nothrow_copy_constructible_v<T>) : ok_(o.ok_) {
        if (ok_) ::new (&storage_) T(o.value()); else ::new (&storage_) error(o.err());
    }
    result(result&& o) noexcept(std::is_nothrow_move_constructible_v<T>) : ok_(o.ok_) {
        if (ok_) ::new (&storage_) T(std::move(o).value()); else ::new (&storage_) error(o.err());
    }
    result& operator=(result o) noexcept(std::is_nothrow_move_constructible_v<T>) {
        this->~result();
        ::new (this) result(std::move(o));
        return *this;
    }
    // Nothing to run for a trivially destructible T (and the error always
    // is): then no flag test and no checked value() call either, which GCC
    // -Os otherwise keeps out of line once a program uses result<T> in a
    // few places (+14 instructions per discarded result on the board).
    ~result() {
        if constexpr (!std::is_trivially_destructible_v<T>)
            if (ok_) std::launder(reinterpret_cast<T*>(&storage_))->~T();
    }

    constexpr bool has_value() const noexcept { return ok_; }
    constexpr explicit operator bool() const noexcept { return ok_; }
    /// Precondition: has_value() (checked: reading an error as a value is a
    /// programmer error, and silently returning garbage would be worse).
    // Inlined: a flag test and a cold call; out of line at -Os it costs a
    // call, its prologue and a reload of the flag on every access.
    // The failure names the error held (what the caller failed to check).
    [[gnu::always_inline]] T& value() & noexcept {
        if (!ok_) [[unlikely]] value_failed();
        return *std::launder(reinterpret_cast<T*>(&storage_));
    }
    [[gnu::always_inline]] const T& value() const& noexcept {
        if (!ok_) [[unlikely]] value_failed();
        return *std::launder(reinterpret_cast<const T*>(&storage_));
    }
    T&& value() && noexcept { return std::move(value()); }
    T& operator*() & noexcept { return value(); }
    const T& operator*() const& noexcept { return value(); }
    T&& operator*() && noexcept { return std::move(value()); }
    T* operator->() noexcept { return &value(); }
    const T* operator->() const noexcept { return &value(); }
    /// Precondition: !has_value().
    const error& err() const noexcept {
        WEFT_ASSERT(!ok_, "result::err() on a value");
        return *std::launder(reinterpret_cast<const error*>(&storage_));
    }
    errc code() const noexcept { return ok_ ? errc::ok : err().code; }
    T value_or(T fallback) const& { return ok_ ? value() : fallback; }

private:
    // Out of line and passed `this` only, which the caller holds anyway
    // (the error's address as the argument cost a board ping-pong one
    // instruction on its success path).
    [[noreturn, gnu::noinline, gnu::cold]] void value_failed() const noexcept {
        detail::fatal_error(*std::launder(reinterpret_cast<const error*>(&storage_)), "result::value() on an error: ");
    }
    // The flag first: a success writes it and the value, which are then
    // next to each other (one cache line, where the error's tail would
    // otherwise put the flag 40 bytes past a small value).
    bool ok_;
    alignas(T) alignas(error) unsigned char storage_[sizeof(T) > sizeof(error) ? sizeof(T) : sizeof(error)];
};

/// Success or an error: result<void>. Not [[nodiscard]] as a type, so that
/// `co_await sleep_for(1ms);` needs no cast; functions returning a status
/// that must not be ignored are marked [[nodiscard]] themselves.
template <>
class result<void> {
public:
    // Success writes only the code: every co_await of a sleep, a yield or
    // an event builds a status in the coroutine frame (GCC 12 keeps the
    // awaiter's result there even when it is discarded), and the four other
    // fields of an error cost four stores and an out-of-line constructor.
    constexpr result() noexcept : s_{} {}
    constexpr result(error e) noexcept : s_{e} {}
    constexpr result(errc code) noexcept : s_{code} {}
    constexpr bool has_value() const noexcept { return code() == errc::ok; }
    constexpr explicit operator bool() const noexcept { return has_value(); }
    /// On success, an error whose code is errc::ok (and empty names).
    constexpr const error& err() const noexcept { return has_value() ? no_error : s_.err; }
    // Reading `ok.code` whichever member is active is the common initial
    // sequence rule: both members are standard-layout and start with errc.
    constexpr errc code() const noexcept { return s_.ok.code; }

private:
    struct code_only {
        errc code;
    };
    union storage {
        code_only ok;
        error err;
        constexpr storage() noexcept : ok{errc::ok} {}
        constexpr storage(const error& e) noexcept : err(e) {}
        constexpr storage(errc c) noexcept : ok{c} {
            if (c != errc::ok) err = error{c};
        }
    };
    storage s_;
};

/// The outcome of an operation that produces no value.
using status = result<void>;

}  // namespace weft
