// SPDX-License-Identifier: Apache-2.0
#pragma once
#include <weft/core/result.hpp>

namespace weft::detail {

/// Base of every awaiter a task can be blocked in. Cancellation, timeouts
/// and when_any losers all end a wait the same way: by calling abort with
/// the reason, which unlinks the awaiter from whatever it waits on, stores
/// the reason as the await's outcome and makes the task ready again.
/// abort runs on the executor (never from an ISR).
struct wait_node {
    void (*abort)(wait_node* self, errc reason) noexcept = nullptr;
};

}  // namespace weft::detail
