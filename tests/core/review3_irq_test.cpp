// SPDX-License-Identifier: Apache-2.0
// Adversarial review of the interrupt boundary (third round): the
// interrupt queue's drain against a poster on another core, and
// split_phase's executor pointer against a completer while a second task
// awaits.
#include <weft/core/interrupt_queue.hpp>
#include <weft/core/split_phase.hpp>
#include <weft/core/task.hpp>

#include <gtest/gtest.h>
#include <support/weft_test.hpp>

#include <atomic>
#include <string>
#include <thread>

using namespace weft;

namespace {

#if defined(__SANITIZE_THREAD__)
constexpr bool under_tsan = true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
constexpr bool under_tsan = true;
#else
constexpr bool under_tsan = false;
#endif
#else
constexpr bool under_tsan = false;
#endif

std::atomic<long> device_data{0};
long handler_saw = 0;  // executor thread only

struct reading_node : irq_node {
    reading_node() : irq_node(&on_run) {}
    // A driver's handler: reads what the device published before posting.
    static void on_run(irq_node*) noexcept { handler_saw = device_data.load(std::memory_order_acquire); }
};

}  // namespace

// A post refused because the node is still queued relies on the handler
// that runs next to see what the poster published before it: the poster
// does not post again. drain() clears `queued` and then runs the handler;
// with a release store there, the handler's loads could pass the store
// (store-load reordering, which x86 and Arm both do), so the handler read
// the old data while the poster, still finding the node queued, was
// refused: a lost wake-up (a byte left in a driver's FIFO until the next
// one). Each round the "device" keeps publishing and posting until a post
// is accepted; the handler of the drain that cleared the flag must have
// seen the value of the last refused post. This cannot fail with an
// exchange in drain(); with the store, store buffers make it fail in some
// runs only (about half on a 2-vCPU x86 VM), and never under TSan, which
// does not model them.
TEST(interrupt_queue_review, a_refused_post_is_seen_by_the_handler_that_runs_next) {
    const int rounds = under_tsan ? 500 : 100'000;
    interrupt_queue q;
    reading_node n;
    std::atomic<int> go{0}, posting{0}, done{0};
    long last_refused = 0;  // device thread; read after `done`
    std::thread device([&] {
        long v = 0;
        for (int i = 1; i <= rounds; ++i) {
            while (go.load(std::memory_order_acquire) != i) {}
            last_refused = 0;
            for (;;) {
                device_data.store(++v, std::memory_order_release);
                if (q.post(n)) break;
                last_refused = v;
                posting.store(i, std::memory_order_relaxed);
            }
            done.store(i, std::memory_order_release);
        }
    });
    int missed = 0, first_missed = 0;
    for (int i = 1; i <= rounds; ++i) {
        EXPECT_TRUE(q.post(n));
        go.store(i, std::memory_order_release);
        // Drain only once the device is refused: it is then posting as the
        // flag clears.
        while (posting.load(std::memory_order_relaxed) != i) {}
        q.drain();
        const long saw = handler_saw;
        while (done.load(std::memory_order_acquire) != i) {}
        if (saw < last_refused && missed++ == 0) first_missed = i;
        q.drain();  // the accepted post
    }
    device.join();
    EXPECT_EQ(missed, 0) << "first in round " << first_missed << " of " << rounds;
}

// Every task that awaits an operation writes the executor pointer the
// completer reads. A second task that awaits while one waits is refused
// with `busy`, but it wrote the pointer all the same, while a completer
// on another thread may be reading it: a data race (same value, still
// undefined behaviour; TSan reports it). The completer here starts on a
// relaxed flag, so nothing orders it after the second task's await.
TEST(split_phase_review, a_refused_second_awaiter_does_not_race_with_the_completer) {
    executor ex{test::virtual_clock()};
    split_phase<int> op{"adc"};
    std::atomic<bool> refused{false};
    std::thread isr([&] {
        while (!refused.load(std::memory_order_relaxed)) std::this_thread::yield();
        EXPECT_TRUE(bool(op.complete(7)));
    });
    int first = -1;
    std::string second;
    auto a = [&]() -> task<> {  // b is ready: a arms an ordinary wait
        auto r = co_await op;
        if (r) first = *r;
    };
    auto b = [&]() -> task<> {
        auto r = co_await op;
        if (!r) second = r.err().message().c_str();
        refused.store(true, std::memory_order_relaxed);
    };
    auto ha = ex.spawn(a());
    auto hb = ex.spawn(b());
    ASSERT_TRUE(ha && hb);
    EXPECT_EQ(ex.run(), run_outcome::completed);
    isr.join();
    EXPECT_EQ(second, "split_phase 'adc': awaited by a second task while one waits (limit 1)");
    EXPECT_EQ(first, 7);
}
