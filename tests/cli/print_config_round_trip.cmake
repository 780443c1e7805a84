# strata solve --print-config, fed back through --config, prints the same
# settings; and it exits 0 without solving.
#   cmake -DSTRATA=... -DWORK_DIR=... "-DFLAGS=--tol 1e-5 ..." -P print_config_round_trip.cmake
file(MAKE_DIRECTORY ${WORK_DIR})
separate_arguments(flags UNIX_COMMAND "${FLAGS}")
execute_process(COMMAND ${STRATA} solve --host ${flags} --print-config
                OUTPUT_VARIABLE first RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "--print-config exited with ${rc}:\n${first}")
endif()
if(first MATCHES "converged after|strata solve:")
  message(FATAL_ERROR "--print-config solved:\n${first}")
endif()
file(WRITE ${WORK_DIR}/printed.json "${first}")
execute_process(COMMAND ${STRATA} solve --config ${WORK_DIR}/printed.json --print-config
                OUTPUT_VARIABLE second RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT first STREQUAL second)
  message(FATAL_ERROR "read back (exit ${rc}):\n${second}\ndiffers from:\n${first}")
endif()
message(STATUS "round trip ok:\n${first}")
