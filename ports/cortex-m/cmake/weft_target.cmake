# SPDX-License-Identifier: Apache-2.0
# Helpers for firmware images of the Cortex-M port.
#
#   weft_target_executable(NAME [NO_FAULT_REPORT] src...)
#                                         NAME.elf + NAME.map; fails the build
#                                         if the heap/exception runtime links;
#                                         NO_FAULT_REPORT: faults end with a
#                                         generic line (1.3 KB less flash);
#                                         compiled with -fno-exceptions
#                                         -fno-rtti (and, in weft's own
#                                         tree, -Wall -Wextra -Werror)
#   weft_target_test(NAME [ICOUNT] [TIMEOUT s] [SERIAL_IN file] [SERIAL_EXPECT file]
#                    [EXPECT_EXIT n] [EXPECT_CONSOLE regex])
#
# Both also work in a product that adds weft with add_subdirectory (a
# function body sees its caller's variables, so paths here come from
# CMAKE_CURRENT_FUNCTION_LIST_DIR or the cache, never from this folder's
# variables; tests/consumer/board_project builds such a product).
#                                         runs NAME.elf under QEMU in CTest;
#                                         SERIAL_*: UART0's wire; EXPECT_*: a
#                                         firmware that must fail (see qemu-run)
function(weft_target_executable name)
    cmake_parse_arguments(arg "NO_FAULT_REPORT" "" "" ${ARGN})
    add_executable(${name} ${arg_UNPARSED_ARGUMENTS})
    set_target_properties(${name} PROPERTIES SUFFIX .elf)  # also in a product's folders
    # weft's own firmware (weft the top-level project) builds with its
    # warnings as errors; a product's only with the language flags.
    if(WEFT_BUILD_TESTS)
        target_link_libraries(${name} PRIVATE weft_cortex_m weft weft_flags)
    else()
        target_link_libraries(${name} PRIVATE weft_cortex_m weft weft_language_flags)
    endif()
    if(NOT arg_NO_FAULT_REPORT)
        target_link_libraries(${name} PRIVATE weft_cortex_m_fault_report)
    endif()
    target_link_options(${name} PRIVATE -Wl,-Map=$<TARGET_FILE_DIR:${name}>/${name}.map)
    add_custom_command(TARGET ${name} POST_BUILD
        COMMAND ${CMAKE_COMMAND} -DNM=${CMAKE_NM} -DELF=$<TARGET_FILE:${name}>
                -P ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/check_no_heap.cmake
        VERBATIM)
endfunction()

function(weft_target_test name)
    cmake_parse_arguments(arg "ICOUNT" "TIMEOUT;SERIAL_IN;SERIAL_EXPECT;EXPECT_EXIT;EXPECT_CONSOLE" "" ${ARGN})
    if(NOT arg_TIMEOUT)
        set(arg_TIMEOUT 60)
    endif()
    set(extra "")
    if(arg_ICOUNT)
        set(extra --icount)
    endif()
    if(arg_SERIAL_IN)
        list(APPEND extra --serial-in ${arg_SERIAL_IN})
    endif()
    if(arg_SERIAL_EXPECT)
        list(APPEND extra --serial-expect ${arg_SERIAL_EXPECT})
    endif()
    if(DEFINED arg_EXPECT_EXIT)
        list(APPEND extra --expect-exit ${arg_EXPECT_EXIT})
    endif()
    if(arg_EXPECT_CONSOLE)
        list(APPEND extra --expect-console ${arg_EXPECT_CONSOLE})
    endif()
    add_test(NAME target.${name}
        COMMAND ${WEFT_QEMU_RUN} --board ${WEFT_BOARD} --timeout ${arg_TIMEOUT} ${extra} $<TARGET_FILE:${name}>)
    set_tests_properties(target.${name} PROPERTIES TIMEOUT ${arg_TIMEOUT} LABELS target)
endfunction()
