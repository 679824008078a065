// SPDX-License-Identifier: Apache-2.0
#pragma once
// Shared by the FreeRTOS board peer's benchmarks (core_bench.cpp,
// csp_bench.cpp): the FreeRTOS kernel on weft's board start-up
// (ports/cortex-m/src/startup.cpp: reset, vector table, clock, semihosting)
// and weft's instruction-count harness (bench/target/instr_report.hpp), so
// both systems are counted the same way on the same board.
//
// Every run happens inside the scheduler: main() creates one "bench" task
// and calls vTaskStartScheduler(); the bench task times each workload with
// bench_target::measure(), which runs it at N and at 0 operations and
// divides the difference by the extra operations. One run creates its
// worker tasks (static storage), waits until each has signalled that it is
// done, and deletes them: that set-up and tear-down is the same at N and at
// 0 and so cancels, exactly as weft's executor set-up does.
extern "C" {
#include "FreeRTOS.h"
#include "queue.h"
#include "task.h"
}

#include <weft_port/mps2.hpp>

#include "instr_report.hpp"

#ifndef FREERTOS_KERNEL_VERSION  // from the sources' headers (CMakeLists.txt)
#define FREERTOS_KERNEL_VERSION tskKERNEL_VERSION_NUMBER
#endif

namespace freertos_bench {

namespace mps2 = weft::port::mps2;

// Priorities: the bench task above the workers, the workers above idle.
inline constexpr UBaseType_t worker_priority = tskIDLE_PRIORITY + 1;
inline constexpr UBaseType_t bench_priority = tskIDLE_PRIORITY + 2;

inline constexpr int max_workers = 2;
inline constexpr configSTACK_DEPTH_TYPE worker_stack_words = 256;

inline StaticTask_t worker_tcb[max_workers];
inline StackType_t worker_stack[max_workers][worker_stack_words];
inline TaskHandle_t workers[max_workers];
inline int worker_count = 0;
inline TaskHandle_t bench_task = nullptr;

/// Creates worker i (0-based, in order) running `body(n)`.
inline void spawn(TaskFunction_t body, int n) {
    int i = worker_count++;
    workers[i] = xTaskCreateStatic(body, "worker", worker_stack_words, reinterpret_cast<void*>(n),
                                   worker_priority, worker_stack[i], &worker_tcb[i]);
    if (!workers[i]) weft::port::fatal("freertos: xTaskCreateStatic failed");
}

/// A worker's last act: tell the bench task, then stay out of the way
/// until it is deleted.
[[noreturn]] inline void finish() {
    xTaskNotifyGive(bench_task);
    for (;;) vTaskSuspend(nullptr);
}

/// Blocks the bench task until every spawned worker has finished, then
/// deletes them (static storage: nothing is freed, nothing is left).
inline void join_all() {
    for (UBaseType_t done = 0; done < UBaseType_t(worker_count);) done += ulTaskNotifyTake(pdTRUE, portMAX_DELAY);
    for (int i = 0; i < worker_count; ++i) vTaskDelete(workers[i]);
    worker_count = 0;
}

/// The benchmarks' body, defined by each program; runs in the bench task.
void run_all();

inline StaticTask_t bench_tcb;
inline StackType_t bench_stack[1024];

inline void bench_main(void*) {
    run_all();
    weft::port::cortex_m::exit(0);
}

/// Starts the scheduler with the bench task; never returns.
[[noreturn]] inline void start() {
    bench_task = xTaskCreateStatic(bench_main, "bench", sizeof bench_stack / sizeof bench_stack[0], nullptr,
                                   bench_priority, bench_stack, &bench_tcb);
    vTaskStartScheduler();
    weft::port::fatal("freertos: vTaskStartScheduler returned");
}

/// Set by a task about to block: the idle task raises the software
/// interrupt (mps2::soft_irq0) the next time it runs, i.e. once nothing else
/// can run, as weft's executor takes the interrupt around its WFI.
inline volatile bool raise_irq_when_idle = false;

/// One JSON line, system "freertos"; the extra fields are `fields` (as
/// weft's lines of the suite carry them) then the kernel and the tick rate
/// (one SysTick per 10^9 / tick_hz instructions, so at most a tick or two
/// fall in a whole firmware run).
inline void report(const char* suite, const char* workload, std::uint64_t (*run)(int), int n, int ops_per_n,
                   const char* fields = "") {
    static char extra[96];
    std::snprintf(extra, sizeof extra, "%s,\"kernel\":\"FreeRTOS %s\",\"tick_hz\":%u", fields,
                  FREERTOS_KERNEL_VERSION, unsigned(configTICK_RATE_HZ));
    bench_target::measure(suite, workload, run, n, ops_per_n, extra, "freertos");
}

}  // namespace freertos_bench

// Defined here, not inline: this header is included by exactly one source
// file per firmware, and the kernel (C) calls these.
extern "C" void vApplicationIdleHook() {
    if (freertos_bench::raise_irq_when_idle) {
        freertos_bench::raise_irq_when_idle = false;
        freertos_bench::mps2::pend_irq(freertos_bench::mps2::soft_irq0);
    }
}

// Static allocation: the idle task's storage is the application's.
extern "C" void vApplicationGetIdleTaskMemory(StaticTask_t** tcb, StackType_t** stack, uint32_t* words) {
    static StaticTask_t idle_tcb;
    static StackType_t idle_stack[configMINIMAL_STACK_SIZE];
    *tcb = &idle_tcb;
    *stack = idle_stack;
    *words = configMINIMAL_STACK_SIZE;
}
