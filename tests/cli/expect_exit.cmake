# Runs `strata ARGS` and checks its exit status and what it printed (stdout
# and stderr together: all of stdout, then all of stderr):
#   cmake -DSTRATA=... "-DARGS=solve ..." -DEXIT=3 "-DEXPECT=regex" ["-DREJECT=regex"]
#         -P expect_exit.cmake
separate_arguments(args UNIX_COMMAND "${ARGS}")
execute_process(COMMAND ${STRATA} ${args} OUTPUT_VARIABLE out ERROR_VARIABLE err
                RESULT_VARIABLE rc)
set(all "${out}${err}")
if(NOT rc STREQUAL "${EXIT}")
  message(FATAL_ERROR "strata ${ARGS}: exit ${rc}, expected ${EXIT}:\n${all}")
endif()
if(NOT all MATCHES "${EXPECT}")
  message(FATAL_ERROR "strata ${ARGS}: output does not match '${EXPECT}':\n${all}")
endif()
if(DEFINED REJECT AND all MATCHES "${REJECT}")
  message(FATAL_ERROR "strata ${ARGS}: output matches '${REJECT}':\n${all}")
endif()
message(STATUS "exit ${rc} as expected:\n${all}")
