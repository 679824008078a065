# SPDX-License-Identifier: Apache-2.0
# cmake -DCXX=... -DINCLUDE=<weft>/include -DPORT=<this>/new_port -P new_port.cmake
# A port that leaves out one piece of weft/port/port.hpp's interface must
# fail to compile with, as its first error, the static_assert that names the
# piece (not "'now_ns' was not declared" somewhere in the core).
set(flags -std=c++20 -fno-exceptions -fno-rtti -fsyntax-only -I${PORT} -I${INCLUDE})
execute_process(COMMAND ${CXX} ${flags} ${PORT}/main.cpp RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the whole port does not compile:\n${err}")
endif()
# piece dropped -> what the first error must say
set(cases
    "small_code|must provide `inline constexpr bool weft::port::small_code`"
    "single_core|must provide `inline constexpr bool weft::port::single_core`"
    "now_ns|must provide std::uint64_t weft::port::now_ns\\(\\) noexcept"
    "waker|must provide a default-constructible class weft::port::waker"
    "waker_wait|must provide a default-constructible class weft::port::waker with noexcept wait_until\\(std::uint64_t\\), wait\\(ready\\)"
    "critical_section|must provide a default-constructible RAII weft::port::critical_section"
    "fatal|must provide \\[\\[noreturn\\]\\] void weft::port::fatal\\(const char\\*\\) noexcept"
    "console_write|must provide void weft::port::console_write\\(const char\\*, std::size_t\\) noexcept"
    "target_name|must provide const char\\* weft::port::target_name\\(\\) noexcept"
    "in_handler|must provide bool weft::port::in_handler\\(\\) noexcept")
set(failed "")
foreach(c ${cases})
    string(FIND "${c}" "|" bar)
    string(SUBSTRING "${c}" 0 ${bar} piece)
    math(EXPR from "${bar} + 1")
    string(SUBSTRING "${c}" ${from} -1 expect)
    execute_process(COMMAND ${CXX} ${flags} -DWEFT_TEST_DROP_${piece} ${PORT}/main.cpp
                    RESULT_VARIABLE rc ERROR_VARIABLE err)
    string(REGEX MATCH "error: [^\n]*" first "${err}")
    if(rc EQUAL 0)
        list(APPEND failed "${piece}: compiled without it")
    elseif(NOT first MATCHES "${expect}")
        list(APPEND failed "${piece}: first error is '${first}'")
    else()
        message("${piece}: ${first}")
    endif()
endforeach()
if(failed)
    string(REPLACE ";" "\n" failed "${failed}")
    message(FATAL_ERROR "${failed}")
endif()
