# How an op folder plugs into the build. ops/<op>/CMakeLists.txt calls gradconf_add_op once; an
# op laid out like the others names nothing but itself:
#
#   gradconf_add_op(nsa_compress)
#
# which means the conventional files
#     SPEC clauses.cpp                       # clause table: backend and test side
#     BACKEND api.cpp                        # kernels + extern "C" entry points: the backend only
#     REFERENCE reference/reference.cpp      # naive double reference (never includes kernels)
#     TESTKIT problem.cpp                    # test side: problem descriptor, fills, repro
# and a registered family: the test kit defines `<name>_family()` (the op registry). Any of the
# four keywords overrides its file list; UNREGISTERED leaves the op out of the registry.
# VECTORIZE_LOOPS: the kernels' element-wise loops (the same bits vectorised or not) are
# vectorised by GCC's -O2 with runtime alias checks, which its default "very cheap" cost model
# refuses.
#
# Nothing shared is edited to add an op: ops/CMakeLists.txt adds every folder that has a
# CMakeLists.txt; tests/<op>/, bench/<op>/, properties/families/<op>/ and fuzz/<op>/ are picked up alike.
function(gradconf_add_op name)
  cmake_parse_arguments(OP "UNREGISTERED;VECTORIZE_LOOPS" "" "SPEC;BACKEND;REFERENCE;TESTKIT" ${ARGN})
  foreach(kind_and_file SPEC:clauses.cpp BACKEND:api.cpp REFERENCE:reference/reference.cpp
                        TESTKIT:problem.cpp)
    string(REPLACE ":" ";" kind_and_file ${kind_and_file})
    list(GET kind_and_file 0 kind)
    list(GET kind_and_file 1 file)
    if(NOT OP_${kind})
      set(OP_${kind} ${file})
    endif()
  endforeach()
  if(OP_VECTORIZE_LOOPS)
    set_property(SOURCE ${OP_BACKEND} DIRECTORY ${PROJECT_SOURCE_DIR}/ops APPEND PROPERTY
      COMPILE_OPTIONS $<$<CXX_COMPILER_ID:GNU>:-fvect-cost-model=dynamic>)
  endif()
  list(TRANSFORM OP_SPEC PREPEND ${CMAKE_CURRENT_SOURCE_DIR}/)
  list(TRANSFORM OP_BACKEND PREPEND ${CMAKE_CURRENT_SOURCE_DIR}/)
  list(TRANSFORM OP_REFERENCE PREPEND ${CMAKE_CURRENT_SOURCE_DIR}/)
  list(TRANSFORM OP_TESTKIT PREPEND ${CMAKE_CURRENT_SOURCE_DIR}/)
  if(OP_SPEC)
    target_sources(gradconf_spec PRIVATE ${OP_SPEC})
  endif()
  if(OP_BACKEND)
    target_sources(gradconf_backend_objects PRIVATE ${OP_BACKEND})
    target_sources(gradconf_planted_objects PRIVATE ${OP_BACKEND})
  endif()
  if(OP_REFERENCE)
    target_sources(gradconf_reference PRIVATE ${OP_REFERENCE})
  endif()
  set_property(GLOBAL APPEND PROPERTY GRADCONF_TESTKIT_SOURCES ${OP_TESTKIT})
  set_property(GLOBAL APPEND PROPERTY GRADCONF_OPS ${name})
  if(NOT OP_UNREGISTERED)
    set_property(GLOBAL APPEND PROPERTY GRADCONF_FAMILIES ${name})
  endif()
endfunction()

# Adds every immediate subfolder of the current source dir that has a CMakeLists.txt, in sorted
# order (deterministic builds), skipping the names given.
function(gradconf_add_subfolders)
  file(GLOB children RELATIVE ${CMAKE_CURRENT_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR}/*/CMakeLists.txt)
  list(SORT children)
  foreach(child ${children})
    get_filename_component(folder ${child} DIRECTORY)
    if(NOT folder IN_LIST ARGN)
      add_subdirectory(${folder})
    endif()
  endforeach()
endfunction()
