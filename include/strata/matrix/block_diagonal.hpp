#pragma once
/// \file
/// The inverted diagonal blocks of a block matrix: the D^-1 of point-block
/// Jacobi (PETSc's PCPBJACOBI), of the block smoothers of the blocked GAMG
/// paper, and of the prolongator smoothing P = (I - omega D^-1 A) P_tent of
/// smoothed aggregation for systems.
///
/// Why blocks and not the scalar diagonal: in elasticity the unknowns of one
/// node (x, y, z displacements) couple strongly with each other, and a
/// scalar D^-1 ignores that coupling. Inverting each node's b x b block
/// makes Jacobi, Chebyshev and the prolongator smoothing see the node as one
/// unknown, which is what the smoothed-aggregation theory for systems
/// assumes (the smoothed prolongator keeps the rigid-body modes only when D
/// is block diagonal by node).

#include "strata/core/array.hpp"
#include "strata/matrix/bsr.hpp"
#include "strata/matrix/vector.hpp"

namespace strata {

/// Which block diagonal BlockDiagonal::inverse inverts.
enum class BlockDiagonalKind {
  /// D_I = A_II, the diagonal block of block row I (point-block Jacobi).
  plain,
  /// D_I = A_II + diag(s_a), s_a = sum of |a_ij| over the entries of scalar
  /// row a of block row I that lie OUTSIDE the diagonal block: the block
  /// l1-Jacobi of Baker, Falgout, Kolev and Yang ("Multigrid smoothers for
  /// ultraparallel computing", 2011), hypre's l1 smoother with one block per
  /// node. Why: for symmetric positive definite A, 2 D - A = A_BB + S +
  /// (S - A_off) where A_BB (the diagonal blocks) is SPD, S >= 0 and S -
  /// A_off is diagonally dominant with nonnegative diagonal, hence positive
  /// semidefinite; so 2 D - A is SPD and x <- x + D^-1 (b - A x) converges in
  /// the A-norm without a damping factor, which plain block Jacobi does not
  /// (it needs omega < 2 / lambda_max(D^-1 A)).
  l1,
};

/// The inverses of the square b x b diagonal blocks of a BSR matrix, one per
/// block row, each row-major, on the matrix's executor: values()[I*b*b +
/// a*b + j] is entry (a, j) of D_I^-1. Built on the executor where the
/// matrix lives (setup stays on the device), by one small Gauss-Jordan
/// elimination with partial pivoting per block row.
template <class T>
class BlockDiagonal {
 public:
  using value_type = T;

  /// No blocks, on the host (a placeholder to assign to).
  BlockDiagonal() = default;

  /// The inverses of A's diagonal blocks (see BlockDiagonalKind). Throws
  /// invalid_argument when A's blocks are not square or A is not square in
  /// blocks, and naming the first block row (0-based) whose diagonal block
  /// is missing, holds a value that is not finite, or is singular (a pivot
  /// at or below 16 b eps times the block's largest entry in magnitude).
  static BlockDiagonal inverse(const BsrMatrix<T>& A,
                               BlockDiagonalKind kind = BlockDiagonalKind::plain);

  /// New values of A with the block structure of construction (same block
  /// size and block rows; the pattern may differ, the diagonal blocks are
  /// found again), for a value-only resetup: the storage is reused. Same
  /// errors as inverse(), and invalid_argument when the shape differs.
  void recompute(const BsrMatrix<T>& A);

  int block_size() const noexcept { return block_size_; }
  size_type block_rows() const noexcept { return block_rows_; }
  /// Scalar rows: block_rows() * block_size().
  size_type rows() const noexcept { return block_rows_ * block_size_; }
  BlockDiagonalKind kind() const noexcept { return kind_; }
  /// The inverted blocks (see the class comment).
  const Array<T>& values() const noexcept { return values_; }
  const Executor& executor() const noexcept { return values_.executor(); }

  /// The inverted blocks rounded to single precision, on the same
  /// executor (the smoothers of the single-precision AMG cycle). Throws
  /// invalid_argument when a value lies beyond float's range.
  BlockDiagonal<float> to_single() const;

  /// y = D^-1 x (x and y on executor(), rows() entries, separate storage).
  void apply(const Vector<T>& x, Vector<T>& y) const { apply(T{1}, x, T{0}, y); }
  /// y = alpha D^-1 x + beta y (separate storage); with beta == 0 y is not
  /// read (NaN in it is ignored).
  void apply(T alpha, const Vector<T>& x, T beta, Vector<T>& y) const;

 private:
  template <class U>
  friend class BlockDiagonal;
  BlockDiagonal(size_type block_rows, int block_size, BlockDiagonalKind kind, Array<T> values)
      : block_rows_(block_rows), block_size_(block_size), kind_(kind), values_(std::move(values)) {}

  size_type block_rows_ = 0;
  int block_size_ = 1;
  BlockDiagonalKind kind_ = BlockDiagonalKind::plain;
  Array<T> values_;
};

}  // namespace strata
