/* SPDX-License-Identifier: Apache-2.0 */
/* FreeRTOS configuration of the FreeRTOS board peer (bench/peers/freertos):
 * Cortex-M4F on QEMU's mps2-an386, the kernel as a benchmark measures it.
 * What differs from the usual demo configuration, and why, is in README.md:
 * static allocation only (no heap), configASSERT off, optimised task
 * selection, no timers/mutexes/trace, a slow tick, and the port's three
 * handlers renamed to the names weft's vector table uses. */
#ifndef FREERTOS_CONFIG_H
#define FREERTOS_CONFIG_H

/* mps2-an386: the CPU and SysTick run at 25 MHz (FPGA SYSCLK). */
#define configCPU_CLOCK_HZ                      ( 25000000UL )
/* A slow tick, so the periodic interrupt stays out of the measured runs: one
 * SysTick every 100 ms = 100 M instructions under -icount shift=0 (the whole
 * benchmark runs ~0.1-1 s of virtual time). Must be >= 2 Hz: SysTick's
 * reload register has 24 bits (25 MHz / 10 Hz - 1 = 2 499 999 fits). */
#define configTICK_RATE_HZ                      ( ( TickType_t ) 10 )

#define configUSE_PREEMPTION                    1
#define configUSE_TIME_SLICING                  1
#define configUSE_PORT_OPTIMISED_TASK_SELECTION 1   /* CLZ-based, Cortex-M4 */
#define configUSE_TICKLESS_IDLE                 0
#define configIDLE_SHOULD_YIELD                 1
#define configMAX_PRIORITIES                    4
#define configMINIMAL_STACK_SIZE                ( ( uint16_t ) 128 )   /* words: the idle task */
#define configMAX_TASK_NAME_LEN                 8
#define configUSE_16_BIT_TICKS                  0
#define configUSE_TASK_NOTIFICATIONS            1

/* No heap: every task, stack and queue is the application's static storage. */
#define configSUPPORT_STATIC_ALLOCATION         1
#define configSUPPORT_DYNAMIC_ALLOCATION        0

/* The idle hook raises the software interrupt of isr_to_task (core_bench.cpp)
 * and button_to_led (csp_bench.cpp). */
#define configUSE_IDLE_HOOK                     1
#define configUSE_TICK_HOOK                     0
#define configUSE_MALLOC_FAILED_HOOK            0
#define configCHECK_FOR_STACK_OVERFLOW          0

/* Only what the benchmarks use. */
#define configUSE_MUTEXES                       0
#define configUSE_RECURSIVE_MUTEXES             0
#define configUSE_COUNTING_SEMAPHORES           0
#define configUSE_QUEUE_SETS                    0
#define configQUEUE_REGISTRY_SIZE               0
#define configUSE_TIMERS                        0
#define configUSE_CO_ROUTINES                   0
#define configUSE_TRACE_FACILITY                0
#define configUSE_STATS_FORMATTING_FUNCTIONS    0
#define configGENERATE_RUN_TIME_STATS           0
#define configUSE_NEWLIB_REENTRANT              0
#define configUSE_APPLICATION_TASK_TAG          0

#define INCLUDE_vTaskDelete                     1
#define INCLUDE_vTaskSuspend                    1
#define INCLUDE_vTaskPrioritySet                0
#define INCLUDE_uxTaskPriorityGet               0
#define INCLUDE_vTaskDelayUntil                 0
#define INCLUDE_vTaskDelay                      0
#define INCLUDE_xTaskGetSchedulerState          0
#define INCLUDE_uxTaskGetStackHighWaterMark     0
#define INCLUDE_eTaskGetState                   0
#define INCLUDE_xTaskGetIdleTaskHandle          0

/* Interrupt priorities. QEMU 7.2's NVIC model keeps all 8 priority bits
 * (checked: with configASSERT on, xPortStartScheduler()'s count of the
 * implemented bits passes with 8; the CMSDK silicon has 3). PendSV and
 * SysTick run at the lowest priority (0xFF); interrupts that call
 * ...FromISR() functions must be numerically >= 0xA0 (BASEPRI masks them in
 * critical sections): the benchmark's IRQ 31 runs at 0xFF. weft's clock-wrap
 * interrupt (IRQ 8, priority 0) calls no FreeRTOS function. */
#define configPRIO_BITS                              8
#define configLIBRARY_LOWEST_INTERRUPT_PRIORITY      0xFF
#define configLIBRARY_MAX_SYSCALL_INTERRUPT_PRIORITY 0xA0
#define configKERNEL_INTERRUPT_PRIORITY      ( configLIBRARY_LOWEST_INTERRUPT_PRIORITY << ( 8 - configPRIO_BITS ) )
#define configMAX_SYSCALL_INTERRUPT_PRIORITY ( configLIBRARY_MAX_SYSCALL_INTERRUPT_PRIORITY << ( 8 - configPRIO_BITS ) )

/* configASSERT is left undefined: the instruction counts are those of the
 * kernel without its debug checks, as FreeRTOS performance figures are
 * usually taken (with the demos' configASSERT the counts rise by 5-13 %,
 * see README.md). */

/* The port's exception handlers under the names weft's vector table
 * (ports/cortex-m/src/startup.cpp) declares weak: these strong definitions
 * replace them, with no wrapper in between. */
#define vPortSVCHandler     weft_svc_handler
#define xPortPendSVHandler  weft_pendsv_handler
#define xPortSysTickHandler weft_systick_handler

#endif /* FREERTOS_CONFIG_H */
