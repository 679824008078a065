// EXPECT: with_timeout bounds an abortable await or a task<T> \(the task itself
// SPDX-License-Identifier: Apache-2.0
// A task's own awaiter is refused in every build, also where transfers
// are no tail calls and its await_suspend returns a bool (it would then
// be bounded as a leaf wait, with other semantics): bound the task.
#define WEFT_TAIL_CALLS 0
#include <weft/core/task.hpp>
#include <weft/core/timeout.hpp>

weft::task<int> child() { co_return 1; }
weft::task<> parent() {
    (void)co_await weft::with_timeout(child().operator co_await(), std::chrono::milliseconds(1));
}
int main() {}
