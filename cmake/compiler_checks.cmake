# SPDX-License-Identifier: Apache-2.0
# Known compiler bugs that silently break coroutine code: warn at configure
# time, where a user sees it before hunting a task that never runs
# (docs/core.md, "Compiler bugs"). Host GCC: the probe is compiled and run.
# A cross GCC cannot run it here: its version decides.
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    return()
endif()
set(weft_coroutine_condition_bug OFF)
if(CMAKE_CROSSCOMPILING)
    if(CMAKE_CXX_COMPILER_VERSION VERSION_GREATER_EQUAL 12 AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
        set(weft_coroutine_condition_bug ON)
    endif()
else()
    try_run(probe_ran probe_built
        SOURCES ${CMAKE_CURRENT_LIST_DIR}/gcc_coroutine_probe.cpp
        CXX_STANDARD 20 CXX_STANDARD_REQUIRED ON
        COMPILE_OUTPUT_VARIABLE probe_log)
    if(probe_built AND NOT probe_ran EQUAL 0)
        set(weft_coroutine_condition_bug ON)
    endif()
endif()
if(weft_coroutine_condition_bug)
    message(WARNING "weft: ${CMAKE_CXX_COMPILER} (GCC ${CMAKE_CXX_COMPILER_VERSION}) miscompiles a co_await "
        "in the condition of an if/while/switch in a coroutine that declares no local variable "
        "(the task never runs, or crashes): write `auto ok = co_await x; if (!ok) ...` instead. "
        "It also starts both operations of `c ? co_await a : co_await b`. See weft's docs/core.md, \"Compiler bugs\".")
endif()
