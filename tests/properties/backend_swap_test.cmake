# Runs the law suite (Laws/RegisteredLaw.*) of a property-test binary linked against the planted-fault
# backend with FAULT planted, and requires the set of failing laws to equal the expected set for
# that fault (backend_swap_expected.txt: "<fault> <law>" lines; no line for "" = nothing fails).
set(ENV{GRADCONF_PLANTED_FAULT} "${FAULT}")
# A fixed seed: the set of failing laws must be exact, so it may not depend on the draw.
set(ENV{RC_PARAMS} "max_success=200 seed=20261124")
execute_process(COMMAND ${BINARY} --gtest_filter=Laws/RegisteredLaw.*
                OUTPUT_VARIABLE output ERROR_VARIABLE errors RESULT_VARIABLE result)
string(REGEX MATCHALL "\\[  FAILED  \\] Laws/RegisteredLaw\\.holds/[A-Za-z_0-9]+" failed_lines "${output}")
set(failed "")
foreach(line ${failed_lines})
  string(REGEX REPLACE ".*holds/" "" law "${line}")
  list(APPEND failed ${law})
endforeach()
list(REMOVE_DUPLICATES failed)
list(SORT failed)
file(STRINGS ${EXPECTED_FILE} rows REGEX "^[^#]")
set(expected "")
foreach(row ${rows})
  string(REGEX MATCH "^([^ ]+) ([^ ]+)$" _ "${row}")
  if(CMAKE_MATCH_1 STREQUAL "${FAULT}")
    list(APPEND expected ${CMAKE_MATCH_2})
  endif()
endforeach()
list(SORT expected)
message(STATUS "fault '${FAULT}': failing laws [${failed}], expected [${expected}]")
if(NOT failed STREQUAL expected)
  message(FATAL_ERROR "backend swap: with fault '${FAULT}' the failing laws were [${failed}], "
                      "expected [${expected}]\n${output}")
endif()
if(FAULT STREQUAL "" AND NOT result EQUAL 0)
  message(FATAL_ERROR "the law suite failed on the planted library with no fault planted\n${output}")
endif()
