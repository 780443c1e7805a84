/*
 * Strata's C API (C99; no C++ header is included): solve A x = b with the
 * library's Krylov methods and AMG from C, Fortran (iso_c_binding) or any
 * language that calls C.
 *
 * - Handles are opaque. A solver shares ownership of its matrix, so the
 *   matrix handle may be destroyed first.
 * - Settings are one JSON text with the library's own names (the same keys
 *   as `strata solve --config` and `--print-config`), for example
 *       {"solver": {"type": "cg", "tolerance": 1e-8},
 *        "preconditioner": {"type": "amg", "amg": {"coarsening": "classical"}}}
 *   NULL or "" means the defaults. Unknown keys are errors naming the path.
 * - Every function returns a strata_status; on an error strata_last_error()
 *   says what was wrong (the argument, the value, what was expected), for
 *   the calling thread, until its next failing call.
 * - Arrays are in double precision with 64-bit row offsets and 32-bit
 *   column indices (0-based), on the host or on the CUDA device as the
 *   location says; the library copies what it keeps.
 * - Not converging is a result, not an error: strata_solver_solve returns
 *   STRATA_SUCCESS and the info says what happened.
 */
#ifndef STRATA_STRATA_C_H
#define STRATA_STRATA_C_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum strata_status {
  STRATA_SUCCESS = 0,
  /* An argument is out of range or malformed (a null pointer, bad JSON,
     an unknown key, a negative size, a pattern that is not CSR). */
  STRATA_ERROR_INVALID_ARGUMENT = 1,
  /* Sizes of operands disagree. */
  STRATA_ERROR_DIMENSION_MISMATCH = 2,
  /* Data on the host where the device was expected, or the reverse. */
  STRATA_ERROR_LOCATION_MISMATCH = 3,
  /* The host or the device ran out of memory. */
  STRATA_ERROR_OUT_OF_MEMORY = 4,
  /* The library was built without what was asked for (CUDA). */
  STRATA_ERROR_NOT_COMPILED = 5,
  /* CUDA, cuSPARSE or cuSOLVER reported an error. */
  STRATA_ERROR_BACKEND = 6,
  /* Anything else (a bug: please report the message). */
  STRATA_ERROR_INTERNAL = 7
} strata_status;

typedef enum strata_location {
  STRATA_HOST = 0,  /* host memory; runs on the host (OpenMP) */
  STRATA_DEVICE = 1, /* CUDA device memory; runs on the GPU */
  /* Not a location: makes any non-negative int a representable value, so a
     wrong one from C or Fortran is reported, not undefined in C++. */
  STRATA_LOCATION_MAX_ENUM = 0x7fffffff
} strata_location;

typedef struct strata_matrix_handle* strata_matrix;
typedef struct strata_solver_handle* strata_solver;

/* What a solve did. */
typedef struct strata_solve_info {
  int converged;  /* 1 when the recomputed ||b - A x|| met the tolerance */
  int iterations;
  double initial_residual_norm; /* ||b - A x0|| */
  double residual_norm;         /* the residual norm the method tracked at the end */
  double relative_residual;     /* residual_norm / reference (||b|| by default) */
  double true_relative_residual; /* ||b - A x|| recomputed at the end / reference */
  char status[32];              /* "converged", "max_iterations", "breakdown", ... */
  char message[256];            /* detail for breakdowns, "" otherwise (truncated) */
} strata_solve_info;

/* The message of the calling thread's last failing call ("" if none). */
const char* strata_last_error(void);
/* "0.1.0". */
const char* strata_version(void);
/* 1 when the library was built with CUDA and a device can be used. */
int strata_cuda_available(void);

/* A rows x cols CSR matrix copied from row_ptr (rows + 1 offsets),
   col_idx and values (row_ptr[rows] entries each), all in memory at
   `location`; the matrix lives there. The content is validated (offsets,
   column range, no duplicate column in a row, finite values). */
strata_status strata_matrix_create_csr(strata_location location, int64_t rows, int64_t cols,
                                       const int64_t* row_ptr, const int32_t* col_idx,
                                       const double* values, strata_matrix* matrix);
/* New values for the same pattern (as many as the matrix has entries, in
   its order, in memory at its location). Solvers that use the matrix see
   them after strata_solver_resetup. */
strata_status strata_matrix_set_values(strata_matrix matrix, const double* values);
strata_status strata_matrix_size(strata_matrix matrix, int64_t* rows, int64_t* cols,
                                 int64_t* nnz);
/* The near-null space of the matrix's problem and its block size, kept with
   the matrix for the solvers created from it afterwards (as PETSc's
   MatSetNearNullSpace and MatSetBlockSize): the AMG coarsenings that take
   one ("aggregation", "smoothed_aggregation") build their interpolation
   from it; for elasticity these are the rigid-body modes. near_null holds
   k columns of `rows` values each, column-major (column j starts at
   near_null[j * rows]), in memory at the matrix's location; k = 0 (and
   near_null NULL) keeps no vectors, leaving the coarsening's default (the
   translations). block_size: unknowns per node, >= 1 and dividing rows;
   with "smoothed_aggregation" and its block_size setting 0 it becomes that
   setting (the solver then works on the matrix in BSR form of these
   blocks); a setting of another size is an error at strata_solver_create.
   The vectors are checked there (full column rank, finite values), and a
   solver with classical coarsening refuses them. */
strata_status strata_matrix_set_near_null_space(strata_matrix matrix, int block_size, int64_t k,
                                                const double* near_null);
/* NULL is accepted. */
strata_status strata_matrix_destroy(strata_matrix matrix);

/* A solver for A (square) with the settings in `json_config`: the
   preconditioner (AMG hierarchy or smoother) is set up here, with the
   matrix's near-null space and block size when it has them. */
strata_status strata_solver_create(strata_matrix matrix, const char* json_config,
                                   strata_solver* solver);
/* After strata_matrix_set_values: refreshes the preconditioner for the new
   values (a value-only AMG resetup when the hierarchy kept its data, a new
   setup otherwise). */
strata_status strata_solver_resetup(strata_solver solver);
/* Solves A x = b: x holds the initial guess on entry and the solution on
   exit; b and x have rows entries each, in memory at the matrix's location.
   `info` may be NULL. */
strata_status strata_solver_solve(strata_solver solver, const double* b, double* x,
                                  strata_solve_info* info);
/* The settings in effect as JSON (what json_config accepts back), written
   to buffer with its terminating zero when it fits in `size` bytes;
   *needed (if not NULL) receives the bytes it needs. */
strata_status strata_solver_config(strata_solver solver, char* buffer, size_t size,
                                   size_t* needed);
/* A one-line description of the method and preconditioner. Same buffer
   rules as strata_solver_config. */
strata_status strata_solver_describe(strata_solver solver, char* buffer, size_t size,
                                     size_t* needed);
/* NULL is accepted. */
strata_status strata_solver_destroy(strata_solver solver);

#ifdef __cplusplus
}
#endif

#endif /* STRATA_STRATA_C_H */
