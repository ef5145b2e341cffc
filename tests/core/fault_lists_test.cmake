# Every op's fault lists (ops/<op>/faults.h) against its sources. kernel_fault() gives a kernel the
# kNone instantiation for a listed fault, so a listed fault named where that kernel would branch
# on it would silently never be planted there:
# - kPhase1Faults: only phase 1 (entry.h) may name them, and it must (else the entry is stale);
# - kBackwardOnlyFaults: no forward code may name them. The kernels list the forward first: in a
#   file that defines forward_kernel, a mention must come after that definition (which can call
#   only what is declared before it); any other file naming one must be a backward one
#   (grid_sampler2d/backward_kernel.h); and some kernel source must name each.
file(GLOB faults_headers ${SOURCE_DIR}/ops/*/faults.h)

function(fault_list text name out)
  string(REGEX MATCH "${name} = {[^}]*}" list "${text}")
  if(NOT list)
    message(FATAL_ERROR "no ${name} in ${ARGV3}")
  endif()
  string(REGEX MATCHALL "Fault::k[A-Za-z0-9]+" faults "${list}")
  set(${out} ${faults} PARENT_SCOPE)
endfunction()

set(phase1 0)
set(backward_only 0)
foreach(faults_header IN LISTS faults_headers)
  get_filename_component(op_dir ${faults_header} DIRECTORY)
  file(READ ${faults_header} text)
  fault_list("${text}" kPhase1Faults phase1_faults ${faults_header})
  fault_list("${text}" kBackwardOnlyFaults backward_faults ${faults_header})
  file(GLOB_RECURSE sources ${op_dir}/*.h ${op_dir}/*.cpp)
  list(REMOVE_ITEM sources ${faults_header})
  file(READ ${op_dir}/entry.h entry)

  foreach(fault IN LISTS phase1_faults)
    if(NOT entry MATCHES "${fault}[^A-Za-z0-9_]")
      message(FATAL_ERROR "${op_dir}/entry.h does not name ${fault} (listed in kPhase1Faults)")
    endif()
    foreach(source IN LISTS sources)
      get_filename_component(name ${source} NAME)
      file(READ ${source} code)
      if(NOT name STREQUAL "entry.h" AND code MATCHES "${fault}[^A-Za-z0-9_]")
        message(FATAL_ERROR "${source} names ${fault}, which kPhase1Faults says only phase 1 "
                            "plants: its kernels would never see it")
      endif()
    endforeach()
    math(EXPR phase1 "${phase1} + 1")
  endforeach()

  foreach(fault IN LISTS backward_faults)
    set(named FALSE)
    foreach(source IN LISTS sources)
      get_filename_component(name ${source} NAME)
      file(READ ${source} code)
      if(NOT code MATCHES "${fault}[^A-Za-z0-9_]")
        continue()
      endif()
      set(named TRUE)
      string(FIND "${code}" "void forward_kernel(" at)
      if(NOT at EQUAL -1)
        string(SUBSTRING "${code}" ${at} -1 rest)
        string(FIND "${rest}" "\n}\n" end)
        math(EXPR end "${at} + ${end}")
        string(SUBSTRING "${code}" 0 ${end} forward_part)
        if(forward_part MATCHES "${fault}[^A-Za-z0-9_]")
          message(FATAL_ERROR "${source} names ${fault} before the end of forward_kernel, but "
                              "kBackwardOnlyFaults says no forward kernel plants it")
        endif()
      elseif(NOT name MATCHES "backward")
        message(FATAL_ERROR "${source} names ${fault}, which kBackwardOnlyFaults says only the "
                            "backward kernels plant, and is not a backward kernel source")
      endif()
    endforeach()
    if(NOT named)
      message(FATAL_ERROR "no source of ${op_dir} names ${fault} (listed in kBackwardOnlyFaults)")
    endif()
    math(EXPR backward_only "${backward_only} + 1")
  endforeach()
endforeach()
list(LENGTH faults_headers ops)
if(ops LESS 4 OR phase1 LESS ops OR backward_only LESS ops)
  message(FATAL_ERROR "checked ${phase1} phase-1 and ${backward_only} backward-only faults of "
                      "${ops} ops: expected at least one of each per op")
endif()
message(STATUS "${phase1} phase-1 faults and ${backward_only} backward-only faults of ${ops} ops "
               "are named where their lists say")
