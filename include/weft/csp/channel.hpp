// SPDX-License-Identifier: Apache-2.0
#pragma once
// channel<T, N>: a typed channel between tasks (and drivers).
//
//   weft::csp::channel<int> ch{"ticks"};        // N = 0: rendezvous
//   weft::csp::channel<char, 16> rx{"uart_rx"}; // buffered, 16 slots
//
//   co_await send(ch, 42);                       // events: see send.hpp, recv.hpp
//   auto v = co_await recv(ch);                  // result<int>
//   if (auto r = rx.try_send('x'); !r) use(r.value());  // never waits
//
// N = 0 is a synchronous rendezvous (SenseVM's semantics): a send completes
// only when a receiver takes the value. N > 0 adds a static ring of N
// values. Many senders and receivers; waiting ones are served in FIFO order.
// close() wakes every waiter with errc::closed; values already buffered
// stay receivable (nothing is lost). Executor thread only; from an ISR use a
// driver connection (connect.hpp). Nothing is allocated.
#include <weft/core/result.hpp>
#include <weft/csp/detail/sync_state.hpp>

#include <cstddef>
#include <new>
#include <optional>
#include <utility>

namespace weft::csp {

/// Outcome of try_send: success, or the error and the value handed back.
template <class T>
class [[nodiscard]] send_result {
public:
    send_result() noexcept = default;
    send_result(error e, T&& v) noexcept : err_(e), value_(std::move(v)) {}
    explicit operator bool() const noexcept { return !err_; }
    bool has_value() const noexcept { return !err_; }
    errc code() const noexcept { return err_.code; }
    const error& err() const noexcept { return err_; }
    /// The value that was not sent. Precondition: the send failed.
    T& value() noexcept { return *value_; }

private:
    error err_{};
    std::optional<T> value_;
};

template <class T, std::size_t N = 0>
class channel {
public:
    using value_type = T;
    static constexpr std::size_t capacity = N;

    /// `name` appears in every error this channel reports; it must outlive it.
    explicit channel(const char* name = "channel") noexcept : name_(name) {}
    channel(const channel&) = delete;
    channel& operator=(const channel&) = delete;
    ~channel() { clear(); }

    const char* name() const noexcept { return name_; }
    /// Values buffered now (always 0 for a rendezvous channel).
    std::size_t size() const noexcept { return count_; }
    bool closed() const noexcept { return closed_; }

    /// Sends without waiting: hands `v` to a waiting receiver, or buffers it.
    /// Fails with `full` (no receiver / no room) or `closed`, handing `v`
    /// back. Executor thread only; does not allocate.
    send_result<T> try_send(T v) noexcept {
        errc st = errc::ok;
        if (offer_send(v, st) && st == errc::ok) return {};
        return {make_error(st == errc::ok ? errc::full : st), std::move(v)};
    }
    /// Receives without waiting. Fails with `empty` or (once drained) `closed`.
    result<T> try_recv() noexcept {
        std::optional<T> out;
        errc st = errc::ok;
        if (offer_recv(out, st) && st == errc::ok) return std::move(*out);
        return make_error(st == errc::ok ? errc::empty : st);
    }
    /// Closes the channel: waiting senders and receivers end with `closed`,
    /// later sends fail with `closed`, buffered values can still be received.
    void close() noexcept {
        closed_ = true;
        // Each commit withdraws the owner's other offers, possibly from
        // these very queues, so pop one at a time.
        while (detail::offer* o = receivers_.pop_front()) o->owner->commit(o->leaf, errc::closed);
        while (detail::offer* o = senders_.pop_front()) o->owner->commit(o->leaf, errc::closed);
    }

    /// The error this channel reports for `code`, e.g.
    /// "channel 'uart_rx': full (limit 8)".
    error make_error(errc code) const noexcept {
        const char* what = nullptr;
        if (code == errc::full && N == 0) what = "no receiver waiting (rendezvous)";
        return error{code, "channel", name_, code == errc::full ? N : 0, what};
    }

    // --- the matching engine, used by events and connections ---

    /// Tries to complete a send of `v` now. True if the attempt is over:
    /// st == ok (delivered or buffered; `v` moved from) or closed.
    bool offer_send(T& v, errc& st) noexcept {
        if constexpr (N > 0) {
            // Inline fast path: room in the buffer and no receiver to hand to;
            // the rest stays out of line so that callers inline cheaply.
            if (count_ < N && receivers_.empty() && !closed_) {
                push(std::move(v));
                return true;
            }
            return offer_send_slow(v, st);
        } else {
            return offer_send_general(v, st);  // a rendezvous always matches offers
        }
    }
    /// Tries to complete a receive now into `out`. True if over: st == ok
    /// (value in `out`) or closed (nothing buffered, channel closed).
    bool offer_recv(std::optional<T>& out, errc& st) noexcept {
        if constexpr (N > 0) {
            // Inline fast path: a buffered value and no blocked sender to move in.
            if (count_ > 0 && senders_.empty()) {
                pop_into(out);
                return true;
            }
            return offer_recv_slow(out, st);
        } else {
            return offer_recv_general(out, st);
        }
    }
    void wait_send(detail::offer& o) noexcept { senders_.push_back(o); }
    void wait_recv(detail::offer& o) noexcept { receivers_.push_back(o); }

private:
    [[gnu::noinline]] bool offer_send_slow(T& v, errc& st) noexcept { return offer_send_general(v, st); }
    [[gnu::noinline]] bool offer_recv_slow(std::optional<T>& out, errc& st) noexcept {
        return offer_recv_general(out, st);
    }
    bool offer_send_general(T& v, errc& st) noexcept {
        if (closed_) { st = errc::closed; return true; }
        if (detail::offer* r = receivers_.take_eligible()) {
            static_cast<std::optional<T>*>(r->value)->emplace(std::move(v));
            r->owner->commit(r->leaf);
            return true;
        }
        if (count_ < N) { push(std::move(v)); return true; }
        return false;
    }
    bool offer_recv_general(std::optional<T>& out, errc& st) noexcept {
        if (count_ > 0) {
            pop_into(out);
            // Room freed: the oldest waiting sender's value moves in.
            if (detail::offer* s = senders_.take_eligible()) {
                push(std::move(*static_cast<T*>(s->value)));
                s->owner->commit(s->leaf);
            }
            return true;
        }
        if (detail::offer* s = senders_.take_eligible()) {
            out.emplace(std::move(*static_cast<T*>(s->value)));
            s->owner->commit(s->leaf);
            return true;
        }
        if (closed_) { st = errc::closed; return true; }
        return false;
    }

    struct empty_ring {};
    struct ring {
        alignas(T) unsigned char bytes[sizeof(T) * (N ? N : 1)];
        T* at(std::size_t i) noexcept { return std::launder(reinterpret_cast<T*>(bytes) + i); }
    };
    void push(T&& v) noexcept {
        if constexpr (N > 0) {
            std::size_t tail = head_ + count_;
            if (tail >= N) tail -= N;
            ::new (static_cast<void*>(reinterpret_cast<T*>(ring_.bytes) + tail)) T(std::move(v));
            ++count_;
        }
    }
    T pop() noexcept {
        if constexpr (N > 0) {
            T* p = ring_.at(head_);
            T v = std::move(*p);
            p->~T();
            if (++head_ == N) head_ = 0;
            --count_;
            return v;
        } else {
            WEFT_ASSERT(false, "pop on a rendezvous channel");
            __builtin_unreachable();
        }
    }
    // Moves the oldest value straight into `out` (no temporary T).
    void pop_into(std::optional<T>& out) noexcept {
        if constexpr (N > 0) {
            T* p = ring_.at(head_);
            out.emplace(std::move(*p));
            p->~T();
            if (++head_ == N) head_ = 0;
            --count_;
        }
    }
    void clear() noexcept {
        while (count_ > 0) (void)pop();
    }

    // What every send and receive reads comes first, together (56 bytes:
    // one cache line when the channel is aligned to one).
    std::size_t count_ = 0;
    std::size_t head_ = 0;
    bool closed_ = false;
    detail::offer_queue receivers_;
    detail::offer_queue senders_;
    const char* name_;
    [[no_unique_address]] std::conditional_t<(N > 0), ring, empty_ring> ring_;
};

}  // namespace weft::csp
