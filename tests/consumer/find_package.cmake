# SPDX-License-Identifier: Apache-2.0
file(REMOVE_RECURSE ${WORK})
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE} -B ${WORK}/weft-build -G Ninja
                        -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_INSTALL_PREFIX=${WORK}/prefix
                        -DWEFT_TEST_LAYERS= -DWEFT_INSTALL_ONLY=ON
                COMMAND_ERROR_IS_FATAL ANY OUTPUT_QUIET)
execute_process(COMMAND ${CMAKE_COMMAND} --install ${WORK}/weft-build COMMAND_ERROR_IS_FATAL ANY OUTPUT_QUIET)
execute_process(COMMAND ${CMAKE_COMMAND} -S ${CONSUMER} -B ${WORK}/consumer-build -G Ninja
                        -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_PREFIX_PATH=${WORK}/prefix
                COMMAND_ERROR_IS_FATAL ANY OUTPUT_QUIET)
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK}/consumer-build COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND ${WORK}/consumer-build/consumer RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "consumer program failed: ${rc}")
endif()
