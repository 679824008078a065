# SPDX-License-Identifier: Apache-2.0
# Toolchain file for the Cortex-M port: Debian's gcc-arm-none-eabi + newlib
# (nano), bare metal, no vendor SDK. The board (cache variable WEFT_BOARD)
# selects the core and the floating-point ABI:
#   mps2-an386 (default)  Cortex-M4, hard float (fpv4-sp-d16)
#   mps2-an385            Cortex-M3, soft float
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)

set(WEFT_BOARD "mps2-an386" CACHE STRING "QEMU board: mps2-an386 (Cortex-M4) or mps2-an385 (Cortex-M3)")
set(WEFT_PORT "cortex-m" CACHE STRING "platform port folder under ports/")
# try_compile projects re-read this file; hand them the board.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES WEFT_BOARD)

set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_CXX_COMPILER arm-none-eabi-g++)
set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)
set(CMAKE_OBJCOPY arm-none-eabi-objcopy CACHE FILEPATH "")
set(CMAKE_SIZE arm-none-eabi-size CACHE FILEPATH "")
set(CMAKE_NM arm-none-eabi-nm CACHE FILEPATH "")
# Compiler checks must not try to link a hosted program.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

if(WEFT_BOARD STREQUAL "mps2-an386")
    set(WEFT_CPU_FLAGS "-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16")
elseif(WEFT_BOARD STREQUAL "mps2-an385")
    set(WEFT_CPU_FLAGS "-mcpu=cortex-m3 -mthumb -mfloat-abi=soft")
else()
    message(FATAL_ERROR "WEFT_BOARD '${WEFT_BOARD}' is not supported: use mps2-an386 or mps2-an385")
endif()

set(WEFT_COMMON_FLAGS "${WEFT_CPU_FLAGS} -ffunction-sections -fdata-sections")
set(CMAKE_C_FLAGS_INIT "${WEFT_COMMON_FLAGS}")
set(CMAKE_ASM_FLAGS_INIT "${WEFT_CPU_FLAGS}")
# Single core, no threads: function-local statics need no guard (and so no
# __cxa_guard_*); destructors of globals are never run (firmware does not
# return from main to a host), see ports/cortex-m/src/startup.cpp.
set(CMAKE_CXX_FLAGS_INIT "${WEFT_COMMON_FLAGS} -fno-exceptions -fno-rtti -fno-threadsafe-statics -fno-unwind-tables -fno-asynchronous-unwind-tables")
set(CMAKE_EXE_LINKER_FLAGS_INIT "${WEFT_CPU_FLAGS} --specs=nano.specs -nostartfiles -Wl,--gc-sections")

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)

