// SPDX-License-Identifier: Apache-2.0
// The README's tour, compiled and run: a recursive generator solving the
// same-fringe problem, when_any cancelling its loser, and a mutex that
// lends its owner a waiter's priority and refuses a deadlock. On the
// virtual clock, so the output is the same on every run (CTest checks it).
#include <weft/core.hpp>

#include <cstdio>

using namespace std::chrono_literals;

weft::frame_pool<512, 8> frames{"tour"};  // every frame below comes from here

// --- Generators, recursively ------------------------------------------------
struct node {
    int value;
    const node* left = nullptr;   // both null: a leaf
    const node* right = nullptr;
};

weft::generator<int> fringe(const node* n) {
    if (!n->left) {
        co_yield n->value;
        co_return;
    }
    co_yield weft::elements_of(fringe(n->left));
    co_yield weft::elements_of(fringe(n->right));
}

bool same_fringe(const node* a, const node* b) {
    auto ga = fringe(a), gb = fringe(b);
    auto ia = ga.begin(), ib = gb.begin();
    for (; ia != ga.end() && ib != gb.end(); ++ia, ++ib)
        if (*ia != *ib) return false;
    return ia == ga.end() && ib == gb.end();
}

// --- Structured concurrency -------------------------------------------------
weft::semaphore adc{"adc", 1, 1};

weft::task<int> slow_read() {
    (void)co_await adc.acquire();              // holds the ADC...
    auto s = co_await weft::sleep_for(1h);     // ...and would block for an hour
    std::printf("slow_read: sleep ended %s, releasing the ADC\n", weft::to_string(s.code()));
    (void)adc.release();
    co_return -1;
}

weft::task<int> cached(int v) {
    co_await weft::sleep_for(2ms);
    co_return v;
}

weft::task<> first_of_two() {
    auto r = co_await weft::when_any(slow_read(), cached(7));
    // The loser has been cancelled, has unwound and released the ADC.
    std::printf("when_any: branch %zu won with %d, ADC free again: %s\n", r.index,
                **std::get<1>(r.values), adc.available() == 1 ? "yes" : "no");
}

// --- Mutexes that lend their priority ---------------------------------------
weft::mutex bus{"i2c"};

weft::task<> low_owner() {                     // priority 1
    auto g = co_await bus.scoped_lock();       // a guard, or cancelled / timeout / cycle
    if (!g) co_return;                         // (the guard unlocks when g goes)
    co_await weft::sleep_for(5ms);             // a waiting priority-3 task lends us 3
    std::printf("owner holds the bus at priority %d\n", int(bus.owner()->prio()));
}

weft::task<> high_waiter() {                   // priority 3
    co_await weft::sleep_for(4ms);
    auto g = co_await bus.scoped_lock();
    if (!g) co_return;
    auto again = co_await bus.lock();          // the bus is ours already
    std::printf("%s\n", again.err().message().c_str());  // "mutex 'i2c': would deadlock (...)"
}

// Runs the three tasks; their join handles (and so their frames) go when
// it returns.
bool run_tasks() {
    weft::executor ex{{"tour", weft::clock_mode::virtual_}};
    auto w = ex.spawn(first_of_two());
    auto o = ex.spawn(low_owner(), /*priority*/ 1);
    auto h = ex.spawn(high_waiter(), /*priority*/ 3);
    if (!w || !o || !h) {
        std::printf("spawn failed: %s\n", (!w ? w.err() : !o ? o.err() : h.err()).message().c_str());
        return false;
    }
    return ex.run() == weft::run_outcome::completed;
}

int main() {
    const node l1{1}, l2{2}, l3{3}, l4{4};
    const node a12{0, &l1, &l2}, a{0, &a12, &l3};  // ((1 2) 3)
    const node b23{0, &l2, &l3}, b{0, &l1, &b23};  // (1 (2 3))
    const node b24{0, &l2, &l4}, c{0, &l1, &b24};  // (1 (2 4))
    std::printf("same_fringe ((1 2) 3) (1 (2 3)): %s\n", same_fringe(&a, &b) ? "yes" : "no");
    std::printf("same_fringe ((1 2) 3) (1 (2 4)): %s\n", same_fringe(&a, &c) ? "yes" : "no");

    bool done = run_tasks();
    std::printf("tour %s, frames in use: %zu (peak %zu of %zu)\n", done ? "done" : "stopped",
                frames.in_use(), frames.peak(), frames.capacity());
    return done && frames.in_use() == 0 ? 0 : 1;
}
