// SPDX-License-Identifier: Apache-2.0
// The frame-sizing workflow of docs/port-cortex-m.md ("Frame sizes before
// deployment") as a product would meet it, on the host and on the boards
// (tests/frame_workflow/CMakeLists.txt): two pools, several task kinds, a
// generator, when_all, two coroutines of the same size, two coroutine
// lambdas (one name, two frame sizes).
//   - measuring build (no FRAME_WORKFLOW_SIZES): generous pools; the run
//     prints the frame report;
//   - FRAME_WORKFLOW_SIZES="header": pools from the generated header, built
//     as for deployment (WEFT_FRAME_REPORT_ENTRIES=0); with
//     FRAME_WORKFLOW_ONE_FEWER=1 the largest pool has one slot fewer.
#include <weft/core.hpp>

#include <cstdarg>
#include <cstdio>

#ifdef FRAME_WORKFLOW_SIZES
#include FRAME_WORKFLOW_SIZES
#ifndef FRAME_WORKFLOW_ONE_FEWER
#define FRAME_WORKFLOW_ONE_FEWER 0
#endif
// One slot fewer in the largest pool the run used: its frames have nowhere
// else to go (one fewer in a smaller pool may spill into a larger one).
// An unused pool has 8-byte slots (tools/frame_report_to_header).
constexpr bool big_is_largest = frame_sizes::big_slot_bytes >= frame_sizes::small_slot_bytes;
constexpr std::size_t small_fewer = FRAME_WORKFLOW_ONE_FEWER && !big_is_largest ? 1 : 0;
constexpr std::size_t big_fewer = FRAME_WORKFLOW_ONE_FEWER && big_is_largest ? 1 : 0;
weft::frame_pool<frame_sizes::small_slot_bytes, frame_sizes::small_slots - small_fewer> small_pool{"small"};
weft::frame_pool<frame_sizes::big_slot_bytes, frame_sizes::big_slots - big_fewer> big_pool{"big"};
#else
weft::frame_pool<512, 24> small_pool{"small"};  // above every build's peak (16 with Clang 14)
weft::frame_pool<2048, 16> big_pool{"big"};
#endif

namespace {

using namespace std::chrono_literals;

void say(const char* fmt, ...) {
    char line[160];
    va_list ap;
    va_start(ap, fmt);
    int n = std::vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n > 0) weft::port::console_write(line, std::size_t(n) < sizeof line ? std::size_t(n) : sizeof line - 1);
}

// `window` is first created last of all, so a frame table with fewer
// entries than this program has coroutines (WEFT_FRAME_REPORT_ENTRIES=4)
// has no room for it: the report is cut short.
weft::generator<int> samples(int n) {
    for (int i = 0; i < n; ++i) co_yield i * 3;
}
weft::generator<int> window(int n) {
    volatile int history[16] = {};
    for (int i = 0; i < n; ++i) {
        history[i % 16] = i;
        co_yield history[i % 16] + history[(i + 15) % 16];
    }
}

// Two drivers with the same body: frames of equal size, reported apart.
weft::task<int> read_adc(int ch) {
    co_await weft::sleep_for(1ms);
    co_return ch * 10;
}
weft::task<int> read_dac(int ch) {
    co_await weft::sleep_for(1ms);
    co_return ch * 10;
}
weft::task<int> read_i2c(int addr) {
    volatile char buf[700];  // a frame for the big pool on every target
    buf[0] = char(addr);
    co_await weft::sleep_for(2ms);
    co_return buf[0] + 1;
}

// Two coroutine lambdas: one report line, "operator()", which carries the
// larger frame (capture's); filter's smaller frames, the largest the small
// pool serves, show only in that pool's largest_request.
// Each array is read whole after the await, so that it is in the frame
// with Clang too. One closure type per instantiation, all named
// "operator()".
template <std::size_t Bytes, int Tag>
constexpr auto buffered = [](int id) -> weft::task<int> {
    volatile char buf[Bytes];
    for (auto& c : buf) c = char(id);
    co_await weft::sleep_for(1ms);
    int sum = 0;
    for (auto& c : buf) sum += c;
    co_return sum + Tag;
};
constexpr auto& filter = buffered<128, 2>;
constexpr auto& capture = buffered<700, 3>;

int done = 0;
int total = 0;

weft::task<> sensor(int id) {
    auto [a, b, c, d, e] =
        co_await weft::when_all(read_adc(id), read_dac(id), read_i2c(id), filter(id), capture(id));
    for (auto* r : {&a, &b, &c, &d, &e})
        if (!*r) {
            say("sensor %d: %s\n", id, r->err().message().c_str());
            co_return;
        }
    for (int v : samples(4)) total += v;
    ++done;
}

weft::task<> logger() {
    for (int i = 0; i < 3; ++i) co_await weft::sleep_for(1ms);
    auto w = window(30);  // first created now, after every other coroutine
    if (!w) {
        say("logger: %s\n", w.err().message().c_str());
        co_return;
    }
    for (int v : w) total += v;
    ++done;
}

}  // namespace

int main() {
    weft::executor ex{weft::executor_config{"workflow", weft::clock_mode::virtual_}};
    for (int i = 0; i < 3; ++i) {
        auto h = ex.spawn(sensor(i), 1);
        if (!h) {
            say("spawn: %s\n", h.err().message().c_str());
            return 1;
        }
        h->detach();
    }
    auto l = ex.spawn(logger(), 2);
    if (!l) {
        say("spawn: %s\n", l.err().message().c_str());
        return 1;
    }
    l->detach();
    (void)ex.run();
    weft::print_frame_report();
    say("finished %d of 4 tasks\n", done);
    return done == 4 ? 0 : 1;
}
