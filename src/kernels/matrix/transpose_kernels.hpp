#pragma once
// Kernel contract of the explicit CSR transpose (strata/matrix/transpose.hpp).
// The body (transpose_kernels.ipp) is written once against the parallel
// primitives; the host backend has its own counting version (declared below),
// which gives the same matrix.

#include "strata/core/executor.hpp"
#include "strata/core/types.hpp"
#include "strata/matrix/csr.hpp"

namespace strata::kernels::transpose {

/// B = A^T for the rows x cols CSR matrix A = (row_ptr, col_idx, values) with
/// nnz entries, built on `exec`:
///   1. (key, position) = (col_idx[k], k) sorted stably by key: the entries of
///      column c of A, in the order they appear in A, which is row order, so
///      each row of B comes out with ascending columns;
///   2. B.row_ptr[c] = number of keys < c (a binary search per column);
///   3. B.col_idx[k] = the row of A holding position[k] (a binary search in
///      row_ptr), B.values[k] = values[position[k]].
/// Pure data movement: host and device agree exactly. rows must fit
/// index_type (checked by the caller).
template <class Exec, class T>
CsrMatrix<T> transpose_csr(const Exec& exec, size_type rows, size_type cols, size_type nnz,
                           const offset_type* row_ptr, const index_type* col_idx, const T* values);

/// The host's transpose, the same result by counting: entries per column,
/// their offsets by a prefix sum, then A's entries placed in row order
/// (O(nnz + cols) in one thread, where the stable sort above costs a
/// parallel merge sort of nnz pairs: 98 of 348 ms of a 64^3 classical AMG
/// interpolation on one thread went to it).
template <class T>
CsrMatrix<T> transpose_csr(const HostExec& exec, size_type rows, size_type cols, size_type nnz,
                           const offset_type* row_ptr, const index_type* col_idx, const T* values);

/// The host's counting transpose of a pattern alone: t_ptr (cols + 1
/// entries) and t_col (nnz) of A^T, and source[p] = the position in A of
/// A^T's entry p, so that any per-entry data follows (the block transpose
/// moves blocks by it; smoothed aggregation keeps it to refresh R = P^T).
void transpose_pattern(const HostExec& exec, size_type rows, size_type cols, size_type nnz,
                       const offset_type* row_ptr, const index_type* col_idx, offset_type* t_ptr,
                       index_type* t_col, offset_type* source);

}  // namespace strata::kernels::transpose
