#pragma once
/// \file
/// A distributed matrix as a level operator, so that everything written
/// against the level-operator contract runs on it unchanged: the Krylov
/// methods (with a DistributedReduction for their sums), the Jacobi,
/// l1-Jacobi and Chebyshev smoothers and the spectral estimates.
///
/// Vectors are this process's blocks: rows() and cols() are the local
/// sizes (local_rows(), local_cols() of the matrix), and a Krylov method
/// that sees only them, and sums only through its Reduction, is a
/// distributed method (AMGCL's InnerProduct idea). Every apply() is
/// collective: all processes call it together, as they do in a solve.
///
/// DistributedBsrOperator is the same for a DistributedBsrMatrix: a Krylov
/// method's operator on a block system (each SpMV reads one column index
/// per block), with the scalar smoothers' scalings over whole rows. AMG
/// coarsens the scalar form (to_csr), so a block level has no Galerkin
/// product of its own.

#include <memory>
#include <string>

#include "strata/distributed/bsr.hpp"
#include "strata/distributed/matrix.hpp"
#include "strata/distributed/rows.hpp"
#include "strata/solver/level_operator.hpp"

namespace strata {

template <class T>
class DistributedOperator final : public LevelOperator<T> {
 public:
  /// Shares ownership of A (invalid_argument when null).
  explicit DistributedOperator(std::shared_ptr<const DistributedCsrMatrix<T>> A);
  explicit DistributedOperator(DistributedCsrMatrix<T>&& A)
      : DistributedOperator(std::make_shared<const DistributedCsrMatrix<T>>(std::move(A))) {}

  const DistributedCsrMatrix<T>& matrix() const noexcept { return *A_; }
  const std::shared_ptr<const DistributedCsrMatrix<T>>& shared_matrix() const noexcept {
    return A_;
  }

  size_type rows() const override { return A_->local_rows(); }
  size_type cols() const override { return A_->local_cols(); }
  size_type global_row_begin() const override { return A_->row_partition().begin(); }
  const Executor& executor() const override { return A_->executor(); }
  /// "distributed CSR 1000x1000, 250 local rows, 1200 local nonzeros, 4 processes".
  std::string describe() const override;
  std::string kind() const override { return "distributed CSR"; }
  /// Entries stored on this process (both blocks).
  size_type nnz() const override { return A_->local_nnz(); }
  /// Over this process's rows, counting both blocks.
  std::pair<size_type, size_type> row_nnz_range() const override;

  using LevelOperator<T>::apply;
  void apply(T alpha, const Vector<T>& x, T beta, const Vector<T>& z, Vector<T>& y) const override {
    A_->apply(alpha, x, beta, z, y);
  }
  /// The scalings of the whole rows: the diagonal sits in the diagonal
  /// block, and the l1 norm of inverse_l1_norm adds the off-diagonal
  /// block's entries (parallel l1-Jacobi, Baker, Falgout, Kolev and Yang
  /// 2011). Collective: when a row anywhere has no usable diagonal, every
  /// process returns the first such row as a global index, so that all of
  /// them throw together in the smoother that asked.
  size_type scaling(DiagonalScaling kind, Vector<T>& d) const override;
  /// The diagonal block's product and dot fused (DistributedCsrMatrix::apply_dot).
  T apply_dot(const Vector<T>& x, Vector<T>& y) const override { return A_->apply_dot(x, y); }
  /// In one pass over each block (DistributedCsrMatrix::jacobi_sweep).
  void jacobi_sweep(const Vector<T>& d, const Vector<T>& b, const Vector<T>& x0,
                    Vector<T>& x) const override {
    A_->jacobi_sweep(d, b, x0, x);
  }

  bool distributed() const override { return true; }
  size_type global_rows() const override { return A_->global_rows(); }
  size_type global_cols() const override { return A_->global_cols(); }
  size_type global_nnz() const override { return A_->global_nnz(); }
  /// One allgather of the parts (through host memory for device vectors:
  /// the coarsest level's few hundred values).
  void gather_all(const Vector<T>& part, Vector<T>& whole) const override;

  /// The whole matrix, dense, on every process (collective): the coarsest
  /// level's redundant direct solve (see amg::Hierarchy).
  Array<T> to_dense() const override;
  /// R A P as two distributed products R (A P), each fetching the rows of
  /// its right operand that its left operand's columns reach on other
  /// processes (DistributedProduct); kept for value-only recompute. R and
  /// P must be DistributedOperators with A's partitions on the fine side
  /// (invalid_argument naming their kinds otherwise). The coarse operator
  /// is a DistributedOperator, its rows split like R's.
  std::unique_ptr<CoarseProduct<T>> galerkin(const LevelOperator<T>& R,
                                             const LevelOperator<T>& P) const override;
  /// The same with A's unknowns in nodes of `fine` and the coarse level's
  /// (P's columns) in nodes of `coarse`: both products multiply in blocks
  /// where the operands line up (ProductBlocks in strata/distributed/
  /// rows.hpp), as smoothed aggregation's operands do.
  std::unique_ptr<CoarseProduct<T>> galerkin(const LevelOperator<T>& R, const LevelOperator<T>& P,
                                             int fine, int coarse) const;
  std::shared_ptr<const LevelOperator<T>> clone() const override;

 private:
  std::shared_ptr<const DistributedCsrMatrix<T>> A_;
};

template <class T>
class DistributedBsrOperator final : public LevelOperator<T> {
 public:
  /// Shares ownership of A (invalid_argument when null).
  explicit DistributedBsrOperator(std::shared_ptr<const DistributedBsrMatrix<T>> A);
  explicit DistributedBsrOperator(DistributedBsrMatrix<T>&& A)
      : DistributedBsrOperator(std::make_shared<const DistributedBsrMatrix<T>>(std::move(A))) {}

  const DistributedBsrMatrix<T>& matrix() const noexcept { return *A_; }

  /// Scalar sizes of this process's blocks (what the vectors have).
  size_type rows() const override { return A_->local_rows(); }
  size_type cols() const override { return A_->local_cols(); }
  size_type global_row_begin() const override { return A_->row_partition().begin(); }
  const Executor& executor() const override { return A_->executor(); }
  /// DistributedBsrMatrix::describe().
  std::string describe() const override { return A_->describe(); }
  /// "distributed BSR 3x3".
  std::string kind() const override;
  size_type nnz() const override { return A_->local_nnz(); }
  /// Over this process's rows, counting both blocks (stored block entries).
  std::pair<size_type, size_type> row_nnz_range() const override;

  using LevelOperator<T>::apply;
  void apply(T alpha, const Vector<T>& x, T beta, const Vector<T>& z, Vector<T>& y) const override {
    A_->apply(alpha, x, beta, z, y);
  }
  /// As DistributedOperator::scaling, over the expanded rows of both
  /// blocks (square blocks and columns split like the rows, else
  /// dimension_mismatch). Collective.
  size_type scaling(DiagonalScaling kind, Vector<T>& d) const override;

  bool distributed() const override { return true; }
  size_type global_rows() const override { return A_->global_rows(); }
  size_type global_cols() const override { return A_->global_cols(); }
  size_type global_nnz() const override { return A_->global_nnz(); }
  /// As DistributedOperator::gather_all.
  void gather_all(const Vector<T>& part, Vector<T>& whole) const override;
  /// The whole matrix, dense, on every process (collective), through the
  /// scalar form.
  Array<T> to_dense() const override;
  /// Throws invalid_argument: a distributed block level has no Galerkin
  /// product (build the hierarchy from to_csr() of the matrix).
  std::unique_ptr<CoarseProduct<T>> galerkin(const LevelOperator<T>& R,
                                             const LevelOperator<T>& P) const override;
  std::shared_ptr<const LevelOperator<T>> clone() const override;

 private:
  std::shared_ptr<const DistributedBsrMatrix<T>> A_;
};

}  // namespace strata
