# `mpirun -np NP strata solve ...` end to end (issue 17, item 7):
#   cmake -DSTRATA=... -DMPIEXEC=... -DNP=2 -DCASE=... [-DDATA=...] -P mpi_solve.cmake
# CASE:
#   matches_serial  CG + Jacobi on poisson3d: the iterations of the serial
#                   run, one JSON object with the process count and rows per
#                   process that add up to the rows, one text report
#   matrix_market   a file read on rank 0 and scattered solves as serially
#   amg             classical AMG (the default; the serial iterations) and
#                   aggregation AMG with distributed levels
#   sa              smoothed aggregation: elasticity3d (block size 3 and its
#                   rigid-body modes, rows split by whole nodes, the Krylov
#                   operator distributed BSR 3x3) within a few
#                   iterations of serial, with the modes from --coordinates
#                   and --near-null files as well, and scalar SA on poisson3d
#   refused         --null-space, a block size that does not divide the rows,
#                   a split that cuts nodes (2 processes) and a missing file:
#                   every process exits nonzero with the message, none hangs
# Every command has a timeout: a process left waiting in a collective
# fails the test instead of hanging it.

function(count_matches regex text out)
  string(REGEX MATCHALL "${regex}" all "${text}")
  list(LENGTH all n)
  set(${out} ${n} PARENT_SCOPE)
endfunction()

# run(PREFIX arg...): PREFIX_out (stdout), PREFIX_all (stdout + stderr),
# PREFIX_rc. With MPI when the first argument is MPI.
function(run prefix)
  set(args ${ARGN})
  list(GET args 0 first)
  if(first STREQUAL "MPI")
    list(REMOVE_AT args 0)
    set(command ${MPIEXEC} --oversubscribe -np ${NP} ${STRATA} ${args})
  else()
    set(command ${STRATA} ${args})
  endif()
  execute_process(COMMAND ${command} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc
                  TIMEOUT 60)
  set(${prefix}_out "${out}" PARENT_SCOPE)
  set(${prefix}_all "${out}${err}" PARENT_SCOPE)
  set(${prefix}_rc "${rc}" PARENT_SCOPE)
  message(STATUS "${command}: exit ${rc}")
endfunction()

function(expect_exit prefix expected)
  if(NOT "${${prefix}_rc}" STREQUAL "${expected}")
    message(FATAL_ERROR "exit ${${prefix}_rc}, expected ${expected}:\n${${prefix}_all}")
  endif()
endfunction()

# The checks every distributed JSON report passes: one object, NP
# processes, rows per process adding up to the rows.
function(check_distributed_json prefix)
  set(out "${${prefix}_out}")
  count_matches("\"command\": \"solve\"" "${out}" objects)
  if(NOT objects EQUAL 1)
    message(FATAL_ERROR "${objects} JSON reports printed, expected one (rank 0's):\n${out}")
  endif()
  string(JSON processes GET "${out}" processes)
  string(JSON rows GET "${out}" rows)
  string(JSON per LENGTH "${out}" rows_per_process)
  if(NOT processes EQUAL NP OR NOT per EQUAL NP)
    message(FATAL_ERROR "processes ${processes}, rows_per_process of ${per}; expected ${NP}:\n${out}")
  endif()
  set(sum 0)
  math(EXPR last "${NP} - 1")
  foreach(r RANGE ${last})
    string(JSON rows_r GET "${out}" rows_per_process ${r})
    math(EXPR sum "${sum} + ${rows_r}")
    if(rows_r EQUAL rows)
      message(FATAL_ERROR "process ${r} holds all ${rows} rows:\n${out}")
    endif()
  endforeach()
  if(NOT sum EQUAL rows)
    message(FATAL_ERROR "rows_per_process add up to ${sum}, not the ${rows} rows:\n${out}")
  endif()
  foreach(key halo_transfer device_transfer setup_seconds_per_process solve_seconds_per_process)
    string(JSON value ERROR_VARIABLE missing GET "${out}" ${key})
    if(missing)
      message(FATAL_ERROR "the JSON has no ${key}:\n${out}")
    endif()
  endforeach()
endfunction()

function(expect_same_iterations serial distributed)
  string(JSON serial_iterations GET "${${serial}_out}" iterations)
  string(JSON iterations GET "${${distributed}_out}" iterations)
  string(JSON converged GET "${${distributed}_out}" converged)
  if(NOT iterations EQUAL serial_iterations OR NOT converged)
    message(FATAL_ERROR "${NP} processes: ${iterations} iterations (converged: ${converged}), "
                        "serial ${serial_iterations}:\n${${distributed}_out}")
  endif()
  message(STATUS "${iterations} iterations on ${NP} processes and on one")
endfunction()

# The solve once serial and once on NP processes, both with --json: both
# converge, the distributed JSON has its fields, the iterations agree.
function(solve_serial_and_distributed)
  run(serial ${ARGN} --json)
  expect_exit(serial 0)
  run(dist MPI ${ARGN} --json)
  expect_exit(dist 0)
  check_distributed_json(dist)
  expect_same_iterations(serial dist)
  set(dist_out "${dist_out}" PARENT_SCOPE)
endfunction()

if(CASE STREQUAL "matches_serial")
  set(solve solve poisson3d --n 12 --host --precond jacobi --solver cg)
  solve_serial_and_distributed(${solve})
  run(text MPI ${solve})
  expect_exit(text 0)
  count_matches("strata solve: poisson3d" "${text_all}" headers)
  count_matches("converged after" "${text_all}" reports)
  if(NOT headers EQUAL 1 OR NOT reports EQUAL 1)
    message(FATAL_ERROR "${headers} headers and ${reports} reports, expected one each:\n${text_all}")
  endif()
  if(NOT text_all MATCHES "${NP} processes.*per process: [0-9]+-[0-9]+ rows.*halo exchange: host memory.*per process: setup")
    message(FATAL_ERROR "the report does not show the processes:\n${text_all}")
  endif()
elseif(CASE STREQUAL "amg")
  # Classical AMG: the serial splitting and P on any number of processes,
  # so with l1-Jacobi (the same smoother on any split) the serial iterations.
  # PMIS named: the automatic splitting is HMIS on a serial host level and
  # PMIS across processes.
  solve_serial_and_distributed(solve poisson3d --n 14 --host --smoother l1jacobi --splitting pmis)
  if(NOT dist_out MATCHES "\"coarse_solver\"")
    message(FATAL_ERROR "no hierarchy in the report:\n${dist_out}")
  endif()
  # The defaults (classical, hybrid Gauss-Seidel on the host: Jacobi between
  # processes) and ILU(0)-GMRES on a nonsymmetric problem converge.
  foreach(args "solve;poisson3d;--n;14;--host;--resetup" "solve;convdiff3d;--n;12;--host;--precond;ilu0")
    run(other MPI ${args})
    expect_exit(other 0)
    if(NOT other_all MATCHES "converged after" OR
       (args MATCHES "resetup" AND NOT other_all MATCHES "value-only resetup [0-9.]+ s"))
      message(FATAL_ERROR "${args}:\n${other_all}")
    endif()
  endforeach()
  # Aggregation AMG with distributed levels: converges, reports its levels
  # over all processes and the redundant coarse solve. The aggregates are
  # the serial ones (MIS(2) across processes), but the serial run forms
  # R A P by its own row-by-row product, whose sums round differently from
  # the distributed products: a little room for the last bits.
  set(solve solve poisson3d --n 16 --host --precond amg --coarsening aggregation --json)
  run(serial ${solve})
  expect_exit(serial 0)
  run(dist MPI ${solve})
  expect_exit(dist 0)
  check_distributed_json(dist)
  string(JSON serial_iterations GET "${serial_out}" iterations)
  string(JSON iterations GET "${dist_out}" iterations)
  string(JSON rows0 GET "${dist_out}" levels 0 rows)
  string(JSON levels LENGTH "${dist_out}" levels)
  string(JSON coarse GET "${dist_out}" coarse_solver)
  math(EXPR most "${serial_iterations} + 3")
  if(NOT rows0 EQUAL 4096 OR levels LESS 3 OR iterations GREATER most)
    message(FATAL_ERROR "level 0 of ${rows0} rows, ${levels} levels, ${iterations} iterations "
                        "(serial ${serial_iterations}):\n${dist_out}")
  endif()
  if(NP GREATER 1 AND NOT coarse MATCHES "on every process")
    message(FATAL_ERROR "coarse solver '${coarse}':\n${dist_out}")
  endif()
  message(STATUS "${iterations} iterations on ${NP} processes, ${serial_iterations} on one")
elseif(CASE STREQUAL "sa")
  # Smoothed aggregation: aggregates within each process, so a few more
  # iterations than serial at most; the rows split by whole nodes.
  function(check_sa serial_prefix dist_prefix block vectors)
    check_distributed_json(${dist_prefix})
    set(out "${${dist_prefix}_out}")
    string(JSON serial_iterations GET "${${serial_prefix}_out}" iterations)
    string(JSON iterations GET "${out}" iterations)
    string(JSON converged GET "${out}" converged)
    string(JSON b GET "${out}" block_size)
    string(JSON k GET "${out}" near_null_vectors)
    string(JSON levels LENGTH "${out}" levels)
    string(JSON coarsening GET "${out}" preconditioner_detail)
    math(EXPR most "${serial_iterations} + 3")
    if(NOT converged OR iterations GREATER most OR NOT b EQUAL block OR NOT k EQUAL vectors OR
       levels LESS 2 OR NOT coarsening MATCHES "aggregates within each process")
      message(FATAL_ERROR "${iterations} iterations (serial ${serial_iterations}), block size "
                          "${b}, ${k} near-null vectors, ${levels} levels:\n${out}")
    endif()
    # With a block size the Krylov method multiplies by the distributed BSR
    # operator (the hierarchy by the scalar form), as serially by BSR.
    string(JSON kind GET "${out}" operator_kind)
    if(block GREATER 1)
      set(expected_kind "distributed BSR ${block}x${block}")
    else()
      set(expected_kind "distributed CSR")
    endif()
    if(NOT kind STREQUAL expected_kind)
      message(FATAL_ERROR "operator_kind '${kind}', expected '${expected_kind}':\n${out}")
    endif()
    math(EXPR last "${NP} - 1")
    foreach(r RANGE ${last})
      string(JSON rows_r GET "${out}" rows_per_process ${r})
      math(EXPR cut "${rows_r} % ${block}")
      if(NOT cut EQUAL 0)
        message(FATAL_ERROR "process ${r} holds ${rows_r} rows, not whole nodes:\n${out}")
      endif()
    endforeach()
    message(STATUS "SA: ${iterations} iterations on ${NP} processes, ${serial_iterations} on one")
  endfunction()
  # One solve (ARGN) on one process and on NP, both checked as above.
  function(sa_case block vectors)
    run(serial ${ARGN})
    expect_exit(serial 0)
    run(dist MPI ${ARGN})
    expect_exit(dist 0)
    check_sa(serial dist ${block} ${vectors})
  endfunction()
  sa_case(3 6 solve elasticity3d --n 8 --host --coarsening smoothed_aggregation --json)
  # The same modes from files, read on rank 0 and split by rows.
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/mpi_sa_np${NP})
  file(MAKE_DIRECTORY ${dir})
  run(gen gen elasticity3d --n 6 -o ${dir}/A.mtx --coordinates ${dir}/xyz.mtx
      --near-null ${dir}/rbm.mtx)
  expect_exit(gen 0)
  foreach(given "--coordinates;${dir}/xyz.mtx" "--near-null;${dir}/rbm.mtx")
    sa_case(3 6 solve ${dir}/A.mtx --host --coarsening smoothed_aggregation --block-size 3
            ${given} --json)
  endforeach()
  # Scalar SA (block size 1, B = 1).
  sa_case(1 0 solve poisson3d --n 16 --host --coarsening smoothed_aggregation --json)
elseif(CASE STREQUAL "matrix_market")
  solve_serial_and_distributed(solve ${DATA}/kokkos/Laplace3D10.mtx --host --precond l1jacobi)
  string(JSON built GET "${dist_out}" matrix_built_by)
  if(NOT built STREQUAL "rank 0, rows scattered")
    message(FATAL_ERROR "matrix_built_by '${built}':\n${dist_out}")
  endif()
elseif(CASE STREQUAL "refused")
  # Each process's exit status, seen through a shell around it (mpirun
  # itself names only the first process that failed).
  # (A newline, not ";", between the commands: ";" would split the list.)
  set(each sh -c "\"$0\" \"$@\"\necho \"strata exit $? on rank $OMPI_COMM_WORLD_RANK\"" ${STRATA})
  set(split_case "")
  if(NP EQUAL 2)
    # 729 rows on two processes: 365 and 364, which cuts node 121 (dots for
    # the brackets: a "[" in a list element stops CMake splitting it).
    set(split_case "1;process 0 owns global rows .0, 365., which splits node 121 .rows .363, 366.. of block size 3;solve;--n;9;--host;--coarsening;smoothed_aggregation;--block-size;3")
  endif()
  foreach(case "2;--null-space does not run on several processes yet;solve;--n;8;--host;--null-space;constant"
               "2;--block-size 3 does not divide the 512 rows of A;solve;--n;8;--host;--coarsening;smoothed_aggregation;--block-size;3"
               "${split_case}"
               "2;--resetup needs --precond amg;solve;--n;8;--host;--precond;jacobi;--resetup"
               "1;cannot open;solve;${DATA}/no-such-file.mtx;--host;--precond;jacobi")
    if(case STREQUAL "")
      continue()
    endif()
    list(POP_FRONT case status message)
    execute_process(COMMAND ${MPIEXEC} --oversubscribe -np ${NP} ${each} ${case}
                    OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc TIMEOUT 60)
    set(all "${out}${err}")
    if(rc STREQUAL "Process terminated due to timeout")
      message(FATAL_ERROR "strata ${case} on ${NP} processes hung:\n${all}")
    endif()
    count_matches("strata exit ${status} on rank" "${all}" failed)
    count_matches("strata: error: " "${all}" printed)
    if(NOT failed EQUAL NP OR NOT printed EQUAL 1 OR NOT all MATCHES "${message}")
      message(FATAL_ERROR "strata ${case}: ${failed} of ${NP} processes exited ${status}, "
                          "${printed} error lines (expected one, matching '${message}'):\n${all}")
    endif()
    message(STATUS "every process exited ${status}:\n${all}")
  endforeach()
else()
  message(FATAL_ERROR "CASE '${CASE}': expected matches_serial, matrix_market, amg, sa or refused")
endif()
