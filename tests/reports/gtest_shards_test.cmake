# The GoogleTest suites honour GTEST_TOTAL_SHARDS / GTEST_SHARD_INDEX (what a CI matrix sets to
# split them): three shards of a suite run disjoint sets of its tests that together are all.
execute_process(COMMAND ${BINARY} --gtest_list_tests OUTPUT_VARIABLE listing RESULT_VARIABLE rc)
string(REGEX MATCHALL "\n  [A-Za-z0-9_/.]+" all "${listing}")
list(LENGTH all total)
set(sum 0)
foreach(index 0 1 2)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env GTEST_TOTAL_SHARDS=3 GTEST_SHARD_INDEX=${index}
                          ${BINARY} --gtest_brief=1
                  OUTPUT_VARIABLE out RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "shard ${index} failed:\n${out}")
  endif()
  # Every test the shard ran, passed or skipped (a test that skips on this CPU, e.g. without
  # AVX-512, is still run by exactly one shard).
  string(REGEX MATCH "\\[==========\\] ([0-9]+) tests? from" ran "${out}")
  set(n ${CMAKE_MATCH_1})
  if(n EQUAL 0 OR n EQUAL total)
    message(FATAL_ERROR "shard ${index} ran ${n} of ${total} tests: not split")
  endif()
  math(EXPR sum "${sum} + ${n}")
endforeach()
if(NOT sum EQUAL total)
  message(FATAL_ERROR "the shards ran ${sum} tests, the suite has ${total}")
endif()
message(STATUS "3 shards ran ${sum} of ${total} tests, each once")
