// SPDX-License-Identifier: Apache-2.0
#pragma once
// Whether a symmetric transfer (an await_suspend that returns the handle
// to resume next) is a tail call in this build. The standard asks for it
// to use no stack, but the compiler makes it so only by compiling the
// resumption as a sibling call. Clang 14 marks the call musttail in
// weft's coroutines (its IR shows it; the tests switch millions of times)
// but not in every coroutine type: its coroutine pass adds musttail only
// where it can prove a return follows, and two plain coroutines with a
// suspend_always final suspend switching to each other get none
// (bench/core/bare_runs.cpp). GCC 12 makes it a sibling call only with
// -foptimize-sibling-calls, which -O2 and -Os turn on, -O0, -Og and -O1
// do not, and AddressSanitizer or ThreadSanitizer instrumentation
// defeats. Without it every transfer is a
// nested call: two tasks yielding to each other 100 000 times, or a loop
// that awaits a task which completes without suspending, overflows the
// stack.
//
// Where transfers are not tail calls weft takes another path that does not
// nest (a yield goes through run(); an awaited task runs as a plain call
// and its caller continues without a transfer when it ended at once) and
// keeps symmetric transfer only where the nesting is bounded.
//
// What a header can see: -O0 (no __OPTIMIZE__) and GCC's sanitizers.
// -Og and -O1 look like -O2; weft's CMake target adds
// -foptimize-sibling-calls for GCC so that they are right too. A build
// that does not use it, or turns sibling calls off, defines
// WEFT_TAIL_CALLS=0.
namespace weft::detail {

#if defined(WEFT_TAIL_CALLS)
inline constexpr bool tail_calls = WEFT_TAIL_CALLS != 0;
#elif defined(__clang__)
inline constexpr bool tail_calls = true;
#elif !defined(__OPTIMIZE__) || defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool tail_calls = false;
#else
inline constexpr bool tail_calls = true;
#endif

}  // namespace weft::detail
