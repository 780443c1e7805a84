#pragma once
// Kernel contract for the direct solve on the coarsest AMG level: the
// coarse matrix (a few hundred rows) is made dense and inverted once at
// setup; each cycle then costs one dense matrix-vector product, which on a
// GPU is one well-parallel kernel instead of two triangular solves with
// little parallelism. Dense matrices are column-major, n x n.

#include "strata/core/executor.hpp"
#include "strata/core/types.hpp"

namespace strata::kernels::amg {

/// dense[j * n + i] = a_ij (column-major), zeros elsewhere.
template <class Exec, class T>
void csr_to_dense(const Exec& exec, size_type n, const offset_type* row_ptr,
                  const index_type* col_idx, const T* values, T* dense);

/// Replaces the column-major n x n `dense` by its inverse: Gauss-Jordan
/// elimination with partial pivoting (the largest |a_ik| of the column, the
/// first row among equals) on both backends, the same pivots and steps.
/// Returns -1, or the elimination step at which the largest remaining pivot
/// was zero or below `singular_tolerance` times the largest entry of the
/// matrix (the matrix is singular to working precision; `dense` is then
/// partly eliminated). The CUDA backend holds a column in shared memory:
/// a few thousand rows at most (an invalid_argument beyond that).
template <class Exec, class T>
size_type dense_invert(const Exec& exec, size_type n, T* dense, T singular_tolerance);

/// y = M x for the column-major n x n M.
template <class Exec, class T>
void dense_matvec(const Exec& exec, size_type n, const T* M, const T* x, T* y);
/// The same on the GPU with a block per 32 rows and the columns split among
/// its warps: the coarsest level has only a few hundred to a few thousand
/// rows, too few for a thread per row to hide the latency of its n loads
/// (backend/cuda/amg/coarse_solve_kernels.cu).
template <class T>
void dense_matvec(const CudaExec& exec, size_type n, const T* M, const T* x, T* y);

}  // namespace strata::kernels::amg
