# SPDX-License-Identifier: Apache-2.0
# Post-link check (cmake -P): fails, and deletes the firmware, if it links the
# heap, the exception runtime or the global operator new (weft's firmware
# rule: nothing is allocated after start-up; frames come from frame pools).
#   -DNM=arm-none-eabi-nm -DELF=firmware.elf
execute_process(COMMAND ${NM} --defined-only ${ELF} OUTPUT_VARIABLE syms RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "weft: cannot read symbols of ${ELF}")
endif()
set(forbidden
    malloc free calloc realloc _malloc_r _free_r _calloc_r _realloc_r _sbrk _sbrk_r
    __cxa_allocate_exception __cxa_throw __cxa_begin_catch __cxa_end_catch __cxa_rethrow
    __gxx_personality_v0 _Unwind_Resume __cxa_guard_acquire
    _Znwj _Znaj _ZnwjRKSt9nothrow_t _ZnajRKSt9nothrow_t _ZnwjSt11align_val_t)
set(found "")
foreach(s IN LISTS forbidden)
    if(syms MATCHES "[ \n][TtWw] ${s}\n")
        list(APPEND found ${s})
    endif()
endforeach()
if(found)
    file(REMOVE ${ELF})
    list(GET found 0 first)
    list(JOIN found ", " found)
    string(REGEX REPLACE "\\.elf$" ".map" map "${ELF}")
    message(FATAL_ERROR "weft: ${ELF} links forbidden runtime symbols: ${found}\n"
        "No heap and no exceptions on the board (coroutine frames come from "
        "frame pools; new, std::string, std::vector, printf and throw need the heap). "
        "The map file names the object that pulled each one in: "
        "grep -B1 '(${first})' ${map} (or link with -Wl,--trace-symbol=${first}).")
endif()
