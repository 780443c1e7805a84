#pragma once
/// \file
/// Block compressed sparse row matrices with independent row and column
/// block sizes, their SpMV, conversions to and from CSR, and the explicit
/// transpose.
///
/// Why blocks: systems from vector PDEs (elasticity: 3 displacements per
/// node) have their nonzeros in dense r x c blocks sharing one column
/// index. Storing the blocks removes most of the index data (one 32-bit
/// index per 9 values for 3x3 instead of one per value), so the bandwidth
/// bound kernels move less. Why rectangular: smoothed aggregation for 3D
/// elasticity keeps 6 rigid-body modes per aggregate, so its prolongator
/// has 3x6 blocks and the restriction 6x3 (the blocked GAMG paper); square
/// block formats (cuSPARSE, Ginkgo's Fbcsr) cannot hold them.

#include <string>
#include <utility>

#include "strata/core/array.hpp"
#include "strata/matrix/csr.hpp"
#include "strata/matrix/vector.hpp"

namespace strata {

/// A sparse matrix of block_rows() x block_cols() blocks, each a dense
/// row_block_size() x col_block_size() block stored row-major, on one
/// executor.
///
/// Layout, as CsrMatrix one level up: block row I holds the blocks
/// row_ptr[I] .. row_ptr[I+1]-1; block k has block column col_idx[k] and
/// its values at values[k*r*c .. (k+1)*r*c), entry (a, b) of the block at
/// offset a*c + b. Block row offsets are 64-bit, block column indices
/// 32-bit (cols() must fit a 32-bit index, so that a BSR matrix always
/// converts to CSR). Block columns within a block row need not be sorted
/// but may not repeat. Entries of a stored block that are zero are stored
/// (and count in nnz()).
template <class T>
class BsrMatrix {
 public:
  using value_type = T;

  /// An empty 0 x 0 host matrix of 1x1 blocks.
  BsrMatrix() : row_ptr_(Executor::host(), 1, offset_type{0}) {}

  /// Takes ownership of the three arrays, which must all live on one
  /// executor. Checks sizes (row_ptr has block_rows+1 entries, values has
  /// r*c entries per block index, block sizes >= 1, cols() fits a 32-bit
  /// index); the content is checked by validate().
  BsrMatrix(size_type block_rows, size_type block_cols, int row_block_size, int col_block_size,
            Array<offset_type> row_ptr, Array<index_type> col_idx, Array<T> values);

  size_type block_rows() const noexcept { return block_rows_; }
  size_type block_cols() const noexcept { return block_cols_; }
  int row_block_size() const noexcept { return row_block_size_; }
  int col_block_size() const noexcept { return col_block_size_; }
  /// Scalar dimensions.
  size_type rows() const noexcept { return block_rows_ * row_block_size_; }
  size_type cols() const noexcept { return block_cols_ * col_block_size_; }
  /// Stored blocks.
  size_type num_blocks() const noexcept { return col_idx_.size(); }
  /// Stored scalar entries (zeros inside stored blocks included).
  size_type nnz() const noexcept { return values_.size(); }
  const Executor& executor() const noexcept { return row_ptr_.executor(); }
  Location location() const noexcept { return row_ptr_.location(); }

  const Array<offset_type>& row_ptr() const noexcept { return row_ptr_; }
  const Array<index_type>& col_idx() const noexcept { return col_idx_; }
  const Array<T>& values() const noexcept { return values_; }
  /// Values may change in place; the pattern may not.
  Array<T>& values() noexcept { return values_; }

  /// A copy on `target`.
  BsrMatrix to(const Executor& target) const;
  BsrMatrix clone() const { return to(executor()); }

  /// Checks the content: row_ptr[0] == 0, non-decreasing, row_ptr[block_rows]
  /// == num_blocks, block columns in [0, block_cols) and not repeated within
  /// a block row, finite values. Throws invalid_argument naming the first
  /// bad block row.
  void validate() const;

 private:
  size_type block_rows_ = 0;
  size_type block_cols_ = 0;
  int row_block_size_ = 1;
  int col_block_size_ = 1;
  Array<offset_type> row_ptr_;
  Array<index_type> col_idx_;
  Array<T> values_;
};

/// y = alpha * A * x + beta * y, on the executor where A lives (x and y must
/// live there too). With beta == 0, y is overwritten (NaN in y is ignored).
/// Block sizes 1, 2, 3, 4, 6 (square) and 2x3, 3x2, 3x6, 6x3 run compiled
/// fast paths; other sizes a generic kernel. Each scalar row is summed in a
/// fixed order, so a run repeats bit for bit; host and device may differ by
/// rounding.
template <class T>
void spmv(T alpha, const BsrMatrix<T>& A, const Vector<T>& x, T beta, Vector<T>& y);

/// y = A * x
template <class T>
void spmv(const BsrMatrix<T>& A, const Vector<T>& x, Vector<T>& y) {
  spmv(T{1}, A, x, T{0}, y);
}

/// A as a BSR matrix of row_block_size x col_block_size blocks, on A's
/// executor. A block is stored when any of its scalar entries is stored in
/// A; its other entries become explicit zeros. Block columns come out
/// ascending. Throws invalid_argument unless the block sizes are >= 1 and
/// divide A.rows() and A.cols().
template <class T>
BsrMatrix<T> to_bsr(const CsrMatrix<T>& A, int row_block_size, int col_block_size);

/// to_bsr(A, block_size, block_size).
template <class T>
BsrMatrix<T> to_bsr(const CsrMatrix<T>& A, int block_size) {
  return to_bsr(A, block_size, block_size);
}

/// A as a CSR matrix on A's executor: every entry of every stored block,
/// zeros included (so to_csr(to_bsr(B, r, c)) has B's entries plus the
/// zero fill of the touched blocks). Within a row, columns follow the block
/// order of the block row.
template <class T>
CsrMatrix<T> to_csr(const BsrMatrix<T>& A);

/// A^T explicitly, on A's executor: an R x C block matrix of r x c blocks
/// becomes a C x R block matrix of c x r blocks, each block transposed. The
/// hypre paper stores R = P^T this way rather than multiplying by a
/// transpose, because a transposed SpMV scatters (atomics, no fixed order)
/// where a plain one gathers. Deterministic: in each block row of the result
/// the blocks come in ascending block column order (A's block rows), whatever
/// the order in A.
template <class T>
BsrMatrix<T> transpose(const BsrMatrix<T>& A);

}  // namespace strata
