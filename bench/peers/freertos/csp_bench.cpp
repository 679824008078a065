// SPDX-License-Identifier: Apache-2.0
// FreeRTOS peer of bench/target/csp_bench.cpp (suite target-csp): the same
// workloads with the same op definitions, on the same board and harness, run
// through the scheduler vTaskStartScheduler() starts. Prints JSON lines with
// "system":"freertos" (shared/BENCH.md). Built and run by
// bench/peers/freertos/run; see README.md.
#include <weft_port/board/fpgaio.hpp>

#include "freertos_bench.hpp"

namespace {

using namespace freertos_bench;
namespace port = weft::port;

// pingpong_rendezvous: FreeRTOS has no rendezvous; this is the standard
// FreeRTOS queue ping-pong, two queues of length 1. The pinger sends i on
// q1 and receives on q2; the ponger receives on q1 and sends it back on q2.
// An op is one round trip (two sends, two receives, two task switches).
StaticQueue_t q1_storage, q2_storage;
std::uint8_t q1_item[sizeof(int)], q2_item[sizeof(int)];
QueueHandle_t q1, q2;
volatile int last_echo = -1;

void pinger(void* arg) {
    const int n = int(reinterpret_cast<std::intptr_t>(arg));
    int v = -1;
    for (int i = 0; i < n; ++i) {
        (void)xQueueSend(q1, &i, portMAX_DELAY);
        (void)xQueueReceive(q2, &v, portMAX_DELAY);
    }
    last_echo = v;
    finish();
}

void ponger(void* arg) {
    const int n = int(reinterpret_cast<std::intptr_t>(arg));
    for (int i = 0; i < n; ++i) {
        int v;
        (void)xQueueReceive(q1, &v, portMAX_DELAY);
        (void)xQueueSend(q2, &v, portMAX_DELAY);
    }
    finish();
}

std::uint64_t pingpong_run(int n) {
    std::uint64_t t0 = port::now_ns();
    spawn(pinger, n);
    spawn(ponger, n);
    join_all();
    std::uint64_t t = port::now_ns() - t0;
    if (n > 0 && last_echo != n - 1) port::fatal("freertos: ping-pong echoed the wrong value");
    return t;
}

// button_to_led: seed 003's button-blinky as a FreeRTOS application writes
// it, the interrupt-driven C of the seed's Table 1. The button ISR samples
// the FPGAIO button register, detects the edge and posts the new level with
// xQueueSendFromISR() (16 entries, as weft's button FIFO and c_superloop's
// ring); the blinky task blocks in xQueueReceive() and sets the FPGAIO LED.
// The interrupt is raised as in isr_to_task (core_bench.cpp): once the task
// has blocked and only idle can run, which is where weft's executor and
// c_superloop take it (around WFI). An op is one edge: task blocks -> idle
// -> IRQ -> sample -> queue -> switch -> task receives -> LED written.
StaticQueue_t edge_storage;
std::uint8_t edge_items[16 * sizeof(bool)];
QueueHandle_t edges;
// QEMU cannot press the button: each IRQ flips the level a finger would
// hold (OR-ed with the register, as weft's button::inject()), so each IRQ is
// an edge, as in weft's and c_superloop's runs.
bool level = false;
bool last_level = false;  // the ISR's edge detector
// Plain, not volatile: the ISR writes it and the bench task reads it only
// after join_all(), whose kernel calls the compiler cannot see through.
unsigned lost = 0;
unsigned led_writes = 0;

void blinky(void* arg) {
    const int n = int(reinterpret_cast<std::intptr_t>(arg));
    for (int i = 0; i < n; ++i) {
        raise_irq_when_idle = true;
        bool on;
        (void)xQueueReceive(edges, &on, portMAX_DELAY);
        // The register is shared with the other LED: its read-modify-write
        // must not interleave with an interrupt that drives it.
        taskENTER_CRITICAL();
        auto& r = weft::board::fpgaio::leds();
        r = on ? (r | 1u) : (r & ~1u);
        taskEXIT_CRITICAL();
        ++led_writes;
    }
    finish();
}

std::uint64_t button_led_run(int n) {
    const unsigned before = led_writes;
    std::uint64_t t0 = port::now_ns();
    spawn(blinky, n);
    join_all();
    std::uint64_t t = port::now_ns() - t0;
    if (lost != 0) port::fatal("freertos: button_to_led lost an edge");
    if (led_writes - before != unsigned(n)) port::fatal("freertos: button_to_led: an edge did not reach the LED");
    return t;
}

}  // namespace

// The button's sampling ISR: the work of weft's button::sample() and of
// c_superloop's handler, then the FreeRTOS hand-off.
extern "C" void weft_irq_handler_31() {
    level = !level;
    const bool now = (weft::board::fpgaio::buttons() & 1u) != 0 || level;
    if (now == last_level) return;
    last_level = now;
    BaseType_t woken = pdFALSE;
    if (xQueueSendFromISR(edges, &now, &woken) != pdPASS) ++lost;
    portYIELD_FROM_ISR(woken);
}

void freertos_bench::run_all() {
    int n = 20000;
    // No heap at all (configSUPPORT_DYNAMIC_ALLOCATION 0, checked after
    // linking): the same claim as weft's lines of this suite.
    report("target-csp", "pingpong_rendezvous", pingpong_run, n, 1, ",\"allocations\":0");
    report("target-csp", "button_to_led", button_led_run, n, 1, ",\"allocations\":0");
}

int main() {
    q1 = xQueueCreateStatic(1, sizeof(int), q1_item, &q1_storage);
    q2 = xQueueCreateStatic(1, sizeof(int), q2_item, &q2_storage);
    edges = xQueueCreateStatic(16, sizeof(bool), edge_items, &edge_storage);
    if (!q1 || !q2 || !edges) port::fatal("freertos: xQueueCreateStatic failed");
    // Below configMAX_SYSCALL_INTERRUPT_PRIORITY, as ...FromISR() requires.
    mps2::set_irq_priority(mps2::soft_irq0, configKERNEL_INTERRUPT_PRIORITY);
    mps2::enable_irq(mps2::soft_irq0);
    start();
}
