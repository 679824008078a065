# SPDX-License-Identifier: Apache-2.0
# cmake -DSOURCE=<weft> -DWORK=dir -DPROJECT=<this>/board_project -DBOARD=... [-DTOOLCHAIN=file] -P board_project.cmake
# Configures, builds and tests a board product that adds weft with
# add_subdirectory: weft_target_executable must work from the product's own
# folder, give NAME.elf, and leave weft's own tests out of the product.
# TOOLCHAIN: the calling build's own (GCC's, or Clang's for cortex-m4-clang).
if(NOT TOOLCHAIN)
    set(TOOLCHAIN ${SOURCE}/cmake/arm-none-eabi.cmake)
endif()
file(REMOVE_RECURSE ${WORK})
execute_process(COMMAND ${CMAKE_COMMAND} -S ${PROJECT} -B ${WORK} -G Ninja -DWEFT_SOURCE=${SOURCE}
                        -DCMAKE_TOOLCHAIN_FILE=${TOOLCHAIN}
                        -DWEFT_BOARD=${BOARD} -DCMAKE_BUILD_TYPE=MinSizeRel
                COMMAND_ERROR_IS_FATAL ANY OUTPUT_QUIET)
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK} COMMAND_ERROR_IS_FATAL ANY)
if(NOT EXISTS ${WORK}/product.elf)
    message(FATAL_ERROR "weft_target_executable(product) made no product.elf")
endif()
execute_process(COMMAND ctest --test-dir ${WORK} --output-on-failure
                OUTPUT_VARIABLE out RESULT_VARIABLE rc)
message("${out}")
if(NOT rc EQUAL 0 OR NOT out MATCHES "1 tests passed|tests passed, 0 tests failed out of 1\n")
    message(FATAL_ERROR "the product's ctest should run its one test, and pass")
endif()

# Builds `target`, which must be refused; sets `said` (the output with its
# whitespace flattened: CMake wraps messages at a width, so where its lines
# break depends on the build directory's path) and `raw` in the caller.
function(build_refused target)
    execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK} --target ${target}
                    OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
    if(rc EQUAL 0)
        message(FATAL_ERROR "${target} built, but it should have been refused:\n${out}${err}")
    endif()
    string(REGEX REPLACE "[ \t\r\n]+" " " flat "${out}${err}")
    set(said "${flat}" PARENT_SCOPE)
    set(raw "${out}${err}" PARENT_SCOPE)
endfunction()

# A firmware that links malloc does not survive its build: the post-link
# check fails it, names the symbols and the map file, and deletes the .elf.
build_refused(heap_product)
if(NOT "${said}" MATCHES "links forbidden runtime symbols: malloc"
   OR NOT "${said}" MATCHES "grep -F -B1 '\\(malloc\\)'" OR NOT "${said}" MATCHES "heap_product\\.map")
    message(FATAL_ERROR "a firmware that calls malloc: its error does not name malloc and the map:\n${raw}")
endif()
if(EXISTS ${WORK}/heap_product.elf)
    message(FATAL_ERROR "the refused firmware heap_product.elf was left behind")
endif()
# One that calls `new`: the hint traces operator new (the product's own
# reference), not the malloc that libstdc++'s new_op.o pulls in.
build_refused(new_product)
if(NOT "${said}" MATCHES "--trace-symbol=_Znwj "
   OR NOT "${said}" MATCHES "grep -F -B1 '\\(operator new\\(unsigned int\\)\\)'")
    message(FATAL_ERROR "a firmware that calls new: its hint does not trace operator new:\n${raw}")
endif()
# One that calls the aligned nothrow new[]: the hint traces that operator
# (it listed only some forms of new, and traced the aligned operator new
# that libstdc++'s new_opvant.o calls, naming the library's file).
build_refused(aligned_new_product)
if(NOT "${said}" MATCHES "--trace-symbol=_ZnajSt11align_val_tRKSt9nothrow_t "
   OR NOT "${said}" MATCHES "grep -F -B1 '\\(operator new\\[\\]\\(unsigned int, std::align_val_t, std::nothrow_t const&\\)\\)'")
    message(FATAL_ERROR "a firmware that calls the aligned nothrow new[]: its hint does not trace it:\n${raw}")
endif()
# One whose RAM overflows through a section mps2.ld does not name: the
# link fails and names it (ld placed it past the RAM check, over the stack).
build_refused(orphan_product)
if(NOT "${raw}" MATCHES "orphan section `\\.noinit'")
    message(FATAL_ERROR "a firmware with an unplaced .noinit section: its error does not name it:\n${raw}")
endif()
