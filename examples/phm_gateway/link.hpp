// SPDX-License-Identifier: Apache-2.0
#pragma once
// PHM gateway: the network. The simulated fleet sends every measurement as
// one UDP datagram over 127.0.0.1, from one socket, on a thread of its own;
// the gateway receives them into the collator.
//
// The gateway's port is open to anyone on the machine, so it also gets
// datagrams that are not the fleet's: strays, replays (duplicates), a
// scanner's probes. They go to the collator like any other (which counts
// and drops what it cannot file) but change nothing else: the fleet's
// datagrams are told apart by their source address (the fleet's socket),
// and only they
//   - count towards the end of the transfer: the gateway reads until every
//     datagram the fleet sends has arrived, or until the fleet has been
//     silent for idle_limit, and a stray cannot take a real one's place;
//   - reopen the sender's flow-control window, one slot per datagram the
//     fleet sent, so strays cannot widen it beyond what the receive buffer
//     was sized for.
//
// This is an application: it allocates its buffers here, at start-up.
#include "collator.hpp"
#include "options.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <semaphore>
#include <thread>
#include <vector>

namespace phm {

/// What the transfer did.
struct link_report {
    std::size_t sent = 0;      ///< datagrams the fleet sent (good and faulty)
    std::size_t received = 0;  ///< datagrams the gateway read, the fleet's and others
    std::size_t foreign = 0;   ///< of those, not from the fleet's socket
    std::size_t window = 0;    ///< flow-control window: datagrams allowed on their way at once
    std::size_t widest = 0;    ///< most of the fleet's datagrams that were on their way at once
    double seconds = 0;
    bool complete = false;  ///< every measurement stored
};

/// The fleet falls silent this long: the gateway stops waiting.
inline constexpr std::chrono::seconds idle_limit{2};

/// Datagrams the fleet sends: every measurement, plus its faulty radios.
inline std::size_t fleet_datagrams(const params& p) noexcept {
    return p.sensors * p.measurements + 3 * p.bad_per_kind;
}

namespace detail {
inline sockaddr_in loopback_socket(int fd) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    socklen_t len = sizeof addr;
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) < 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) < 0) {
        std::perror("phm_gateway: socket");
        std::exit(1);
    }
    return addr;
}

inline bool same_address(const sockaddr_in& a, const sockaddr_in& b) noexcept {
    return a.sin_port == b.sin_port && a.sin_addr.s_addr == b.sin_addr.s_addr;
}

/// The fleet's side: every measurement of `truth` (S*M*F) in order, with a
/// faulty radio now and then (truncated, oversized, unknown sensor).
/// `send(buf, n)` puts one datagram on the wire.
template <class Send>
void fleet_sends(const params& p, const std::int16_t* truth, Send&& send) {
    std::vector<unsigned char> buf(header_bytes + 2 * p.features + 64);
    std::size_t bad_sent = 0;
    for (std::size_t m = 0; m < p.measurements; ++m)
        for (std::size_t s = 0; s < p.sensors; ++s) {
            std::size_t n = encode(buf.data(), std::uint16_t(s), std::uint32_t(m),
                                   &truth[(s * p.measurements + m) * p.features], std::uint16_t(p.features));
            send(buf.data(), n);
            if (bad_sent < 3 * p.bad_per_kind && (s * p.measurements + m) % 7 == 3) {
                switch (bad_sent % 3) {
                    case 0: send(buf.data(), n - 5); break;                                      // truncated
                    case 1: std::memset(buf.data() + n, 0xEE, 9); send(buf.data(), n + 9); break;  // oversized
                    case 2: buf[4] = 0xFF; buf[5] = 0x7F; send(buf.data(), n); break;            // sensor 32767
                }
                ++bad_sent;
            }
        }
    while (bad_sent < 3 * p.bad_per_kind) {  // tiny fleets: send the rest of the faults now
        std::size_t n = encode(buf.data(), 0x7FFF, 0, truth, std::uint16_t(p.features));
        send(buf.data(), bad_sent % 3 == 0 ? n - 5 : bad_sent % 3 == 1 ? n + 9 : n);
        ++bad_sent;
    }
}

/// The gateway's side of transfer(): reads until `total` datagrams from
/// `fleet` have arrived or the fleet has been silent for idle_limit. Every
/// datagram goes to the collator; only the fleet's reopen the window, so
/// the window never grows past what the fleet took from it.
inline void receive(int rx, const sockaddr_in& fleet, std::size_t total, collator& col,
                    std::counting_semaphore<>& window, std::atomic<std::size_t>& from_fleet, link_report& r) {
    std::vector<unsigned char> buf(65536);
    auto heard = std::chrono::steady_clock::now();
    while (from_fleet.load(std::memory_order_relaxed) < total &&
           std::chrono::steady_clock::now() - heard < idle_limit) {
        sockaddr_in from{};
        socklen_t from_len = sizeof from;
        const ssize_t n = ::recvfrom(rx, buf.data(), buf.size(), 0, reinterpret_cast<sockaddr*>(&from), &from_len);
        if (n < 0) continue;  // SO_RCVTIMEO ran out (or a signal): check the idle limit
        ++r.received;
        col.accept(buf.data(), std::size_t(n));
        if (!detail::same_address(from, fleet)) {
            ++r.foreign;
            continue;
        }
        // Relaxed: the release() below orders it for the sender's acquire().
        from_fleet.fetch_add(1, std::memory_order_relaxed);
        heard = std::chrono::steady_clock::now();
        window.release();  // its slot in the socket buffer is free again
    }
}

}  // namespace detail

/// Sends the fleet's measurements (`truth`, S*M*F) to a gateway socket on
/// 127.0.0.1 and files what arrives into `col`. `after_send(gateway, data,
/// len)` runs on the sender's thread after each of the fleet's datagrams
/// (a test puts strays and replays on the wire there; the application
/// passes one that does nothing). Ends when all the fleet's datagrams have
/// arrived or after idle_limit without one. Exits the program if a socket
/// cannot be had.
template <class AfterSend>
link_report transfer(const params& p, const std::int16_t* truth, collator& col, AfterSend&& after_send) {
    link_report r;
    const int rx = ::socket(AF_INET, SOCK_DGRAM, 0), tx = ::socket(AF_INET, SOCK_DGRAM, 0);
    // The kernel caps this at net.core.rmem_max (208 KiB on a stock Linux),
    // so the window below is sized from what the socket really got.
    int rcvbuf = 4 << 20;
    socklen_t rcvbuf_len = sizeof rcvbuf;
    ::setsockopt(rx, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    ::getsockopt(rx, SOL_SOCKET, SO_RCVBUF, &rcvbuf, &rcvbuf_len);
    timeval tv{0, 200000};
    ::setsockopt(rx, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    const sockaddr_in gateway = detail::loopback_socket(rx);
    const sockaddr_in fleet = detail::loopback_socket(tx);  // bound: its address tells its datagrams apart

    const std::size_t total = fleet_datagrams(p);
    // Flow control: at most `in_flight` datagrams (up to 32) on their way,
    // so the receive buffer never overflows. The kernel charges a datagram
    // its allocation, up to about twice its length (the longest is the
    // oversized fault). The sender blocks in acquire(), it does not spin.
    const std::size_t longest = header_bytes + 2 * p.features + 9;
    const auto in_flight = std::clamp<std::ptrdiff_t>(rcvbuf / std::ptrdiff_t(2 * longest + 1024), 1, 32);
    std::counting_semaphore<> window{in_flight};
    r.window = std::size_t(in_flight);
    std::atomic<std::size_t> from_fleet{0};  // the fleet's datagrams the gateway has read
    // Set when the receiver stops waiting: every lost datagram shrinks the
    // window for good, and once it is gone the sender would wait for ever.
    // Relaxed: the release() that follows it orders it for the sender.
    std::atomic<bool> gave_up{false};
    const auto t0 = std::chrono::steady_clock::now();
    std::thread sender([&] {
        detail::fleet_sends(p, truth, [&](const unsigned char* data, std::size_t n) {
            if (gave_up.load(std::memory_order_relaxed)) return;
            window.acquire();
            if (gave_up.load(std::memory_order_relaxed)) return;
            // The fleet's datagrams sent and not yet read, this one
            // included (from_fleet may lag, which only overstates it):
            // the window keeps it at most in_flight.
            r.widest = std::max(r.widest, r.sent + 1 - from_fleet.load(std::memory_order_relaxed));
            ssize_t k;
            while ((k = ::sendto(tx, data, n, 0, reinterpret_cast<const sockaddr*>(&gateway), sizeof gateway)) < 0 &&
                   errno == EINTR) {
            }
            if (k < 0) {
                // Not sent (ENOBUFS, ...): its window slot is free again, and
                // the receiver's count reports the missing measurements.
                window.release();
                return;
            }
            ++r.sent;
            after_send(gateway, data, n);
        });
    });
    detail::receive(rx, fleet, total, col, window, from_fleet, r);
    gave_up.store(true, std::memory_order_relaxed);
    window.release();  // wakes a sender blocked on a window that will not open
    sender.join();
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.complete = col.complete();
    ::close(rx);
    ::close(tx);
    return r;
}

/// transfer() with nothing sent besides the fleet's datagrams.
inline link_report transfer(const params& p, const std::int16_t* truth, collator& col) {
    return transfer(p, truth, col, [](const sockaddr_in&, const unsigned char*, std::size_t) {});
}

}  // namespace phm
