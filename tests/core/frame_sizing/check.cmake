# SPDX-License-Identifier: Apache-2.0
# cmake -DEXE=... -DEXPECT_EXIT=0|nonzero -DEXPECT_REGEX=... -P check.cmake
execute_process(COMMAND ${EXE} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
message("${out}${err}")
if(EXPECT_EXIT STREQUAL "0" AND NOT rc EQUAL 0)
    message(FATAL_ERROR "expected success, exit status ${rc}")
elseif(EXPECT_EXIT STREQUAL "nonzero" AND rc EQUAL 0)
    message(FATAL_ERROR "expected failure, exit status 0")
endif()
if(NOT "${out}${err}" MATCHES "${EXPECT_REGEX}")
    message(FATAL_ERROR "output does not match: ${EXPECT_REGEX}")
endif()
