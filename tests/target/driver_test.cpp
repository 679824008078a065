// SPDX-License-Identifier: Apache-2.0
// The board's button driver when its FIFO overflows: the error is counted
// and the values the application sees still end at the button's level.
#include "target_test.hpp"

#include <weft/core.hpp>
#include <weft/csp.hpp>
#include <weft_port/board/button.hpp>
#include <weft_port/mps2.hpp>

using namespace weft;
using namespace weft::csp;
using namespace std::chrono_literals;
namespace mps2 = weft::port::mps2;

namespace {
frame_pool<512, 4> frames{"driver_frames"};
board::button but0{"but0", 0};
void (*soft_isr)() = nullptr;
volatile bool level = false;
void toggle() { level = !level; but0.inject(level); (void)but0.sample(); }
void bounce_21() { for (int i = 0; i < 21; ++i) toggle(); }   // ends pressed
void sample_only() { (void)but0.sample(); }                    // a later timer tick, finger still on it
}  // namespace

extern "C" void weft_irq_handler_31() { if (soft_isr) soft_isr(); }

WEFT_TARGET_TEST(button, after_an_overflow_the_stream_ends_at_the_current_level) {
    executor ex;
    channel<bool, 4> bchan{"bchan"};
    auto b = connect(ex, bchan, but0);
    mps2::enable_irq(mps2::soft_irq0);
    bool last_seen = false;
    int got = 0;
    auto t = [&]() -> task<> {
        soft_isr = &bounce_21;
        mps2::pend_irq(mps2::soft_irq0);
        co_await sleep_for(100us);
        soft_isr = &sample_only;
        for (int i = 0; i < 5; ++i) {          // five more sampling ticks, button held
            while (auto v = bchan.try_recv()) { last_seen = *v; ++got; }
            mps2::pend_irq(mps2::soft_irq0);
            co_await sleep_for(100us);
        }
        while (auto v = bchan.try_recv()) { last_seen = *v; ++got; }
    };
    auto h = ex.spawn(t());
    WEFT_REQUIRE(h);
    WEFT_CHECK(ex.run() == run_outcome::completed);
    soft_isr = nullptr;
    WEFT_CHECK_EQ(b.errors(), 1u);
    WEFT_CHECK_EQ(last_seen, bool(level));  // the application's view must converge to the button
}

