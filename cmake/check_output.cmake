# SPDX-License-Identifier: Apache-2.0
# Runs EXE and fails unless it exits with 0 and prints exactly EXPECTED.
execute_process(COMMAND ${EXE} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
file(READ ${EXPECTED} expected)
if(NOT rc EQUAL 0 OR NOT out STREQUAL expected)
    message(FATAL_ERROR "exit code ${rc}\n--- expected\n${expected}--- got\n${out}${err}")
endif()
