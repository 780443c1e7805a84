# Without --verbose, the level lines appear only when the setup takes more
# than a second (then all of them, the held ones first). How long a setup
# takes depends on the machine, so the check follows the setup time the
# program reports: over 1.2 s, every level must be printed, before the
# method line; under 0.8 s, none; in between either is right.
#   cmake -DSTRATA=... "-DARGS=solve poisson3d --n 40 --host" -P long_setup_prints_levels.cmake
separate_arguments(args UNIX_COMMAND "${ARGS}")
execute_process(COMMAND ${STRATA} ${args} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "strata ${ARGS}: exit ${rc}:\n${out}${err}")
endif()
if(NOT out MATCHES "\n  setup ([0-9.]+) s, solve")
  message(FATAL_ERROR "no setup time in:\n${out}")
endif()
set(seconds ${CMAKE_MATCH_1})
if(NOT out MATCHES "\n  level +rows[^\n]*\n(.*)\n  operator complexity")
  message(FATAL_ERROR "no hierarchy table in:\n${out}")
endif()
string(REGEX MATCHALL "\n +[0-9]+ +[0-9]+ +[0-9]+" table_rows "\n${CMAKE_MATCH_1}")
list(LENGTH table_rows levels)
string(REGEX MATCHALL "setup: level [0-9]+," printed "${out}")
list(LENGTH printed lines)
if(seconds GREATER 1.2)
  if(NOT lines EQUAL levels OR NOT out MATCHES "setup: level 0,.*the coarsest.*\n  method ")
    message(FATAL_ERROR "setup took ${seconds} s: expected ${levels} level lines before the "
                        "method line, got ${lines}:\n${out}")
  endif()
elseif(seconds LESS 0.8)
  if(NOT lines EQUAL 0)
    message(FATAL_ERROR "setup took ${seconds} s: expected no level lines, got ${lines}:\n${out}")
  endif()
endif()
message(STATUS "setup ${seconds} s, ${levels} levels, ${lines} level lines printed")
