// SPDX-License-Identifier: Apache-2.0
// A command shell on a UART, written as CSP processes (seed 003): the UART's
// RX and TX drivers and the LED driver are connected to channels; one task
// assembles lines and runs commands, two sleeper tasks answer `sleep`, and
// one writer task owns the TX channel, so replies never interleave.
#include "shell.hpp"

#include <weft/core.hpp>
#include <weft/csp.hpp>

#include <algorithm>
#include <charconv>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <string_view>
#include <utility>

using namespace weft;
using namespace weft::csp;

namespace {
// [docs:uart_shell]
constexpr std::size_t max_line = 32;  // longer lines are refused, not cut
constexpr auto line_idle = 2s;        // a line left unfinished this long is dropped
constexpr unsigned max_sleep_ms = 60'000;
constexpr unsigned sleepers = 2;      // sleeps that can run at once

struct reply {
    char text[80];
};

channel<std::uint8_t, 16> rx{"uart_rx"};  // from the UART's RX driver
channel<std::uint8_t, 16> tx{"uart_tx"};  // to the UART's TX driver
channel<bool> led{"led"};                 // to the LED driver
channel<reply, 4> out{"replies"};         // lines for the UART, from any task
channel<unsigned> sleeps{"sleeps"};       // rendezvous: a free sleeper takes it

executor* exec = nullptr;
time_point started;
unsigned commands = 0, errors = 0, noise = 0;

// One reply line, "\r\n" included; cut (never overrun) at 77 characters.
[[gnu::format(printf, 1, 2)]] reply say(const char* fmt, ...) {
    reply r;
    va_list args;
    va_start(args, fmt);
    int n = std::vsnprintf(r.text, sizeof r.text - 2, fmt, args);
    va_end(args);
    std::size_t end = n < 0 ? 0 : std::min(std::size_t(n), sizeof r.text - 3);
    std::snprintf(r.text + end, 3, "\r\n");
    return r;
}

// "sleep <ms>": <ms> digits only, at most max_sleep_ms. (Not substr():
// it can throw, which links the exception runtime on the board.)
bool parse_ms(std::string_view cmd, unsigned& ms) {
    const char* arg = cmd.data() + 6;  // after "sleep "
    const char* end = cmd.data() + cmd.size();
    auto [stop, ec] = std::from_chars(arg, end, ms);
    return ec == std::errc{} && stop == end && ms <= max_sleep_ms;
}

// Runs one command line. `sleep` is answered by a sleeper task, so the
// shell goes on reading while it runs.
task<> run(std::string_view cmd) {
    ++commands;
    reply r = say("ok");
    unsigned ms = 0;
    if (cmd == "led on" || cmd == "led off") {
        (void)co_await send(led, cmd == "led on");
    } else if (cmd == "status") {
        long long up_ms = (exec->now() - started) / 1ms;
        r = say("uptime %lld ms, commands %u, errors %u, noise bytes %u", up_ms, commands, errors, noise);
    } else if (!cmd.starts_with("sleep ")) {
        ++errors;
        r = say("error: unknown command '%.*s'", int(cmd.size()), cmd.data());
    } else if (!parse_ms(cmd, ms)) {
        ++errors;
        r = say("error: usage: sleep <ms>, 0 to %u", max_sleep_ms);
    } else if (!sleeps.try_send(ms)) {  // every sleeper busy: refuse rather than block the shell
        ++errors;
        r = say("error: %u sleeps running (limit %u)", sleepers, sleepers);
    } else {
        co_return;  // the sleeper says "ok" when the time is up
    }
    (void)co_await send(out, r);
}

task<> shell() {
    char line[max_line];
    std::size_t len = 0, seen = 0;  // kept, and received, bytes of the line so far
    for (;;) {
        result<std::uint8_t> b{errc::timeout};
        if (seen == 0) b = co_await recv(rx);  // between lines: no deadline
        else b = co_await choose(recv(rx), wrap(timeout(line_idle), [] { return result<std::uint8_t>{errc::timeout}; }));
        if (!b) {
            ++errors;
            (void)co_await send(out, say("error: unfinished line '%.*s' dropped after %lld s", int(len), line,
                                         (long long)(line_idle / 1s)));
            len = seen = 0;
            continue;
        }
        char c = char(*b);
        if (c == '\n') {
            if (seen > max_line) {
                ++errors;
                (void)co_await send(out, say("error: line too long (%zu bytes, limit %zu)", seen, max_line));
            } else if (len > 0) {
                (void)co_await run({line, len});
            }
            len = seen = 0;
        } else if (c == '\r') {
            continue;
        } else if (c < ' ' || c > '~') {
            ++noise;  // line noise: dropped, counted in `status`
        } else {
            if (++seen <= max_line) line[len++] = c;
        }
    }
}

task<> sleeper() {
    for (;;) {
        auto ms = co_await recv(sleeps);
        co_await sleep_for(std::chrono::milliseconds(*ms));
        (void)co_await send(out, say("ok"));
    }
}

task<> uart_writer() {
    for (;;) {
        auto r = co_await recv(out);
        for (const char* c = r->text; *c != 0; ++c) (void)co_await send(tx, std::uint8_t(*c));
    }
}
// [docs:uart_shell]
}  // namespace

void start_shell(executor& ex, ::board::uart& uart, ::board::led& led_driver) {
    exec = &ex;
    started = ex.now();
    static auto r = connect(ex, rx, uart.rx());
    static auto t = connect(ex, tx, uart.tx());
    static auto l = connect(ex, led, led_driver);
    auto spawn = [&](task<> t, priority p) {
        if (auto h = ex.spawn(std::move(t), p); !h) port::fatal(h.err().message().c_str());
    };
    spawn(shell(), 0);
    spawn(uart_writer(), 0);
    // The sleepers run first (priority 1): a free one must already wait on
    // `sleeps` when the shell's try_send looks for it, also at start-up.
    for (unsigned i = 0; i < sleepers; ++i) spawn(sleeper(), 1);
}
