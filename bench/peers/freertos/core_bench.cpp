// SPDX-License-Identifier: Apache-2.0
// FreeRTOS peer of bench/target/core_bench.cpp (suite target-core): the same
// workloads with the same op definitions, on the same board and harness,
// run through the scheduler vTaskStartScheduler() starts. Prints JSON lines
// with "system":"freertos" (shared/BENCH.md). Built and run by
// bench/peers/freertos/run; see README.md.
#include "freertos_bench.hpp"

namespace {

using namespace freertos_bench;
namespace port = weft::port;

// yield_roundtrip: two tasks at one priority call taskYIELD() in a loop; an
// op is one switch (one taskYIELD() that runs the other task).
void yielder(void* arg) {
    const int n = int(reinterpret_cast<std::intptr_t>(arg));
    for (int i = 0; i < n; ++i) taskYIELD();
    finish();
}

std::uint64_t yield_run(int n) {
    std::uint64_t t0 = port::now_ns();
    spawn(yielder, n);
    spawn(yielder, n);
    join_all();
    return port::now_ns() - t0;
}

// isr_to_task: a task blocks in ulTaskNotifyTake(); the interrupt gives it
// the notification with vTaskNotifyGiveFromISR() and portYIELD_FROM_ISR().
// As in weft's version the interrupt is raised only once the system has
// nothing else to run (weft: the idle executor unmasks it around WFI; here:
// the idle task's hook pends it). An op is one full cycle: task blocks ->
// idle -> raise -> handler -> give -> switch -> task running -> blocks again.
TaskHandle_t isr_waiter_task = nullptr;

void isr_waiter(void* arg) {
    const int n = int(reinterpret_cast<std::intptr_t>(arg));
    for (int i = 0; i < n; ++i) {
        raise_irq_when_idle = true;
        (void)ulTaskNotifyTake(pdTRUE, portMAX_DELAY);
    }
    finish();
}

std::uint64_t isr_run(int n) {
    std::uint64_t t0 = port::now_ns();
    spawn(isr_waiter, n);
    isr_waiter_task = workers[0];
    join_all();
    isr_waiter_task = nullptr;
    return port::now_ns() - t0;
}

}  // namespace

extern "C" void weft_irq_handler_31() {
    BaseType_t woken = pdFALSE;
    if (isr_waiter_task) vTaskNotifyGiveFromISR(isr_waiter_task, &woken);
    portYIELD_FROM_ISR(woken);
}

void freertos_bench::run_all() {
    int n = 20000;
    report("target-core", "yield_roundtrip", yield_run, n, 2);
    report("target-core", "isr_to_task", isr_run, n, 1);
}

int main() {
    // Below configMAX_SYSCALL_INTERRUPT_PRIORITY, as ...FromISR() requires.
    mps2::set_irq_priority(mps2::soft_irq0, configKERNEL_INTERRUPT_PRIORITY);
    mps2::enable_irq(mps2::soft_irq0);
    start();
}
