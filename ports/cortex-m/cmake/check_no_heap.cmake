# SPDX-License-Identifier: Apache-2.0
# Post-link check (cmake -P): fails, and deletes the firmware, if it links the
# heap, the exception runtime or the global operator new (DESIGN.md rule 1).
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
    list(JOIN found ", " found)
    message(FATAL_ERROR "weft: ${ELF} links forbidden runtime symbols: ${found}\n"
        "No heap, no exceptions on target (shared/DESIGN.md rule 1). "
        "Find who pulls them in with: arm-none-eabi-ld ... -Wl,--trace-symbol=<symbol> "
        "or the map file next to the firmware.")
endif()
