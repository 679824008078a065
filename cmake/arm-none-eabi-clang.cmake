# SPDX-License-Identifier: Apache-2.0
# Toolchain file for the Cortex-M port compiled by Clang (Debian clang 14)
# instead of arm-none-eabi-gcc: the same boards, newlib, start-up and
# linker script. Clang compiles; GCC's driver links, since Debian's clang
# has no bare-metal runtime (compiler-rt builtins) for Arm and newlib's
# multilibs are laid out for GCC. What for: the instruction counts and
# sizes depend on the compiler's coroutine lowering (docs/port-cortex-m.md,
# "Clang on the board"), and a second compiler keeps the port honest.
#
# The headers are GCC's own (libstdc++ and newlib for the board's
# multilib), asked from arm-none-eabi-g++ so that a Debian update of its
# version needs no edit here.
include(${CMAKE_CURRENT_LIST_DIR}/mps2-board.cmake)

set(CMAKE_C_COMPILER clang)
set(CMAKE_CXX_COMPILER clang++)
set(CMAKE_ASM_COMPILER clang)
set(CMAKE_C_COMPILER_TARGET ${WEFT_CLANG_TARGET})
set(CMAKE_CXX_COMPILER_TARGET ${WEFT_CLANG_TARGET})
set(CMAKE_ASM_COMPILER_TARGET ${WEFT_CLANG_TARGET})

# GCC's include search list for this multilib, in its order.
separate_arguments(weft_cpu_list UNIX_COMMAND "${WEFT_CPU_FLAGS}")
execute_process(COMMAND arm-none-eabi-g++ ${weft_cpu_list} -E -x c++ /dev/null -v
    OUTPUT_QUIET ERROR_VARIABLE weft_gcc_v RESULT_VARIABLE weft_gcc_rc)
if(NOT weft_gcc_rc EQUAL 0)
    message(FATAL_ERROR "arm-none-eabi-g++ is needed for the headers and the link: ${weft_gcc_v}")
endif()
string(REGEX MATCH "#include <...> search starts here:\n(.*)\nEnd of search list" _ "${weft_gcc_v}")
string(REPLACE "\n" ";" weft_gcc_dirs "${CMAKE_MATCH_1}")
set(weft_isystem "")
foreach(dir IN LISTS weft_gcc_dirs)
    string(STRIP "${dir}" dir)
    get_filename_component(dir "${dir}" REALPATH)
    string(APPEND weft_isystem " -isystem ${dir}")
endforeach()

# -fshort-enums: arm-none-eabi's ABI as GCC and newlib use it (the linker
# warns about every object that differs). -fomit-frame-pointer: Clang
# keeps r7 as a frame pointer on Arm even at -Os.
set(WEFT_COMMON_FLAGS "${WEFT_CPU_FLAGS} -fshort-enums -fomit-frame-pointer -ffunction-sections -fdata-sections -nostdinc${weft_isystem}")
set(CMAKE_C_FLAGS_INIT "${WEFT_COMMON_FLAGS}")
set(CMAKE_ASM_FLAGS_INIT "${WEFT_CPU_FLAGS}")
set(CMAKE_CXX_FLAGS_INIT "${WEFT_COMMON_FLAGS} ${WEFT_BOARD_CXX_FLAGS}")
# -z noexecstack: Clang's objects carry a .note.GNU-stack and newlib's do
# not, which the linker reports for each of them; there is no such thing
# as an executable stack here (the linker script discards the note).
set(CMAKE_EXE_LINKER_FLAGS_INIT "${WEFT_BOARD_LINK_FLAGS} -Wl,-z,noexecstack")
# GCC's driver links (it knows newlib's multilibs and libgcc); the link
# line carries linker flags only, not Clang's compile flags.
set(CMAKE_CXX_LINK_EXECUTABLE "arm-none-eabi-g++ <CMAKE_CXX_LINK_FLAGS> <LINK_FLAGS> <OBJECTS> -o <TARGET> <LINK_LIBRARIES>")
set(CMAKE_C_LINK_EXECUTABLE "arm-none-eabi-gcc <CMAKE_C_LINK_FLAGS> <LINK_FLAGS> <OBJECTS> -o <TARGET> <LINK_LIBRARIES>")
