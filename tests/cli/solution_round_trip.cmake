# strata solve -o writes x so that it reads back bit for bit: a second solve
# from it (--x0) starts at the first one's answer, so it converges in 0
# iterations with exactly the same recomputed residual; and the file has one
# entry per row. The residual is recomputed by the program from the x it
# read, not carried over.
#   cmake -DSTRATA=... -DWORK_DIR=... "-DARGS=poisson3d --n 12 --host" -P solution_round_trip.cmake
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
separate_arguments(args UNIX_COMMAND "${ARGS}")
set(x ${WORK_DIR}/x.mtx)
execute_process(COMMAND ${STRATA} solve ${args} -o ${x} --json OUTPUT_VARIABLE first
                ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "solve -o exited with ${rc}:\n${first}${err}")
endif()
string(JSON rows GET "${first}" rows)
string(JSON iterations GET "${first}" iterations)
string(JSON residual GET "${first}" relative_residual)
if(iterations EQUAL 0)
  message(FATAL_ERROR "the first solve did no iteration, so the round trip proves nothing")
endif()
file(STRINGS ${x} lines)
list(GET lines 0 banner)
list(GET lines 1 size)
list(LENGTH lines count)
math(EXPR expected "${rows} + 2")
if(NOT banner STREQUAL "%%MatrixMarket matrix array real general" OR NOT size STREQUAL "${rows} 1"
   OR NOT count EQUAL expected)
  message(FATAL_ERROR "${x}: banner '${banner}', size '${size}', ${count} lines; expected an "
                      "array of ${rows} x 1")
endif()
execute_process(COMMAND ${STRATA} solve ${args} --x0 ${x} --json OUTPUT_VARIABLE second
                ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "solve --x0 exited with ${rc}:\n${second}${err}")
endif()
string(JSON again GET "${second}" iterations)
string(JSON residual_again GET "${second}" relative_residual)
if(NOT again EQUAL 0 OR NOT residual_again STREQUAL residual)
  message(FATAL_ERROR "from --x0: ${again} iterations and relative residual ${residual_again}; "
                      "expected 0 and ${residual} (x did not read back as written)")
endif()
message(STATUS "round trip: ${iterations} iterations, then 0 from --x0, residual ${residual} both times")
