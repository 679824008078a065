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
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)

set(WEFT_BOARD "mps2-an386" CACHE STRING "QEMU board: mps2-an386 (Cortex-M4) or mps2-an385 (Cortex-M3)")
set(WEFT_PORT "cortex-m" CACHE STRING "platform port folder under ports/")
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES WEFT_BOARD)

set(CMAKE_C_COMPILER clang)
set(CMAKE_CXX_COMPILER clang++)
set(CMAKE_ASM_COMPILER clang)
set(CMAKE_OBJCOPY arm-none-eabi-objcopy CACHE FILEPATH "")
set(CMAKE_SIZE arm-none-eabi-size CACHE FILEPATH "")
set(CMAKE_NM arm-none-eabi-nm CACHE FILEPATH "")
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

if(WEFT_BOARD STREQUAL "mps2-an386")
    set(weft_clang_target thumbv7em-none-eabihf)
    set(WEFT_CPU_FLAGS "-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16")
elseif(WEFT_BOARD STREQUAL "mps2-an385")
    set(weft_clang_target thumbv7m-none-eabi)
    set(WEFT_CPU_FLAGS "-mcpu=cortex-m3 -mthumb -mfloat-abi=soft")
else()
    message(FATAL_ERROR "WEFT_BOARD '${WEFT_BOARD}' is not supported: use mps2-an386 or mps2-an385")
endif()
set(CMAKE_C_COMPILER_TARGET ${weft_clang_target})
set(CMAKE_CXX_COMPILER_TARGET ${weft_clang_target})
set(CMAKE_ASM_COMPILER_TARGET ${weft_clang_target})

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
set(CMAKE_CXX_FLAGS_INIT "${WEFT_COMMON_FLAGS} -fno-exceptions -fno-rtti -fno-threadsafe-statics -fno-unwind-tables -fno-asynchronous-unwind-tables")
# -z noexecstack: Clang's objects carry a .note.GNU-stack and newlib's do
# not, which the linker reports for each of them; there is no such thing
# as an executable stack here (the linker script discards the note).
set(CMAKE_EXE_LINKER_FLAGS_INIT "${WEFT_CPU_FLAGS} --specs=nano.specs -nostartfiles -Wl,--gc-sections -Wl,-z,noexecstack")
# GCC's driver links (it knows newlib's multilibs and libgcc); the link
# line carries linker flags only, not Clang's compile flags.
set(CMAKE_CXX_LINK_EXECUTABLE "arm-none-eabi-g++ <CMAKE_CXX_LINK_FLAGS> <LINK_FLAGS> <OBJECTS> -o <TARGET> <LINK_LIBRARIES>")
set(CMAKE_C_LINK_EXECUTABLE "arm-none-eabi-gcc <CMAKE_C_LINK_FLAGS> <LINK_FLAGS> <OBJECTS> -o <TARGET> <LINK_LIBRARIES>")

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
