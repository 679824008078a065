# SPDX-License-Identifier: Apache-2.0
# Toolchain file for the Cortex-M port: Debian's gcc-arm-none-eabi + newlib
# (nano), bare metal, no vendor SDK. The board (cache variable WEFT_BOARD,
# mps2-board.cmake) selects the core and the floating-point ABI.
include(${CMAKE_CURRENT_LIST_DIR}/mps2-board.cmake)

set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_CXX_COMPILER arm-none-eabi-g++)
set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)

set(WEFT_COMMON_FLAGS "${WEFT_CPU_FLAGS} -ffunction-sections -fdata-sections")
set(CMAKE_C_FLAGS_INIT "${WEFT_COMMON_FLAGS}")
set(CMAKE_ASM_FLAGS_INIT "${WEFT_CPU_FLAGS}")
set(CMAKE_CXX_FLAGS_INIT "${WEFT_COMMON_FLAGS} ${WEFT_BOARD_CXX_FLAGS}")
set(CMAKE_EXE_LINKER_FLAGS_INIT "${WEFT_BOARD_LINK_FLAGS}")
