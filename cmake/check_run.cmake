# SPDX-License-Identifier: Apache-2.0
# cmake [-DRUN="runner;args"] -DEXE=program [-DTOOL="tool;args"] [-DSAME_BYTES="f;g"]
#       -DEXPECT_EXIT=0|nonzero -DEXPECT_REGEX=... -P check_run.cmake
# Runs EXE (through RUN: qemu-run on the board); with TOOL, feeds its output
# to the tool and checks the tool instead. SAME_BYTES: coroutines whose
# report lines must each say created 3 and give the same frame size.
execute_process(COMMAND ${RUN} ${EXE} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(TOOL)
    if(NOT "${out}" MATCHES "\"pool\":")
        message(FATAL_ERROR "the program printed no report:\n${out}${err}")
    endif()
    file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/check_report.log "${out}")
    execute_process(COMMAND ${TOOL} ${CMAKE_CURRENT_BINARY_DIR}/check_report.log
                    OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
endif()
message("${out}${err}")
set(sizes "")
foreach(f ${SAME_BYTES})
    if(NOT "${out}" MATCHES "\"frame\":\"${f}\",\"bytes\":([0-9]+),\"created\":3}")
        message(FATAL_ERROR "no report line for '${f}' with 3 frames created")
    endif()
    list(APPEND sizes ${CMAKE_MATCH_1})
endforeach()
list(REMOVE_DUPLICATES sizes)
list(LENGTH sizes n)
if(n GREATER 1)
    message(FATAL_ERROR "${SAME_BYTES}: frames of one size reported as ${sizes}")
endif()
if(EXPECT_EXIT STREQUAL "0" AND NOT rc EQUAL 0)
    message(FATAL_ERROR "expected success, exit status ${rc}")
elseif(EXPECT_EXIT STREQUAL "nonzero" AND rc EQUAL 0)
    message(FATAL_ERROR "expected failure, exit status 0")
endif()
if(NOT "${out}${err}" MATCHES "${EXPECT_REGEX}")
    message(FATAL_ERROR "output does not match: ${EXPECT_REGEX}")
endif()
