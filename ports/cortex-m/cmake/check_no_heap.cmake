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
    memalign _memalign_r aligned_alloc posix_memalign
    __cxa_allocate_exception __cxa_throw __cxa_begin_catch __cxa_end_catch __cxa_rethrow
    __gxx_personality_v0 _Unwind_Resume __cxa_guard_acquire)
# Every global operator new (32-bit size_t: j), mangled and demangled as the
# map file prints it. Ordered so that each comes before the ones libstdc++
# implements it with (new[] calls new, a nothrow form its throwing form, an
# aligned array form the aligned new): the first one found is then the one
# the product's own code references, not a library file's reference.
set(operator_new
    "_ZnajSt11align_val_tRKSt9nothrow_t=operator new[](unsigned int, std::align_val_t, std::nothrow_t const&)"
    "_ZnwjSt11align_val_tRKSt9nothrow_t=operator new(unsigned int, std::align_val_t, std::nothrow_t const&)"
    "_ZnajSt11align_val_t=operator new[](unsigned int, std::align_val_t)"
    "_ZnwjSt11align_val_t=operator new(unsigned int, std::align_val_t)"
    "_ZnajRKSt9nothrow_t=operator new[](unsigned int, std::nothrow_t const&)"
    "_ZnwjRKSt9nothrow_t=operator new(unsigned int, std::nothrow_t const&)"
    "_Znaj=operator new[](unsigned int)"
    "_Znwj=operator new(unsigned int)")
set(new_symbols "")
foreach(entry IN LISTS operator_new)
    string(REGEX REPLACE "=.*" "" s "${entry}")
    list(APPEND new_symbols ${s})
endforeach()
list(APPEND forbidden ${new_symbols})
set(found "")
foreach(s IN LISTS forbidden)
    if(syms MATCHES "[ \n][TtWw] ${s}\n")
        list(APPEND found ${s})
    endif()
endforeach()
if(found)
    file(REMOVE ${ELF})
    # The symbol to trace: the one the product's own code is likely to
    # reference. malloc is usually pulled in by libstdc++'s operator new
    # (new_op.o), which `new`, std::string, std::vector and std::function
    # call: tracing malloc would name the library, not the product's file.
    set(first "")
    foreach(s IN LISTS new_symbols ITEMS __cxa_throw __cxa_allocate_exception __cxa_guard_acquire)
        list(FIND found ${s} at)
        if(NOT first AND at GREATER -1)
            set(first ${s})
        endif()
    endforeach()
    if(NOT first)
        list(GET found 0 first)
    endif()
    # The map file is demangled.
    set(in_map "${first})")
    foreach(entry IN LISTS operator_new)
        if(entry MATCHES "^${first}=(.*)$")
            set(in_map "${CMAKE_MATCH_1})")
        endif()
    endforeach()
    list(JOIN found ", " found)
    string(REGEX REPLACE "\\.elf$" ".map" map "${ELF}")
    message(FATAL_ERROR "weft: ${ELF} links forbidden runtime symbols: ${found}\n"
        "No heap and no exceptions on the board (coroutine frames come from "
        "frame pools; new, std::string, std::vector, std::function, printf and throw need the heap). "
        "To find the object that references it, link with -Wl,--trace-symbol=${first} "
        "(target_link_options), or: grep -F -B1 '(${in_map}' ${map}")
endif()
