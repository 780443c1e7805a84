/* Solves the 2D Poisson problem (5-point Laplacian, Dirichlet) on an n x n
 * grid with AMG-preconditioned CG through Strata's C API, then checks
 * ||b - A x|| / ||b|| itself. Exit status 0 when it meets the tolerance.
 *
 *   c_example [n] [host|device]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <strata/strata_c.h>

#define CHECK(call)                                                               \
  do {                                                                            \
    strata_status status_ = (call);                                               \
    if (status_ != STRATA_SUCCESS) {                                              \
      fprintf(stderr, "%s failed (%d): %s\n", #call, (int)status_, strata_last_error()); \
      return 1;                                                                   \
    }                                                                             \
  } while (0)

int main(int argc, char** argv) {
  const int64_t n = argc > 1 ? atoll(argv[1]) : 64;
  const int device = argc > 2 && strcmp(argv[2], "device") == 0;
  if (n < 2) {
    fprintf(stderr, "n must be >= 2\n");
    return 2;
  }
  if (device && !strata_cuda_available()) {
    fprintf(stderr, "no CUDA device: run on the host\n");
    return 2;
  }
  const int64_t rows = n * n;
  int64_t* row_ptr = malloc(sizeof(int64_t) * (size_t)(rows + 1));
  int32_t* col_idx = malloc(sizeof(int32_t) * (size_t)(5 * rows));
  double* values = malloc(sizeof(double) * (size_t)(5 * rows));
  double* b = malloc(sizeof(double) * (size_t)rows);
  double* x = malloc(sizeof(double) * (size_t)rows);
  int64_t k = 0;
  row_ptr[0] = 0;
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      const int64_t r = i * n + j;
      if (i > 0) col_idx[k] = (int32_t)(r - n), values[k++] = -1.0;
      if (j > 0) col_idx[k] = (int32_t)(r - 1), values[k++] = -1.0;
      col_idx[k] = (int32_t)r, values[k++] = 4.0;
      if (j + 1 < n) col_idx[k] = (int32_t)(r + 1), values[k++] = -1.0;
      if (i + 1 < n) col_idx[k] = (int32_t)(r + n), values[k++] = -1.0;
      row_ptr[r + 1] = k;
      b[r] = 1.0;
      x[r] = 0.0;
    }
  }

  /* This example keeps its arrays on the host; with STRATA_DEVICE the
     pointers would be CUDA device pointers (cudaMalloc / CuPy / ...). */
  strata_matrix A;
  CHECK(strata_matrix_create_csr(STRATA_HOST, rows, rows, row_ptr, col_idx, values, &A));
  const char* settings =
      "{\"solver\": {\"type\": \"cg\", \"tolerance\": 1e-8},"
      " \"preconditioner\": {\"type\": \"amg\", \"amg\": {\"coarsening\": \"classical\"}}}";
  strata_solver S;
  CHECK(strata_solver_create(A, settings, &S));
  CHECK(strata_matrix_destroy(A)); /* the solver shares the matrix */

  char description[512];
  CHECK(strata_solver_describe(S, description, sizeof description, NULL));
  strata_solve_info info;
  CHECK(strata_solver_solve(S, b, x, &info));
  printf("c_example: Strata %s, %s\n  %s in %d iterations\n", strata_version(), description,
         info.status, info.iterations);

  /* The residual, computed here from the arrays we built. */
  double rr = 0.0, bb = 0.0;
  for (int64_t r = 0; r < rows; ++r) {
    double ax = 0.0;
    for (int64_t p = row_ptr[r]; p < row_ptr[r + 1]; ++p) ax += values[p] * x[col_idx[p]];
    rr += (b[r] - ax) * (b[r] - ax);
    bb += b[r] * b[r];
  }
  const double relative = sqrt(rr / bb);
  printf("  ||b - A x|| / ||b|| = %.3e\n", relative);

  /* A bad setting is an error with a message naming it. */
  strata_solver bad = NULL;
  strata_matrix B;
  CHECK(strata_matrix_create_csr(STRATA_HOST, rows, rows, row_ptr, col_idx, values, &B));
  const strata_status status = strata_solver_create(B, "{\"solver\": {\"tolerence\": 1}}", &bad);
  printf("  a misspelt key: status %d, \"%s\"\n", (int)status, strata_last_error());
  strata_matrix_destroy(B);
  strata_solver_destroy(S);
  free(row_ptr), free(col_idx), free(values), free(b), free(x);
  const int ok = info.converged && relative <= 1e-8 && status == STRATA_ERROR_INVALID_ARGUMENT &&
                 bad == NULL && strstr(strata_last_error(), "tolerence") != NULL;
  return ok ? 0 : 1;
}
