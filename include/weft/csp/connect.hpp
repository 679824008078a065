// SPDX-License-Identifier: Apache-2.0
#pragma once
// connect(ex, ch, driver): SenseVM's spawnExternal. The driver becomes a
// process on the channel, without a task or a frame: the connection object
// holds one offer and an irq_node.
//
//   weft::csp::channel<bool> bchan{"bchan"}, lchan{"lchan"};
//   auto b = connect(ex, bchan, button);   // button presses are sent on bchan
//   auto l = connect(ex, lchan, led);      // values received on lchan go to the LED
//
// Input (driver -> channel): on each interrupt the connection reads while
// the driver is readable and sends each value; when the channel cannot take
// it (rendezvous without receiver, full buffer) the value waits in the
// connection as a send offer and the driver is not read further, so its
// own buffer (or overflow report) applies back-pressure. Nothing is lost:
// the value is sent when a receiver comes.
// Output (channel -> driver): the connection keeps a receive offer on the
// channel; each value is written while the driver is writable, otherwise it
// waits for the driver's interrupt.
// Driver errors and a closed channel are recorded: errors(), last_error().
// Once its channel is closed, an input connection keeps the value it holds
// and reads the driver no further, so the driver's own buffer keeps the
// rest; close() hands the value back.
// close() (executor thread; the destructor calls it) detaches the driver
// and withdraws the connection's offer and any interrupt post still queued,
// so the driver can be connected again; values that arrive in between wait
// in the driver's own buffer. close() hands back the one value a connection
// may hold in transit (read but not yet taken by a receiver, or received
// but not yet written), so that nothing is lost; the destructor drops it.
// A connection is neither copied nor moved.
#include <weft/core/executor.hpp>
#include <weft/core/interrupt_queue.hpp>
#include <weft/csp/bridge.hpp>
#include <weft/csp/channel.hpp>
#include <weft/csp/detail/sync_state.hpp>

#include <optional>

namespace weft::csp {

namespace detail {
/// State shared by both directions: error record and executor hooks.
class connection_base : protected sync_state, protected irq_node {
public:
    connection_base(const connection_base&) = delete;
    connection_base& operator=(const connection_base&) = delete;

    /// Driver or channel failures seen so far (each also kept in last_error).
    std::size_t errors() const noexcept { return errors_; }
    /// The most recent failure; ok if none.
    const error& last_error() const noexcept { return last_; }
    /// Values moved between driver and channel.
    std::size_t transferred() const noexcept { return transferred_; }

protected:
    // Only an asynchronous driver is an external source: a synchronous one
    // (an LED) never posts, so counting it would keep a virtual-clock run()
    // waiting for ever where nothing can wake its tasks (`stalled`). Asked
    // of the driver here and again in disconnect() (a constant for the
    // ports' drivers). Out of line: one copy for every kind of connection.
    [[gnu::noinline]] connection_base(executor& ex, void (*irq)(irq_node*) noexcept, bool external) noexcept
        : irq_node(irq), ex_(&ex) {
        if (external) ex.external_begin();
    }
    ~connection_base() = default;  // the derived destructor disconnects
    void record(const error& e) noexcept { last_ = e; ++errors_; }
    // A failed driver read ends the input connection's turn: the rest is
    // read when run() next drains its interrupt nodes, after the next
    // ready task, also when the connection was pumped by another node's
    // handler while its own is still ahead in the same batch. A driver
    // that breaks bridge.hpp's contract and fails the same read for ever
    // would otherwise keep the executor in pump(). Out of line: the read
    // path stays as short as it was.
    [[gnu::noinline, gnu::cold]] void read_failed(const error& e) noexcept {
        record(e);
        ex_->post_next_turn(*this);
    }
    // The driver can no longer post us once it is detached; what it posted
    // before must not run after we are gone. False if already closed.
    template <class D>
    bool disconnect(D& drv) noexcept {
        if (detached_) return false;
        detached_ = true;
        drv.detach();
        ex_->withdraw_post(*this);
        offer_.withdraw();
        waiting_ = false;
        if (!drv.is_synchronous()) ex_->external_end();  // no more interrupts to wait for
        return true;
    }

    executor* ex_;
    offer offer_;  // member initialisers only: `{}` zero-fills (a memset call at -Os)
    bool waiting_ = false;   // an offer is queued (input: or its channel closed); pump() waits
    bool detached_ = false;  // close() ran
    std::size_t errors_ = 0, transferred_ = 0;
    error last_{};
};
}  // namespace detail

/// Driver -> channel. Created by connect().
template <class T, std::size_t N, class D>
class [[nodiscard("keep it: destroying the connection closes it")]] input_connection
    : public detail::connection_base {
public:
    input_connection(executor& ex, channel<T, N>& ch, D& drv) noexcept
        : connection_base(ex, &on_irq, !drv.is_synchronous()), ch_(&ch), drv_(&drv) {
        offer_.owner = this;
        complete = &on_commit;
        drv.attach(ex, *this);
        pump();
    }
    ~input_connection() { (void)disconnect(*drv_); }

    /// Stops the transfer; returns the value read from the driver that no
    /// receiver has taken yet, if any. Idempotent.
    std::optional<T> close() noexcept {
        std::optional<T> held;
        if (disconnect(*drv_)) held.swap(pending_);
        return held;
    }

private:
    static void on_irq(irq_node* n) noexcept { static_cast<input_connection*>(n)->pump(); }
    static void on_commit(sync_state* s) noexcept {
        auto* self = static_cast<input_connection*>(s);
        self->waiting_ = false;
        self->finish(self->status);
        self->pump();
    }
    void finish(errc st) noexcept {
        if (st == errc::ok) {
            ++transferred_;
            pending_.reset();
            return;
        }
        // Closed: reported once; the value stays for close() to hand back,
        // and the connection waits for good (nothing will commit it: the
        // channel is closed), so pump() reads the driver no further.
        record(ch_->make_error(st));
        waiting_ = true;
    }
    // Executor thread: move readable values into the channel.
    void pump() noexcept {
        while (!waiting_ && !detached_) {
            if (!pending_) {
                if (drv_->readable() == 0) return;
                result<T> r = drv_->read();
                if (!r) {
                    read_failed(r.err());
                    return;
                }
                pending_.emplace(std::move(*r));
            }
            errc st = errc::ok;
            if (ch_->offer_send(*pending_, st)) { finish(st); continue; }
            offer_.value = &*pending_;  // wait for a receiver (back-pressure)
            waiting_ = true;
            ch_->wait_send(offer_);
        }
    }

    channel<T, N>* ch_;
    D* drv_;
    std::optional<T> pending_;
};

/// Channel -> driver. Created by connect().
template <class T, std::size_t N, class D>
class [[nodiscard("keep it: destroying the connection closes it")]] output_connection
    : public detail::connection_base {
public:
    output_connection(executor& ex, channel<T, N>& ch, D& drv) noexcept
        : connection_base(ex, &on_irq, !drv.is_synchronous()), ch_(&ch), drv_(&drv) {
        offer_.owner = this;
        offer_.value = node_.slot.raw();
        complete = &on_commit;
        node_.abort = &on_first_done;
        node_.self = this;
        drv.attach(ex, *this);
        pump();
    }
    ~output_connection() {
        (void)stop();
        if (held_) drop();
    }

    /// Stops the transfer; returns the value received from the channel that
    /// the driver has not accepted yet, if any. Idempotent.
    std::optional<T> close() noexcept {
        std::optional<T> held;
        if (stop() && held_) {
            held.emplace(std::move(*node_.slot.get()));
            drop();
        }
        return held;
    }

private:
    // Where the channel puts a value for us when we wait as its first
    // receiver (the common case: nobody else receives on a device's
    // channel): a sender then hands over as to a waiting task, inline,
    // and the channel calls this node's hook instead of waking a task.
    struct hook_node : detail::first_receiver<T> {
        output_connection* self;
    };

    // disconnect() withdraws a queued offer; a wait as the first receiver
    // is the channel's to end. False if already closed.
    bool stop() noexcept {
        (void)ch_->withdraw_first(node_);
        return disconnect(*drv_);
    }
    static void on_irq(irq_node* n) noexcept { static_cast<output_connection*>(n)->pump(); }
    // A queued offer committed (another receiver was first when we waited).
    static void on_commit(sync_state* s) noexcept {
        auto* self = static_cast<output_connection*>(s);
        self->received(self->status);
    }
    // Our wait as the first receiver ended: a value is in node_.slot
    // (ok) or the channel was closed.
    static void on_first_done(weft::detail::wait_node* w, errc st) noexcept {
        static_cast<hook_node*>(w)->self->received(st);
    }
    void received(errc st) noexcept {
        waiting_ = false;
        if (st != errc::ok) { channel_closed(st); return; }
        held_ = true;  // the sender moved its value into node_.slot
        pump();
    }
    // Out of line and cold: inlined, the error's construction cost the
    // write path 4 to 12 instructions on the board (register pressure).
    [[gnu::cold, gnu::noinline]] void channel_closed(errc st) noexcept {
        closed_ = true;
        record(ch_->make_error(st));
    }
    // Executor thread: write received values while the driver accepts them.
    void pump() noexcept {
        while (!waiting_ && !closed_ && !detached_) {
            if (held_) {
                if (drv_->writable() == 0) return;  // the driver's interrupt resumes us
                weft::status s = drv_->write(std::move(*node_.slot.get()));
                drop();
                if (s) ++transferred_; else record(s.err());
                continue;
            }
            errc st = errc::ok;
            if (!ch_->recv_must_wait() && ch_->offer_recv(node_.slot, st)) {
                if (st != errc::ok) channel_closed(st);
                else held_ = true;
                continue;
            }
            waiting_ = true;
            if (ch_->can_wait_first()) ch_->wait_first_hook(node_);
            else ch_->wait_recv(offer_);
        }
    }
    void drop() noexcept {
        node_.slot.destroy();
        held_ = false;
    }

    channel<T, N>* ch_;
    D* drv_;
    hook_node node_;  // its slot holds a value while held_
    bool held_ = false;
    bool closed_ = false;  // the channel was closed
};

/// Connects an input driver to `ch`: its values are sent on ch.
/// Executor thread, before or during run(). Does not allocate.
template <class T, std::size_t N, input_bridge<T> D>
input_connection<T, N, D> connect(executor& ex, channel<T, N>& ch, D& drv) noexcept {
    return {ex, ch, drv};
}
/// Connects an output driver to `ch`: values received on ch are written to it.
template <class T, std::size_t N, output_bridge<T> D>
    requires(!input_bridge<D, T>)
output_connection<T, N, D> connect(executor& ex, channel<T, N>& ch, D& drv) noexcept {
    return {ex, ch, drv};
}

}  // namespace weft::csp
