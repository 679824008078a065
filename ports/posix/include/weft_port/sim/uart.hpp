// SPDX-License-Identifier: Apache-2.0
#pragma once
// Simulated UART over a socket pair. The "wire" is peer_fd(): whatever a
// test or script writes there arrives on rx() (an asynchronous input
// driver of bytes, fed by a reader thread that plays the RX interrupt);
// bytes written to tx() (a synchronous output driver) can be read back
// from peer_fd(). inject() writes to the wire from any thread; deliver()
// from a script on the executor's thread, and returns once the bytes are
// in the RX FIFO, so that a run on the virtual clock is repeatable.
#include <weft/core/result.hpp>
#include <weft_port/sim/irq_ring.hpp>

#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>

namespace weft::sim {

class uart {
    static constexpr std::size_t fifo = 64;

public:
    explicit uart(const char* name = "uart") noexcept : rx_(*this), tx_(*this), name_(name) {
        if (::socketpair(AF_UNIX, SOCK_STREAM, 0, fds_) != 0) fds_[0] = fds_[1] = -1;
    }
    uart(const uart&) = delete;
    uart& operator=(const uart&) = delete;
    ~uart() {
        closing_.store(true, std::memory_order_relaxed);
        // Wakes a reader waiting for room in a full FIFO.
        room_.fetch_add(1, std::memory_order_release);
        room_.notify_one();
        if (fds_[1] >= 0) ::shutdown(fds_[1], SHUT_RDWR);
        if (started_) pthread_join(thread_, nullptr);
        for (int fd : fds_) if (fd >= 0) ::close(fd);
    }
    const char* name() const noexcept { return name_; }
    /// The far end of the wire.
    int peer_fd() const noexcept { return fds_[1]; }
    /// Writes bytes onto the wire (any thread). They reach the RX FIFO a
    /// little later, from the reader thread; on the virtual clock use
    /// deliver(). Returns how many bytes went on the wire: fewer than `n`
    /// once the far end has hung up (an error, not SIGPIPE).
    std::size_t inject(const void* data, std::size_t n) noexcept {
        // Counted before the write, so the reader never counts ahead.
        on_wire_.fetch_add(n, std::memory_order_relaxed);
        const std::size_t put = write_wire(data, n);
        on_wire_.fetch_sub(n - put, std::memory_order_relaxed);
        return put;
    }
    /// Writes bytes onto the wire and returns once the reader thread has
    /// put every byte on the wire so far into the RX FIFO and posted the
    /// connection. Meant for scripts on the executor's thread: on the
    /// virtual clock, which jumps ahead whenever the executor is idle,
    /// bytes still in the socket would otherwise arrive after timers that
    /// should have come later. Waits for the reader thread (a few
    /// microseconds, blocked rather than spinning), not for time. Fails with `full` if the bytes do not
    /// fit in the FIFO's free room (waiting would then never end: only the
    /// executor empties it), with `closed` if the RX half was never
    /// attached (no reader thread), with `device` if the far end hung up
    /// (the bytes could not be put on the wire; no SIGPIPE). Bytes written to peer_fd() directly
    /// are not counted: do not mix them with deliver(). Executor thread
    /// only; does not allocate.
    status deliver(const void* data, std::size_t n) noexcept {
        if (!started_) return error{errc::closed, "uart", name_, 0, "rx not connected, nothing reads the wire"};
        if (ring_.size() + in_socket() + n > fifo)
            return error{errc::full, "uart", name_, fifo, "bytes to deliver exceed the free rx FIFO"};
        const std::size_t put = inject(data, n);
        for (;;) {
            const std::size_t in = in_fifo_.load(std::memory_order_acquire);
            if (on_wire_.load(std::memory_order_relaxed) <= in) break;
            in_fifo_.wait(in, std::memory_order_acquire);  // the reader notifies each byte
        }
        if (put != n) return error{errc::device, "uart", name_, 0, "rx wire hung up, bytes not delivered"};
        return {};
    }

    /// RX half: bridge of std::uint8_t (asynchronous).
    class rx_driver {
    public:
        explicit rx_driver(uart& u) noexcept : u_(&u) {}
        bool is_synchronous() const noexcept { return false; }
        void attach(executor& ex, irq_node& n) noexcept {
            u_->ring_.attach(ex, n, "uart rx", u_->name_);
            u_->start();
        }
        /// The reader keeps filling the FIFO, then waits (flow control).
        void detach() noexcept { u_->ring_.detach(); }
        std::size_t readable() const noexcept { return u_->ring_.size() + (u_->ring_.overflowed() ? 1 : 0); }
        /// A byte, or once per burst of lost bytes "uart '<name>': rx bytes
        /// lost, FIFO full (limit 64)", their number added to uart::lost().
        result<std::uint8_t> read() noexcept {
            if (const std::uint32_t n = u_->ring_.overflowed() ? u_->ring_.take_overflows() : 0; n != 0) {
                u_->lost_ += n;
                return error{errc::overflow, "uart", u_->name_, fifo, "rx bytes lost, FIFO full"};
            }
            const std::uint8_t b = u_->ring_.pop();
            // A reader waiting for room wakes; a notify with nobody waiting
            // is one load (libstdc++ counts waiters).
            u_->room_.fetch_add(1, std::memory_order_release);
            u_->room_.notify_one();
            return b;
        }

    private:
        uart* u_;
    };
    /// TX half: bridge of std::uint8_t (synchronous). A write blocks the
    /// executor's thread while the socket's buffer is full (nobody reads
    /// the wire): a simulation limit; the board's UART queues and reports
    /// `full` instead. A hung-up wire is a `device` error, not SIGPIPE.
    class tx_driver {
    public:
        explicit tx_driver(uart& u) noexcept : u_(&u) {}
        bool is_synchronous() const noexcept { return true; }
        void attach(executor&, irq_node&) noexcept {}
        void detach() noexcept {}
        std::size_t writable() const noexcept { return 1; }
        status write(std::uint8_t b) noexcept {
            if (restarted([&] { return ::send(u_->fds_[0], &b, 1, MSG_NOSIGNAL); }) != 1)
                return error{errc::device, "uart", u_->name_, 0, "tx write failed"};
            return {};
        }

    private:
        uart* u_;
    };
    rx_driver& rx() noexcept { return rx_; }
    tx_driver& tx() noexcept { return tx_; }
    /// RX bytes lost because the FIFO was full, in the bursts rx().read()
    /// has reported so far (the error's limit is the FIFO's size, this is
    /// the count). Stays 0 while the reader thread waits for room instead.
    /// Executor thread.
    std::size_t lost() const noexcept { return lost_; }

private:
    // The wire's calls, repeated when a signal interrupts them: a handler
    // installed without SA_RESTART makes a blocked read()/send() fail with
    // EINTR, which is no hang-up (taken for one, the reader thread ended
    // and RX stayed dead, inject() came back short, a TX write failed).
    template <class Call>
    static ssize_t restarted(Call call) noexcept {
        ssize_t k;
        while ((k = call()) < 0 && errno == EINTR) {}
        return k;
    }
    // Bytes written and not yet reached the FIFO.
    std::size_t in_socket() const noexcept {
        // acquire: pairs with the reader's release after its push, so once
        // this reads 0 the bytes are in the FIFO and the connection posted.
        const std::size_t in = in_fifo_.load(std::memory_order_acquire);
        const std::size_t out = on_wire_.load(std::memory_order_relaxed);
        return out > in ? out - in : 0;
    }
    // Returns how many bytes were written.
    std::size_t write_wire(const void* data, std::size_t n) noexcept {
        const auto* p = static_cast<const std::uint8_t*>(data);
        std::size_t done = 0;
        while (done < n) {
            // A hung-up wire is an error, not SIGPIPE (as for TX).
            ssize_t k = restarted([&] { return ::send(fds_[1], p + done, n - done, MSG_NOSIGNAL); });
            if (k <= 0) break;
            done += std::size_t(k);
        }
        return done;
    }
    void start() noexcept {
        if (started_ || fds_[0] < 0) return;
        started_ = pthread_create(&thread_, nullptr, &reader, this) == 0;
    }
    // The simulated RX interrupt: one byte at a time into the FIFO. When
    // the FIFO is full the reader blocks until read() makes room (like
    // hardware flow control), so a burst is not lost just because the
    // executor is busy, and no thread polls meanwhile.
    static void* reader(void* p) {
        auto* u = static_cast<uart*>(p);
        std::uint8_t b;
        // Until the end of the wire (the destructor's shutdown).
        while (restarted([&] { return ::read(u->fds_[0], &b, 1); }) == 1) {
            for (;;) {
                // Read before the test: a pop after it changes room_, so
                // the wait below returns at once instead of missing it.
                const std::uint32_t seen = u->room_.load(std::memory_order_acquire);
                if (u->closing_.load(std::memory_order_relaxed)) return nullptr;
                if (u->ring_.size() < fifo) break;
                u->room_.wait(seen, std::memory_order_acquire);
            }
            (void)u->ring_.push(b);  // posts the connection
            // release: deliver() sees the byte in the FIFO and its post queued.
            u->in_fifo_.fetch_add(1, std::memory_order_release);
            u->in_fifo_.notify_one();
        }
        return nullptr;
    }

    rx_driver rx_;
    tx_driver tx_;
    const char* name_;
    int fds_[2] = {-1, -1};
    irq_ring<std::uint8_t, fifo> ring_;
    pthread_t thread_{};
    bool started_ = false;
    std::atomic<bool> closing_{false};
    // Counts pops (and the destructor's wake): what a reader facing a full
    // FIFO waits on.
    std::atomic<std::uint32_t> room_{0};
    // Bytes inject() put on the wire and the reader moved into the FIFO:
    // their difference is what is still in the socket.
    std::atomic<std::size_t> on_wire_{0}, in_fifo_{0};
    std::size_t lost_ = 0;  // executor thread only
};

}  // namespace weft::sim
