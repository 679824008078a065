# SPDX-License-Identifier: Apache-2.0
# The board part of both Cortex-M toolchain files (arm-none-eabi.cmake,
# arm-none-eabi-clang.cmake): the QEMU board (cache variable WEFT_BOARD)
# selects the core, the floating-point ABI and Clang's target triple.
#   mps2-an386 (default)  Cortex-M4, hard float (fpv4-sp-d16)
#   mps2-an385            Cortex-M3, soft float
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)

set(WEFT_BOARD "mps2-an386" CACHE STRING "QEMU board: mps2-an386 (Cortex-M4) or mps2-an385 (Cortex-M3)")
set(WEFT_PORT "cortex-m" CACHE STRING "platform port folder under ports/")
# try_compile projects re-read the toolchain file; hand them the board.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES WEFT_BOARD)

if(WEFT_BOARD STREQUAL "mps2-an386")
    set(WEFT_CPU_FLAGS "-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16")
    set(WEFT_CLANG_TARGET thumbv7em-none-eabihf)
elseif(WEFT_BOARD STREQUAL "mps2-an385")
    set(WEFT_CPU_FLAGS "-mcpu=cortex-m3 -mthumb -mfloat-abi=soft")
    set(WEFT_CLANG_TARGET thumbv7m-none-eabi)
else()
    message(FATAL_ERROR "WEFT_BOARD '${WEFT_BOARD}' is not supported: use mps2-an386 or mps2-an385")
endif()

# Flags both compilers take. Single core, no threads: function-local
# statics need no guard (and so no __cxa_guard_*); destructors of globals
# are never run (firmware does not return from main to a host), see
# ports/cortex-m/src/startup.cpp. GCC's driver links in both builds.
set(WEFT_BOARD_CXX_FLAGS "-fno-exceptions -fno-rtti -fno-threadsafe-statics -fno-unwind-tables -fno-asynchronous-unwind-tables")
set(WEFT_BOARD_LINK_FLAGS "${WEFT_CPU_FLAGS} --specs=nano.specs -nostartfiles -Wl,--gc-sections")

set(CMAKE_OBJCOPY arm-none-eabi-objcopy CACHE FILEPATH "")
set(CMAKE_SIZE arm-none-eabi-size CACHE FILEPATH "")
set(CMAKE_NM arm-none-eabi-nm CACHE FILEPATH "")
# Compiler checks must not try to link a hosted program.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
