# How an op folder plugs into the build. ops/<op>/CMakeLists.txt calls gradconf_add_op once:
#
#   gradconf_add_op(multi_scale_deformable_attention
#     BACKEND api.cpp clauses.cpp            # kernels + extern "C" entry points -> the backend
#     REFERENCE reference/reference.cpp)     # naive double reference -> gradconf_reference
#
# Nothing shared is edited to add an op: ops/CMakeLists.txt adds every folder that has a
# CMakeLists.txt, and tests/<op>/CMakeLists.txt is picked up the same way.
function(gradconf_add_op name)
  cmake_parse_arguments(OP "" "" "BACKEND;REFERENCE" ${ARGN})
  foreach(source ${OP_BACKEND})
    target_sources(gradconf_backend_objects PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/${source})
  endforeach()
  foreach(source ${OP_REFERENCE})
    target_sources(gradconf_reference PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/${source})
  endforeach()
  set_property(GLOBAL APPEND PROPERTY GRADCONF_OPS ${name})
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
