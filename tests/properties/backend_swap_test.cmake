# Runs the laws matching LAWS (a gtest pattern of law names, e.g. GridSampler2D*, or *), minus
# those matching SKIP if given, of a
# property-test binary linked against the planted-fault backend with FAULT planted, and requires
# the set of failing laws to equal the expected set for that fault (backend_swap_expected.txt:
# "<fault> <law>" lines; no line for "" = nothing fails).
set(ENV{GRADCONF_PLANTED_FAULT} "${FAULT}")
# A fixed seed: the set of failing laws must be exact, so it may not depend on the draw.
set(ENV{RC_PARAMS} "max_success=100 seed=20261124")
set(filter Laws/RegisteredLaw.holds/${LAWS})
if(SKIP)
  string(APPEND filter -Laws/RegisteredLaw.holds/${SKIP})
endif()
execute_process(COMMAND ${BINARY} --gtest_filter=${filter}
                OUTPUT_VARIABLE output ERROR_VARIABLE errors RESULT_VARIABLE result)
string(REGEX MATCHALL "\\[  FAILED  \\] Laws/RegisteredLaw\\.holds/[A-Za-z_0-9]+" failed_lines "${output}")
set(failed "")
foreach(line ${failed_lines})
  string(REGEX REPLACE ".*holds/" "" law "${line}")
  list(APPEND failed ${law})
endforeach()
list(REMOVE_DUPLICATES failed)
list(SORT failed)
# A filter that matches nothing exits 0 with no failures: it must have run the laws.
string(REGEX MATCH "Running ([0-9]+) tests" _ "${output}")
if(NOT CMAKE_MATCH_1 OR CMAKE_MATCH_1 LESS MIN_LAWS)
  message(FATAL_ERROR "backend swap ran '${CMAKE_MATCH_1}' law tests of '${LAWS}', expected at "
                      "least ${MIN_LAWS}\n${output}")
endif()
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
# The exit code agrees with the failures counted: non-zero exactly when some law failed.
if(NOT FAULT STREQUAL "" AND result EQUAL 0)
  message(FATAL_ERROR "fault '${FAULT}' failed laws [${failed}] but the suite exited 0\n${output}")
endif()
