#pragma once
// Kernel contract for CSR matrices.

#include <utility>

#include "strata/core/executor.hpp"
#include "strata/core/types.hpp"

namespace strata::kernels::csr {

/// y = alpha A x + beta z for the rows x cols CSR matrix (row_ptr, col_idx,
/// values); z may be y (the usual y = alpha A x + beta y) or another vector
/// (the residual b - A x in one pass). beta == 0 ignores z. Each row is
/// summed in a fixed order, so the result repeats bit for bit.
///
/// Host: rows are split between threads so that each gets an equal share of
/// nonzeros (not of rows). CUDA: "CSR-stream" for short rows (a block stages
/// the products of a contiguous run of rows in shared memory with fully
/// coalesced loads, then reduces each row from there), a warp per row for
/// long rows or for blocks whose rows do not fit. max_row (the longest row)
/// picks the rows per block there: see csr_kernels.cu.
template <class Exec, class T>
void spmv(const Exec& exec, size_type rows, size_type nnz, size_type max_row,
          const offset_type* row_ptr, const index_type* col_idx, const T* values, T alpha,
          const T* x, T beta, const T* z, T* y);

/// One Jacobi sweep from x into y (square A, y != x):
/// y = x + d .* (b - A x), in one pass: the SpMV's row sums go straight into
/// the update, so neither A x nor a separate correction pass is stored.
/// Same row order and sums as spmv, so it repeats bit for bit.
template <class Exec, class T>
void jacobi_sweep(const Exec& exec, size_type rows, size_type nnz, size_type max_row,
                  const offset_type* row_ptr, const index_type* col_idx, const T* values,
                  const T* d, const T* b, const T* x, T* y);

/// y = A x for square A, returning x^T y: the SpMV and the dot product of
/// CG's p^T A p in one pass over the matrix (the dot costs no extra read of
/// x and y). Fixed order: repeats bit for bit.
template <class Exec, class T>
T spmv_dot(const Exec& exec, size_type rows, size_type nnz, size_type max_row,
           const offset_type* row_ptr, const index_type* col_idx, const T* values, const T* x,
           T* y);

/// {shortest, longest} row of the CSR matrix (rows > 0).
template <class Exec>
std::pair<size_type, size_type> row_length_range(const Exec& exec, size_type rows,
                                                 const offset_type* row_ptr);

/// Codes of validate().
enum class CsrDefect : int {
  none = 0,
  decreasing_row_ptr = 1,
  column_out_of_range = 2,
  duplicate_column = 3,
  non_finite_value = 4,
  row_ptr_out_of_range = 5,
};

/// Returns row * 8 + code of the first defective row (smallest row index),
/// or -1 when the matrix is well formed. row_ptr must have rows+1 entries;
/// row_ptr[0] == 0 and row_ptr[rows] == nnz are checked by the caller.
template <class Exec, class T>
size_type validate(const Exec& exec, size_type rows, size_type cols, size_type nnz,
                   const offset_type* row_ptr, const index_type* col_idx, const T* values);

}  // namespace strata::kernels::csr
