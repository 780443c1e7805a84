#pragma once
// Kernel contract for block CSR matrices (strata/matrix/bsr.hpp): r x c
// dense row-major blocks, block k of block row I at values[k*r*c ..],
// block column col_idx[k]. The public entry points (src/core/bsr.cpp) have
// checked locations, sizes and block sizes.

#include "kernels/matrix/csr_kernels.hpp"
#include "strata/core/executor.hpp"
#include "strata/core/types.hpp"
#include "strata/matrix/bsr.hpp"
#include "strata/matrix/csr.hpp"

namespace strata::kernels::bsr {

/// Whether spmv has a compiled fast path for r x c blocks: 1, 2, 3, 4, 6
/// square, and 2x3, 3x2, 3x6, 6x3 (the prolongator and restriction blocks
/// of smoothed aggregation for 2D and 3D elasticity). Other sizes run a
/// generic kernel with run-time loops.
constexpr bool has_fast_path(int r, int c) {
  return (r == c && (r == 1 || r == 2 || r == 3 || r == 4 || r == 6)) || (r == 2 && c == 3) ||
         (r == 3 && c == 2) || (r == 3 && c == 6) || (r == 6 && c == 3);
}

/// y = alpha A x + beta y for the (block_rows*r) x (cols) BSR matrix; beta
/// == 0 overwrites y. Scalar row (I, a) is
///   sum over the blocks k of block row I, in order, and c = 0..c-1 of
///   values[k*r*c + a*c + c'] * x[col_idx[k]*c + c'].
/// The host sums in exactly that order (so it matches the host CSR SpMV of
/// to_csr(A) bit for bit); CUDA splits a block row between the lanes of a
/// group, each summing whole slices (one row of a block), then combines them by a
/// fixed shuffle tree: repeatable, but a different rounding from the host.
template <class Exec, class T>
void spmv(const Exec& exec, size_type block_rows, size_type num_blocks, int r, int c,
          const offset_type* row_ptr, const index_type* col_idx, const T* values, T alpha,
          const T* x, T beta, T* y);

/// One point-block Jacobi sweep, the SpMV with an epilogue, for square b x b
/// blocks with a fast path (b = 1, 2, 3, 4, 6): x = x0 + omega D^-1 (rhs -
/// A x0), D^-1 the inverted diagonal blocks (kernels/matrix/
/// block_diagonal_kernels.hpp layout: b*b row-major values per block row).
/// The b residuals of block row I are summed in the order of spmv (so the
/// host's equal rhs - spmv to the bit), then the inverse is applied to them
/// (j = 0..b-1 in order). x, x0 and rhs distinct. The shared body takes a
/// thread per block row.
template <class Exec, class T>
void jacobi_sweep(const Exec& exec, size_type block_rows, size_type num_blocks, int b,
                  const offset_type* row_ptr, const index_type* col_idx, const T* values,
                  const T* inverse, T omega, const T* rhs, const T* x0, T* x);
/// The same on the GPU with the lanes of spmv's tuned kernel (a group of
/// lanes per block row summing block-row slices), its epilogue sharing the
/// b residuals of the group by shuffles (backend/cuda/matrix/bsr_kernels.cu).
template <class T>
void jacobi_sweep(const CudaExec& exec, size_type block_rows, size_type num_blocks, int b,
                  const offset_type* row_ptr, const index_type* col_idx, const T* values,
                  const T* inverse, T omega, const T* rhs, const T* x0, T* x);

/// One scalar Jacobi sweep, the SpMV with another epilogue, for the same
/// square block sizes: x = x0 + d .* (rhs - A x0), d one entry per scalar
/// row (the l1 or plain inverted diagonal of the scalar smoothers run on a
/// block matrix). The residuals are summed as in jacobi_sweep; x, x0 and
/// rhs distinct.
template <class Exec, class T>
void diagonal_sweep(const Exec& exec, size_type block_rows, size_type num_blocks, int b,
                    const offset_type* row_ptr, const index_type* col_idx, const T* values,
                    const T* d, const T* rhs, const T* x0, T* x);
/// The same on the GPU, with spmv's tuned kernel (backend/cuda/matrix/bsr_kernels.cu).
template <class T>
void diagonal_sweep(const CudaExec& exec, size_type block_rows, size_type num_blocks, int b,
                    const offset_type* row_ptr, const index_type* col_idx, const T* values,
                    const T* d, const T* rhs, const T* x0, T* x);

/// Returns I * 8 + code (kernels::csr::CsrDefect) of the first defective
/// block row I, or -1 when the matrix is well formed: row_ptr in [0,
/// num_blocks] and non-decreasing, block columns in [0, block_cols) without
/// repeats in a block row, block*num_blocks finite values.
template <class Exec, class T>
size_type validate(const Exec& exec, size_type block_rows, size_type block_cols,
                   size_type num_blocks, int block, const offset_type* row_ptr,
                   const index_type* col_idx, const T* values);

/// The r x c block form of a CSR matrix (rows % r == 0, cols % c == 0, no
/// duplicate columns in a row): block (I, J) is stored when any entry of it
/// is, the others are zero; block columns ascending. Built like an assembly:
/// a stable sort of the entries on (I, J), the segments of equal keys become
/// the blocks, and every entry is scattered into its block.
template <class Exec, class T>
BsrMatrix<T> from_csr(const Exec& exec, size_type rows, size_type cols, const offset_type* row_ptr,
                      const index_type* col_idx, const T* values, size_type nnz, int r, int c);

/// The CSR form: every entry of every block, scalar row I*r + a holding the
/// row a of each block of block row I, in block order.
template <class Exec, class T>
CsrMatrix<T> to_csr(const Exec& exec, size_type block_rows, size_type block_cols, int r, int c,
                    const offset_type* row_ptr, const index_type* col_idx, const T* values,
                    size_type num_blocks);

/// A^T: the block pattern transposed by a stable sort of the block indices
/// on their block column (so each new block row lists its blocks in
/// ascending old block row), then every block transposed, c x r.
template <class Exec, class T>
BsrMatrix<T> transpose(const Exec& exec, size_type block_rows, size_type block_cols, int r, int c,
                       const offset_type* row_ptr, const index_type* col_idx, const T* values,
                       size_type num_blocks);

/// The host's transpose, the same matrix by counting
/// (transpose::transpose_pattern) in O(blocks + block_cols), where the
/// stable sort above is a merge sort of all blocks.
template <class T>
BsrMatrix<T> transpose(const HostExec& exec, size_type block_rows, size_type block_cols, int r,
                       int c, const offset_type* row_ptr, const index_type* col_idx,
                       const T* values, size_type num_blocks);
/// The host's transpose that also writes source[p] = the position in A of
/// A^T's block p (num_blocks entries), so that a value-only refresh of A^T
/// is a gather (smoothed aggregation's R = P^T).
template <class T>
BsrMatrix<T> transpose_with_source(const HostExec& exec, size_type block_rows, size_type block_cols,
                                   int r, int c, const offset_type* row_ptr,
                                   const index_type* col_idx, const T* values, size_type num_blocks,
                                   offset_type* source);

}  // namespace strata::kernels::bsr
