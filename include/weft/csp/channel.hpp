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
#include <weft/core/detail/executor_only.hpp>
#include <weft/core/result.hpp>
#include <weft/csp/detail/fresh_value.hpp>
#include <weft/csp/detail/sync_state.hpp>
#include <weft/port/port.hpp>

#include <cstddef>
#include <cstdint>
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

namespace detail {
/// A channel's alignment on ports without small_code: one cache line (64
/// bytes on the hosts weft runs on), so that the fields every send and
/// receive reads are one line even in arrays of channels (actors'
/// mailboxes): unaligned, most of a Savina Big mailbox array's channels
/// straddle two lines (cachegrind: 10 % more L1 misses in Big, 23 % in
/// Chameneos with Clang). Boards have no data cache: no padding there.
template <class T>
inline constexpr std::size_t channel_align = port::small_code || alignof(T) > 64
    ? (alignof(T) > alignof(void*) ? alignof(T) : alignof(void*))
    : 64;
}  // namespace detail

template <class T, std::size_t N = 0>
class alignas(detail::channel_align<T>) channel {
    static_assert(N < (std::size_t{1} << 31), "channel: capacity must be below 2^31");

public:
    using value_type = T;
    static constexpr std::size_t capacity = N;

    /// `name` appears in every error this channel reports; it must outlive it.
    explicit channel(const char* name = "channel") noexcept : name_(name) {}
    channel(const channel&) = delete;
    channel& operator=(const channel&) = delete;
    /// A channel must outlive every task and connection that still waits
    /// on it (their offers point into it), unless none of them ever runs
    /// again (a program's end). Not checked: at a host program's exit,
    /// global channels are destroyed with tasks parked on them for ever.
    ~channel() { clear(); }

    const char* name() const noexcept { return name_; }
    /// Values buffered now (always 0 for a rendezvous channel).
    std::size_t size() const noexcept { return n_.count; }
    bool closed() const noexcept { return closed_; }

    /// Sends without waiting: hands `v` to a waiting receiver, or buffers it.
    /// Fails with `full` (no receiver / no room) or `closed`, handing `v`
    /// back. Executor thread only; does not allocate.
    send_result<T> try_send(T v) noexcept {
        if constexpr (weft::detail::check_executor_only)
            weft::detail::check_executor_only_call("channel", name_, "try_send()");
        errc st = errc::ok;
        if (offer_send(v, st) && st == errc::ok) return {};
        return {make_error(st == errc::ok ? errc::full : st), std::move(v)};
    }
    /// Receives without waiting. Fails with `empty` or (once drained) `closed`.
    result<T> try_recv() noexcept {
        if constexpr (weft::detail::check_executor_only)
            weft::detail::check_executor_only_call("channel", name_, "try_recv()");
        if constexpr (N > 0)
            if (can_take()) return take();
        detail::value_slot<T> out;
        errc st = errc::ok;
        if (!offer_recv_general(out, st)) return make_error(errc::empty);
        if (st != errc::ok) return make_error(st);
        return take_from(out);
    }
    /// Closes the channel: waiting senders and receivers end with `closed`,
    /// later sends fail with `closed`, buffered values can still be received.
    void close() noexcept {
        if constexpr (weft::detail::check_executor_only)
            weft::detail::check_executor_only_call("channel", name_, "close()");
        closed_ = true;
        if (detail::first_receiver<T>* f = first_.node) {
            f->status = errc::closed;
            wake_first();
        }
        if constexpr (N == 0) {
            if (detail::first_sender<T>* f = first_.sender) {
                f->status = errc::closed;
                wake_first_sender();
            }
        }
        // Each commit withdraws the owner's other offers, possibly from
        // these very queues, so pop one at a time.
        // An offer whose window has closed (its timer has not run yet) is
        // only unlinked: that leaf can no longer commit, not even `closed`.
        while (detail::offer* o = receivers_.pop_front())
            if (o->eligible()) o->owner->commit(o->leaf, errc::closed);
        while (detail::offer* o = senders_.pop_front())
            if (o->eligible()) o->owner->commit(o->leaf, errc::closed);
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
    /// st == ok (delivered or buffered; `v` moved from) or closed. `self`:
    /// the sync attempting it, whose own queued offers it must not match
    /// (a window opening polls while the sync's other branches wait).
    [[gnu::always_inline]] bool offer_send(T& v, errc& st, const detail::sync_state* self = nullptr) noexcept {
        if constexpr (N > 0) {
            // Inline fast path: room in the buffer and no offer to hand to;
            // the rest stays out of line so that callers inline cheaply.
            if (can_put()) {
                put(v);
                return true;
            }
            return offer_send_slow(v, st, self);
        } else {
            if (can_put()) {  // the first receiver
                put(v);
                return true;
            }
            return offer_send_slow(v, st, self);
        }
    }
    /// Tries to complete a receive now: constructs the value in `out`. True
    /// if over: st == ok (a T now lives in `out`; the caller destroys it) or
    /// closed (nothing buffered, channel closed).
    [[gnu::always_inline]] bool offer_recv(detail::value_slot<T>& out, errc& st,
                                           const detail::sync_state* self = nullptr) noexcept {
        if constexpr (N > 0) {
            // Inline fast path: a buffered value and no blocked sender to move in.
            if (can_take()) {
                pop_into(out);
                return true;
            }
            return offer_recv_slow(out, st, self);
        } else {
            if (first_.sender) {  // the value of a send waiting ahead of every offer
                take_first_sender(out.raw());
                return true;
            }
            return offer_recv_slow(out, st, self);
        }
    }
    void wait_send(detail::offer& o) noexcept { senders_.push_back(o); }
    /// A receive offer's value points to a value_slot<T> (raw storage): a
    /// sender constructs the value there, then commits.
    void wait_recv(detail::offer& o) noexcept { receivers_.push_back(o); }

    // --- the direct path (recv_operation, send_operation): the common cases
    // as inline tests, so that a send or receive that completes or waits
    // at once calls nothing. Everything else goes through the general
    // offer_send / offer_recv.

    /// A buffered value can be taken now (and no blocked sender must move
    /// into the room it frees). Always false for a rendezvous.
    [[gnu::always_inline]] bool can_take() const noexcept {
        if constexpr (N > 0) return n_.count > 0 && !senders_wait();
        else return false;
    }
    /// A receive must wait: nothing buffered, no sender waiting, not closed.
    [[gnu::always_inline]] bool recv_must_wait() const noexcept { return n_.count == 0 && !senders_wait() && !closed_; }
    /// A value can be put now: buffered (room, no offer waiting for it, not
    /// closed; a first receiver, if any, is served by put()), or, on a
    /// rendezvous, handed to the first receiver (which implies not closed:
    /// close() wakes it).
    [[gnu::always_inline]] bool can_put() const noexcept {
        if constexpr (N > 0) return n_.count < N && receivers_.empty() && !closed_;
        else return first_.node != nullptr;
    }
    /// A send must wait: no receiver waiting, no room, not closed. (A first
    /// receiver implies room on a buffered channel: the ring is empty.)
    [[gnu::always_inline]] bool send_must_wait() const noexcept {
        return n_.count == N && receivers_.empty() && !closed_ && (N > 0 || !first_.node);
    }
    /// Precondition: can_take(). The oldest value, moved straight into the
    /// result (no intermediate copy: the caller usually reads it at once,
    /// and a copy through a differently sized temporary stalls the load).
    [[gnu::always_inline]] result<T> take() noexcept {
        static_assert(N > 0, "take: a rendezvous channel buffers nothing");
        struct advance {
            channel* c;
            ~advance() { c->drop_front(); }
        } after{this};
        return result<T>{std::in_place, std::move(*ring_.at(n_.head))};
    }
    /// Precondition: can_put(). `v` is the sender's own value (its event's):
    /// to the first receiver if one waits, else into the ring.
    [[gnu::always_inline]] void put(T& v) noexcept {
        if (detail::first_receiver<T>* f = first_.node) {
            detail::move_fresh(f->slot.raw(), v);
            wake_first();
            return;
        }
        push(v);
    }
    /// The value a receive got in `slot` (by offer_recv or from a sender),
    /// as a result; destroys the slot's value.
    static result<T> take_from(detail::value_slot<T>& slot) noexcept {
        struct destroy {
            detail::value_slot<T>& s;
            ~destroy() { s.destroy(); }
        } after{slot};
        return result<T>{std::in_place, std::move(*slot.get())};
    }

    // --- the first receiver and the first sender ---
    //
    // A direct receive that finds nothing to take, no sender and nobody
    // else waiting does not queue an offer: the channel records it as its
    // first receiver (its node and its task), and the next value sent
    // moves straight into the node's slot while the task is woken. So a
    // hand-over to a waiting receiver costs a sender an inline test, the
    // move and the wake: no offer to link and unlink, no completion hook
    // to call, no call out of line. Receivers that come while a first
    // receiver waits queue offers behind it, so blocked receivers are
    // still served in FIFO order. On a rendezvous, a direct send that
    // must wait while nobody else does is the mirror image: the channel
    // records it, its value's address and its task as the first sender,
    // and the next receive moves the value out and wakes it; later senders
    // queue behind it. Two tasks taking turns on a rendezvous (ping-pong,
    // a ring) meet both ways: whichever arrives second finds the other
    // recorded. At most one of the two waits at a time. (A buffered
    // channel has no first sender: its senders wait only while the ring is
    // full, and testing for one would cost every receive.)

    /// A direct receive can wait as the first receiver: nothing buffered,
    /// nobody sending or receiving, not closed.
    [[gnu::always_inline]] bool can_wait_first() const noexcept {
        return n_.count == 0 && !senders_wait() && receivers_.empty() && !first_.node && !closed_;
    }
    /// Given send_must_wait(): a direct send can wait as the first sender
    /// (no other sender waits).
    [[gnu::always_inline]] bool can_wait_first_send() const noexcept {
        if constexpr (N == 0) return !senders_wait();
        else return false;
    }
    /// Precondition: send_must_wait() and can_wait_first_send(). The send's task waits in `f`;
    /// `v` (its event's value) stays where it is until a receive moves it.
    [[gnu::always_inline]] void wait_first_send(detail::first_sender<T>& f, T& v, task_control& c) noexcept {
        if constexpr (N == 0) {
            f.status = errc::ok;
            f.value = &v;
            first_.sender = &f;
            first_.ctl = &c;
        }
    }
    /// The first sender's wait was aborted: it no longer waits here; its
    /// value stays with it. Returns its task.
    task_control* forget_first_sender() noexcept {
        if constexpr (N == 0) first_.sender = nullptr;
        return first_.ctl;
    }
    /// Precondition: can_wait_first(). The receive's task waits in `f`.
    [[gnu::always_inline]] void wait_first(detail::first_receiver<T>& f, task_control& c) noexcept {
        f.status = errc::ok;
        first_.node = &f;
        first_.ctl = &c;
    }
    /// Precondition: can_wait_first(). Like wait_first, for a receiver
    /// without a task (an output connection, connect.hpp): when its wait
    /// ends, with a value (status ok) or `closed`, the channel calls the
    /// node's hook, `f.abort(&f, f.status)`, instead of waking a task.
    void wait_first_hook(detail::first_receiver<T>& f) noexcept {
        f.status = errc::ok;
        first_.node = &f;
        first_.ctl = nullptr;
    }
    /// Ends the wait of `f` if it is the first receiver (executor thread;
    /// its hook is not called). False if it was not waiting here.
    bool withdraw_first(detail::first_receiver<T>& f) noexcept {
        if (first_.node != &f) return false;
        first_.node = nullptr;
        return true;
    }
    /// The first receiver's wait was aborted (cancel, with_timeout): it is
    /// no longer waiting here. Returns its task.
    task_control* forget_first() noexcept {
        first_.node = nullptr;
        return first_.ctl;
    }

private:
    [[gnu::noinline]] bool offer_send_slow(T& v, errc& st, const detail::sync_state* self) noexcept {
        return offer_send_general(v, st, self);
    }
    [[gnu::noinline]] bool offer_recv_slow(detail::value_slot<T>& out, errc& st, const detail::sync_state* self) noexcept {
        return offer_recv_general(out, st, self);
    }
    bool offer_send_general(T& v, errc& st, const detail::sync_state* self = nullptr) noexcept {
        if (closed_) { st = errc::closed; return true; }
        if (first_.node) {  // ahead of every queued offer
            put(v);
            return true;
        }
        if (detail::offer* r = receivers_.take_eligible(self)) {
            detail::move_fresh(r->value, v);
            r->owner->commit(r->leaf);
            return true;
        }
        if (n_.count < N) { push(v); return true; }
        return false;
    }
    bool offer_recv_general(detail::value_slot<T>& out, errc& st, const detail::sync_state* self = nullptr) noexcept {
        if (n_.count > 0) {
            pop_into(out);
            // Room freed: the oldest waiting sender's value moves in.
            if (detail::offer* s = senders_.take_eligible(self)) {
                push(*static_cast<T*>(s->value));
                s->owner->commit(s->leaf);
            }
            return true;
        }
        if constexpr (N == 0) {
            if (first_.sender) {  // ahead of every queued offer
                take_first_sender(out.raw());
                return true;
            }
        }
        if (detail::offer* s = senders_.take_eligible(self)) {
            ::new (out.raw()) T(std::move(*static_cast<T*>(s->value)));
            s->owner->commit(s->leaf);
            return true;
        }
        if (closed_) { st = errc::closed; return true; }
        return false;
    }
    [[gnu::always_inline]] void wake_first() noexcept {
        detail::first_receiver<T>* f = first_.node;
        first_.node = nullptr;
        if (task_control* c = first_.ctl) c->wake();
        else f->abort(f, f->status);  // a connection's node (wait_first_hook): no task
    }
    // A sender waits: the first sender or a queued offer.
    [[gnu::always_inline]] bool senders_wait() const noexcept {
        if constexpr (N == 0) return first_.sender || !senders_.empty();
        else return !senders_.empty();
    }
    // Moves the first sender's value into raw storage at `to`; its send is
    // over (status ok).
    [[gnu::always_inline]] void take_first_sender(void* to) noexcept {
        if constexpr (N == 0) {
            detail::move_fresh(to, *first_.sender->value);
            wake_first_sender();
        }
    }
    void wake_first_sender() noexcept {
        if constexpr (N == 0) {
            first_.sender = nullptr;
            first_.ctl->wake();
        }
    }

    // A rendezvous buffers nothing: its count and head are constants, so
    // its hot fields fit one cache line on the host.
    struct ring_counts {
        std::uint32_t count = 0;
        std::uint32_t head = 0;  // index of the oldest value
    };
    struct no_counts {
        static constexpr std::uint32_t count = 0, head = 0;
    };
    struct empty_ring {};
    struct ring {
        alignas(T) unsigned char bytes[sizeof(T) * (N ? N : 1)];
        T* at(std::size_t i) noexcept { return std::launder(reinterpret_cast<T*>(bytes) + i); }
        void* slot(std::size_t i) noexcept { return bytes + i * sizeof(T); }
    };
    // The waiting task is kept here, not only in the node: a wake then
    // needs no load from the waiting frame (1-3 % in Savina Chameneos and
    // Big on the host, where that frame is often out of the cache).
    struct first_receiver_state {
        detail::first_receiver<T>* node = nullptr;  // a receive waiting ahead of every offer
        task_control* ctl = nullptr;                // the task of whichever waits
    };
    struct first_state : first_receiver_state {
        detail::first_sender<T>* sender = nullptr;  // or a send (rendezvous only)
    };
    // A ring index from i < 2N. A power-of-two capacity wraps with a
    // mask, one instruction instead of a compare and a conditional
    // subtract on every push and pop.
    [[gnu::always_inline]] static std::uint32_t wrap(std::uint32_t i) noexcept {
        if constexpr (N > 0 && (N & (N - 1)) == 0) return i & std::uint32_t(N - 1);
        else return i >= N ? i - std::uint32_t(N) : i;
    }
    [[gnu::always_inline]] std::uint32_t tail() const noexcept { return wrap(n_.head + n_.count); }
    // Moves a sender's value (moved from) to the back of the ring.
    [[gnu::always_inline]] void push(T& v) noexcept {
        if constexpr (N > 0) {
            detail::move_fresh(ring_.slot(tail()), v);
            ++n_.count;
        }
    }
    // Moves the oldest value straight into `out` (no temporary T).
    void pop_into(detail::value_slot<T>& out) noexcept {
        if constexpr (N > 0) {
            ::new (out.raw()) T(std::move(*ring_.at(n_.head)));
            drop_front();
        }
    }
    [[gnu::always_inline]] void drop_front() noexcept {
        if constexpr (N > 0) {
            ring_.at(n_.head)->~T();
            n_.head = wrap(n_.head + 1);
            --n_.count;
        }
    }
    void clear() noexcept {
        while (n_.count > 0) drop_front();
    }

    // What every send and receive reads comes first, together (64 bytes on
    // a 64-bit host, buffered or not: one cache line when the channel is
    // aligned to one; the name, read only to report an error, after the
    // ring).
    [[no_unique_address]] std::conditional_t<(N > 0), ring_counts, no_counts> n_;
    bool closed_ = false;
    std::conditional_t<N == 0, first_state, first_receiver_state> first_;
    detail::offer_queue receivers_;
    detail::offer_queue senders_;
    [[no_unique_address]] std::conditional_t<(N > 0), ring, empty_ring> ring_;
    const char* name_;
};

}  // namespace weft::csp
