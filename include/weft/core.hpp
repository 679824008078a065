// SPDX-License-Identifier: Apache-2.0
#pragma once
// Everything in the core layer. Prefer the single headers in weft/core/ in
// libraries; this one is for applications and examples.
#include <weft/core/cancel.hpp>
#include <weft/core/event.hpp>
#include <weft/core/executor.hpp>
#include <weft/core/frame_pool.hpp>
#include <weft/core/frame_report.hpp>
#include <weft/core/generator.hpp>
#include <weft/core/interrupt_queue.hpp>
#include <weft/core/join_handle.hpp>
#include <weft/core/mutex.hpp>
#include <weft/core/result.hpp>
#include <weft/core/semaphore.hpp>
#include <weft/core/sleep.hpp>
#include <weft/core/split_phase.hpp>
#include <weft/core/task.hpp>
#include <weft/core/time.hpp>
#include <weft/core/timeout.hpp>
#include <weft/core/when_all.hpp>
#include <weft/core/when_any.hpp>
#include <weft/core/yield.hpp>
