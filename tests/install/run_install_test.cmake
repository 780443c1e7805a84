# Installs the build tree to a scratch prefix, then builds and runs the consumer.
# CONSUMER_FLAGS carries the sanitizer flags in the sanitizer build: a program
# linking an instrumented library must load the sanitizer runtime first.
file(REMOVE_RECURSE ${WORK_DIR})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${STRATA_BINARY_DIR} --prefix ${WORK_DIR}/prefix
                RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "install failed (${rc})")
endif()
# The installed program starts from its prefix (its runtime path finds the
# library there), when the apps were built.
if(EXISTS ${WORK_DIR}/prefix/bin/strata)
  execute_process(COMMAND ${WORK_DIR}/prefix/bin/strata info poisson2d --n 4
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc)
    message(FATAL_ERROR "the installed strata program did not run (${rc}): ${out}${err}")
  endif()
  # Its presets are installed beside it and found from its own location.
  execute_process(COMMAND ${WORK_DIR}/prefix/bin/strata presets
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(FIND "${out}" "(in ${WORK_DIR}/prefix/share/strata/presets):" folder_at)
  string(FIND "${out}" "poisson-gpu" preset_at)
  if(rc OR folder_at EQUAL -1 OR preset_at EQUAL -1)
    message(FATAL_ERROR "the installed strata did not list its presets (${rc}): ${out}${err}")
  endif()
  execute_process(COMMAND ${WORK_DIR}/prefix/bin/strata solve poisson2d --n 8 --host
                          --preset poisson-gpu
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc)
    message(FATAL_ERROR "the installed strata did not solve with a preset (${rc}): ${out}${err}")
  endif()
endif()
# Test hooks, the cuSPARSE reference and environment switches are internal
# (src/core/*_internal.hpp, src/core/cusparse_reference.hpp): none installed.
file(GLOB_RECURSE installed_headers ${WORK_DIR}/prefix/include/strata/*.hpp)
foreach(header ${installed_headers})
  file(STRINGS ${header} internal
       REGEX "spgemm_row_products|spgemm_counts_to_offsets|spgemm_staging_budget|spgemm_stage_timing|CusparseSpmv|getenv")
  if(internal)
    message(FATAL_ERROR "${header} declares an internal hook: ${internal}")
  endif()
endforeach()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${CONSUMER_SOURCE_DIR} -B ${WORK_DIR}/build -G ${GENERATOR}
                        -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix -DCMAKE_BUILD_TYPE=Release
                        "-DCMAKE_CXX_FLAGS=${CONSUMER_FLAGS}" "-DCMAKE_C_FLAGS=${CONSUMER_FLAGS}"
                        "-DCMAKE_Fortran_FLAGS=${CONSUMER_FLAGS}"
                        "-DCMAKE_EXE_LINKER_FLAGS=${CONSUMER_FLAGS}"
                RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "configuring the consumer failed (${rc})")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR}/build RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "building the consumer failed (${rc})")
endif()
# CONSUMER_PROGRAMS: the programs to run (comma-separated; default
# "consumer"); CONSUMER_OPTIONAL: programs run when they were built (the
# Fortran example needs a Fortran compiler).
if(NOT CONSUMER_PROGRAMS)
  set(CONSUMER_PROGRAMS consumer)
endif()
string(REPLACE "," ";" required "${CONSUMER_PROGRAMS}")
string(REPLACE "," ";" optional "${CONSUMER_OPTIONAL}")
foreach(program ${required} ${optional})
  if(NOT EXISTS ${WORK_DIR}/build/${program})
    if(program IN_LIST optional)
      message(STATUS "${program} was not built (no compiler for it): not run")
      continue()
    endif()
    message(FATAL_ERROR "${program} was not built")
  endif()
  execute_process(COMMAND ${WORK_DIR}/build/${program} RESULT_VARIABLE rc)
  if(rc)
    message(FATAL_ERROR "${program} failed (${rc})")
  endif()
endforeach()
