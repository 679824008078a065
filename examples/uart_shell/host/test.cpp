// SPDX-License-Identifier: Apache-2.0
// uart_shell's test board: a script plays the terminal at the far end of the
// simulated UART (a socket pair) on the executor's virtual clock. It types
// a fixed byte sequence, line noise and mistakes included, and checks every
// byte the shell sends back and when. Exit code 0 when all of it matches.
#include "shell.hpp"

#include <weft/core.hpp>

#include <sys/socket.h>

#include <cstdio>
#include <string>
#include <string_view>

using namespace std::literals;

namespace {
// Sized from weft::print_frame_report(): the shell's frame is 1448 B with
// GCC 12 (544 with Clang 14), the others at most 712 B.
weft::frame_pool<1536, 6> frames{"uart_shell"};
// Globals, constructed before start_shell()'s static connections, so they
// are destroyed after them.
weft::executor ex{{"uart_shell", weft::clock_mode::virtual_}};
weft::sim::uart uart0{"uart0"};
weft::sim::led led0{"led0"};

// '>': the terminal types `bytes` at `at_ms`. '<': at `at_ms`, the shell
// has sent exactly `bytes` since the previous '<' (replies are checked 1 ms
// after what caused them: the writer task runs after the event's task).
struct step {
    int at_ms;
    char dir;
    std::string_view bytes;
};
constexpr step script[] = {
    {0, '>', "\xff\x00"sv "led on\r\n"},                  // noise, then a command
    {1, '<', "ok\r\n"},
    {100, '>', "status\r\n"},
    {101, '<', "uptime 100 ms, commands 2, errors 0, noise bytes 2\r\n"},
    {200, '>', "sleep 500\r\nled off\r\n"},               // the shell reads on while it sleeps
    {201, '<', "ok\r\n"},                                 // led off
    {699, '<', ""},
    {701, '<', "ok\r\n"},                                 // sleep 500, at 700 ms
    {1000, '>', "this line is far too long for the shell\r\n"},
    {1001, '<', "error: line too long (39 bytes, limit 32)\r\n"},
    {1100, '>', "led o"},                                 // the terminal hangs up mid-line
    {3099, '<', ""},
    {3101, '<', "error: unfinished line 'led o' dropped after 2 s\r\n"},
    {3200, '>', "reboot\r\n"},
    {3201, '<', "error: unknown command 'reboot'\r\n"},
    {3300, '>', "sleep 100\nsleep 50\nsleep 10\n"},       // two sleepers: the third is refused
    {3301, '<', "error: 2 sleeps running (limit 2)\r\n"},
    {3400, '>', "sleep soon\r\n"},
    {3401, '<', "ok\r\nok\r\nerror: usage: sleep <ms>, 0 to 60000\r\n"},  // at 3350, 3400, 3400
    {3500, '>', "status\r\n"},
    {3501, '<', "uptime 3500 ms, commands 10, errors 5, noise bytes 2\r\n"},
};

std::string escaped(std::string_view s) {
    std::string e;
    for (unsigned char c : s) {
        char hex[5];
        if (c == '\r') e += "\\r";
        else if (c == '\n') e += "\\n";
        else if (c < ' ' || c > '~') e += (std::snprintf(hex, sizeof hex, "\\x%02x", c), hex);
        else e += char(c);
    }
    return e;
}

// What the shell has written to the wire so far (never blocks: the TX
// driver writes on the executor's thread, which is running this).
std::string drain_wire() {
    std::string got;
    char buf[256];
    for (ssize_t n; (n = ::recv(uart0.peer_fd(), buf, sizeof buf, MSG_DONTWAIT)) > 0;) got.append(buf, std::size_t(n));
    return got;
}

int failures = 0;

weft::task<> terminal() {
    for (const step& s : script) {
        co_await weft::sleep_until(weft::time_point{std::chrono::milliseconds(s.at_ms)});
        if (s.dir == '>') {
            std::printf("[%5d ms] > %s\n", s.at_ms, escaped(s.bytes).c_str());
            if (auto sent = uart0.deliver(s.bytes.data(), s.bytes.size()); !sent) {
                std::printf("  %s\n", sent.err().message().c_str());
                ++failures;
            }
            continue;
        }
        std::string got = drain_wire();
        std::printf("[%5d ms] < %s\n", s.at_ms, got.empty() ? "(nothing)" : escaped(got).c_str());
        if (got != s.bytes) {
            std::printf("  MISMATCH, expected: %s\n", escaped(s.bytes).c_str());
            ++failures;
        }
    }
    ex.request_stop();
}
}  // namespace

int main() {
    start_shell(ex, uart0, led0);
    if (auto h = ex.spawn(terminal()); !h) {
        std::printf("%s\n", h.err().message().c_str());
        return 1;
    }
    ex.run();
    std::printf("led0 %s after %u writes\n", led0.on() ? "on" : "off", led0.writes());
    if (led0.on() || led0.writes() != 2) ++failures;
    std::printf("%s\n", failures == 0 ? "uart_shell: all replies as expected" : "uart_shell: FAILED");
    return failures == 0 ? 0 : 1;
}
