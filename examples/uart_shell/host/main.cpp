// SPDX-License-Identifier: Apache-2.0
// uart_shell on the host's terminal: stdin is typed onto the simulated
// UART's wire and whatever the shell sends back is copied to stdout, on the
// real clock. At the end of input the shell runs one more second (for
// pending sleeps), then the program stops.
#include "shell.hpp"

#include <weft/core.hpp>

#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

namespace {
// Sized from weft::print_frame_report(): the shell's frame is 1448 B with
// GCC 12 (544 with Clang 14), the others at most 712 B.
weft::frame_pool<1536, 6> frames{"uart_shell"};
weft::executor ex{{"uart_shell", weft::clock_mode::real}};
weft::sim::uart uart0{"uart0"};
weft::sim::led led0{"led0", /*verbose=*/true};

void* keyboard(void*) {
    char buf[64];
    for (ssize_t n; (n = ::read(0, buf, sizeof buf)) > 0;) uart0.inject(buf, std::size_t(n));
    ::sleep(1);
    ex.request_stop();
    return nullptr;
}

void* screen(void*) {
    char buf[64];
    for (ssize_t n; (n = ::read(uart0.peer_fd(), buf, sizeof buf)) > 0;) (void)!::write(1, buf, std::size_t(n));
    return nullptr;
}
}  // namespace

int main() {
    start_shell(ex, uart0, led0);
    pthread_t in, out;
    pthread_create(&in, nullptr, &keyboard, nullptr);
    pthread_create(&out, nullptr, &screen, nullptr);
    ex.run();
    ::shutdown(uart0.peer_fd(), SHUT_RD);  // ends screen()'s read
    pthread_join(out, nullptr);
    pthread_join(in, nullptr);
}
