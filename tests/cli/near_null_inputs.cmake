# The near-null inputs of `strata solve` for smoothed aggregation, end to
# end: `strata gen elasticity3d` writes the matrix, the node coordinates,
# the six rigid-body modes and the rotations alone (as hypre's rbm files);
# each way of giving the modes (--near-null, --coordinates, rotations with
# --add-translations, the gallery's own nodes) must make the same hierarchy,
# so the same iterations, and fewer than the translations alone. Then the
# mistakes: each must say what was wrong, with the program's exit status.
#   cmake -DSTRATA=... -DWORK_DIR=... -P near_null_inputs.cmake
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
set(A ${WORK_DIR}/A.mtx)
set(xyz ${WORK_DIR}/xyz.mtx)
set(rbm ${WORK_DIR}/rbm.mtx)
set(rot ${WORK_DIR}/rot.mtx)

# run(NAME EXIT args...): runs strata, checks the exit status, and leaves
# stdout + stderr in ${NAME}.
function(run name exit)
  execute_process(COMMAND ${STRATA} ${ARGN} OUTPUT_VARIABLE out ERROR_VARIABLE err
                  RESULT_VARIABLE rc)
  if(NOT rc STREQUAL "${exit}")
    message(FATAL_ERROR "strata ${ARGN}: exit ${rc}, expected ${exit}:\n${out}${err}")
  endif()
  set(${name} "${out}${err}" PARENT_SCOPE)
endfunction()

function(expect text regex)
  if(NOT text MATCHES "${regex}")
    message(FATAL_ERROR "expected '${regex}' in:\n${text}")
  endif()
endfunction()

run(out 0 gen elasticity3d --n 4 -o ${A} --coordinates ${xyz} --near-null ${rbm})
run(out 0 gen elasticity3d --n 4 -o ${WORK_DIR}/A2.mtx --near-null ${rot} --rotations-only)
file(STRINGS ${rbm} rbm_lines LIMIT_COUNT 2)
file(STRINGS ${rot} rot_lines LIMIT_COUNT 2)
file(STRINGS ${xyz} xyz_lines LIMIT_COUNT 2)
expect("${rbm_lines}" "array real general;300 6$")
expect("${rot_lines}" "array real general;300 3$")
expect("${xyz_lines}" "array real general;100 3$")

# The iterations of a converged --json solve, into ${name}.
function(iterations name)
  run(out 0 solve ${ARGN} --host --json --tol 1e-8)
  string(JSON its GET "${out}" iterations)
  string(JSON kind GET "${out}" operator_kind)
  if(NOT kind STREQUAL "BSR 3x3")
    message(FATAL_ERROR "strata solve ${ARGN}: operator ${kind}, expected BSR 3x3")
  endif()
  set(${name} ${its} PARENT_SCOPE)
  message(STATUS "strata solve ${ARGN}: ${its} iterations")
endfunction()

set(sa --coarsening sa --block-size 3)
iterations(gallery elasticity3d --n 4 --coarsening sa)
iterations(file ${A} ${sa} --near-null ${rbm})
iterations(coordinates ${A} ${sa} --coordinates ${xyz})
iterations(rotations ${A} ${sa} --near-null ${rot} --add-translations)
iterations(translations ${A} ${sa})
foreach(other file coordinates rotations)
  if(NOT ${other} EQUAL gallery)
    message(FATAL_ERROR "${other}: ${${other}} iterations, the gallery's modes ${gallery}; "
                        "expected the same modes, so the same iterations")
  endif()
endforeach()
if(NOT translations GREATER gallery)
  message(FATAL_ERROR "the translations alone took ${translations} iterations, the rigid-body "
                      "modes ${gallery}; expected the rotations to help")
endif()

# Rotations alone: the program notices the missing translations.
run(out 0 solve ${A} ${sa} --near-null ${rot} --host --maxit 200)
expect("${out}" "do not span the constant translations of unknowns 0, 1, 2 of each node \\(block size 3\\).*needs --add-translations")

# Mistakes. Data that do not fit A: exit 1, naming the file and the sizes.
run(out 1 solve ${A} ${sa} --near-null ${xyz} --host)
expect("${out}" "--near-null .*xyz.mtx is 100 x 3 but A has 300 rows; expected an array of 300 rows")
run(out 1 solve ${A} ${sa} --coordinates ${rbm} --host)
expect("${out}" "--coordinates .*rbm.mtx is 300 x 6; expected 100 x 3")
# The translations put before modes that hold them: rank-deficient.
run(out 1 solve ${A} ${sa} --near-null ${rbm} --add-translations --host)
expect("${out}" "--near-null .*rbm.mtx after 3 translations \\(--add-translations\\): .*near_null_space\\[")
# What was asked for: exit 2.
run(out 2 solve ${A} --coarsening sa --block-size 7 --host)
expect("${out}" "--block-size 7 does not divide the 300 rows of A")
run(out 2 solve ${A} ${sa} --near-null ${rbm} --coordinates ${xyz} --host)
expect("${out}" "--near-null and --coordinates both give the near-null space; give one")
run(out 2 solve ${A} ${sa} --add-translations --host)
expect("${out}" "--add-translations puts translations before the vectors of --near-null FILE")
run(out 2 solve ${A} --coordinates ${xyz} --host)
expect("${out}" "--coordinates gives the rigid-body modes .* the block size is 1")
run(out 2 solve ${A} --near-null ${rbm} --host)
expect("${out}" "--near-null gives a near-null space to aggregation coarsening; the preconditioner is classical AMG")
# The file names travel in --config and --print-config too.
file(WRITE ${WORK_DIR}/config.json
     "{\"near_null\": \"${rot}\", \"add_translations\": true, \"preconditioner\": {\"amg\": {\"coarsening\": \"sa\", \"smoothed_aggregation\": {\"block_size\": 3}}}}")
iterations(config ${A} --config ${WORK_DIR}/config.json)
if(NOT config EQUAL gallery)
  message(FATAL_ERROR "--config: ${config} iterations; expected ${gallery}")
endif()
run(out 0 solve ${A} --config ${WORK_DIR}/config.json --print-config)
expect("${out}" "\"near_null\": \"[^\"]*rot.mtx\",\n  \"add_translations\": true,\n  \"coordinates\": \"\"")
expect("${out}" "\"coarsening\": \"smoothed_aggregation\"")
