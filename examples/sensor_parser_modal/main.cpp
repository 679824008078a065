// SPDX-License-Identifier: Apache-2.0
// Seed 001, Fig. 2: a packet parser as a modal reactor.
// ReadSync -> ReadLength -> ReadPacket -> ReadSync. Packets: 0xAA, len, bytes.
#include <weft/core.hpp>
#include <weft/reactor.hpp>

#include <cstdint>
#include <cstdio>

using namespace weft;
using namespace weft::reactors;

constexpr unsigned max_len = 8;

struct sensor_pkt {
    std::uint8_t len = 0;
    std::uint8_t data[max_len] = {};
};

// [docs:parser]
struct sensor_parser : reactor {
    using reactor::reactor;
    input<std::uint8_t> byte{*this, "byte"};
    output<sensor_pkt> pkt{*this, "pkt"};
    mode read_sync{*this, "ReadSync", initial};
    mode read_length{*this, "ReadLength"};
    mode read_packet{*this, "ReadPacket"};
    sensor_pkt p_{};
    std::uint8_t got_ = 0;
    unsigned bad_lengths = 0;

    reaction sync{read_sync, "sync", on(byte), [this] {
        if (byte.get() == 0xAA) set_mode(read_length);
    }};
    reaction length{read_length, "length", on(byte), [this] {
        const unsigned n = byte.get();
        if (n == 0 || n > max_len) {  // reported, never clamped: resynchronise
            ++bad_lengths;
            std::printf("%2lld ms: bad length %u (limit %u), resynchronising\n",
                        (long long)(logical_time().count() / 1'000'000), n, max_len);
            set_mode(read_sync);
            return;
        }
        p_.len = std::uint8_t(n);
        got_ = 0;
        set_mode(read_packet);
    }};
    reaction packet{read_packet, "packet", on(byte), writes(pkt), [this] {
        p_.data[got_++] = byte.get();
        if (got_ == p_.len) { pkt.set(p_); set_mode(read_sync); }
    }};
};
// [docs:parser]

// A UART delivering one byte per millisecond (noise, a packet, noise, a
// bad length, a packet).
struct uart : reactor {
    using reactor::reactor;
    static constexpr std::uint8_t stream[] = {0x13, 0x37, 0xAA, 3, 10, 20, 30, 0x55, 0xAA, 42, 0xAA, 2, 0xAA, 7};
    std::size_t i_ = 0;
    timer tick{*this, "tick", 0ms, 1ms};
    output<std::uint8_t> rx{*this, "rx"};
    reaction send{*this, "send", on(tick), writes(rx), [this] {
        if (i_ < sizeof stream) rx.set(stream[i_++]); else request_stop();
    }};
};

struct printer : reactor {
    using reactor::reactor;
    input<sensor_pkt> pkt{*this, "pkt"};
    unsigned packets = 0;
    reaction show{*this, "show", on(pkt), [this] {
        ++packets;
        std::printf("%2lld ms: packet of %u bytes:", (long long)(logical_time().count() / 1'000'000), pkt.get().len);
        for (int k = 0; k < pkt.get().len; ++k) std::printf(" %u", pkt.get().data[k]);
        std::printf("\n");
    }};
};

int main() {
    environment<8, 16> env{{.name = "parser", .fast = true}};
    uart u{env, "uart"};
    sensor_parser parser{env, "parser"};
    printer out{env, "printer"};
    connect(u.rx, parser.byte);
    connect(parser.pkt, out.pkt);
    executor ex{{"main", clock_mode::virtual_}};
    status s = env.run(ex);
    if (!s) std::printf("%s\n", s.err().message().c_str());
    return s && out.packets == 2 && parser.bad_lengths == 1 ? 0 : 1;
}
