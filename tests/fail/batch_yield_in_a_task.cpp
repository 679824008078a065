// EXPECT: suspend only inside a weft::batch::lane
// SPDX-License-Identifier: Apache-2.0
// A batch policy's yield() awaited in a task: nothing would ever resume it.
#include <weft/batch/prefetch.hpp>
#include <weft/core/task.hpp>

weft::task<> misuse() {
    co_await weft::batch::interleaved::yield();
}

int main() { (void)misuse(); }
