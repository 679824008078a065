// SPDX-License-Identifier: Apache-2.0
// FreeRTOS peer of bench/target/csp_bench.cpp (suite target-csp): the same
// workload with the same op definition, on the same board and harness, run
// through the scheduler vTaskStartScheduler() starts. Prints JSON lines with
// "system":"freertos" (shared/BENCH.md). Built and run by
// bench/peers/freertos/run; see README.md.
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

}  // namespace

void freertos_bench::run_all() {
    int n = 20000;
    // No heap at all (configSUPPORT_DYNAMIC_ALLOCATION 0, checked after
    // linking): the same claim as weft's lines of this suite.
    report("target-csp", "pingpong_rendezvous", pingpong_run, n, 1, ",\"allocations\":0");
}

int main() {
    q1 = xQueueCreateStatic(1, sizeof(int), q1_item, &q1_storage);
    q2 = xQueueCreateStatic(1, sizeof(int), q2_item, &q2_storage);
    if (!q1 || !q2) port::fatal("freertos: xQueueCreateStatic failed");
    start();
}
