#pragma once
/// \file
/// The level-operator contract: what an assembled operator provides so that
/// it can be a level of an AMG hierarchy, be smoothed (Jacobi, l1-Jacobi,
/// Chebyshev), have its spectrum estimated, be the coarsest level's direct
/// solve, and form the Galerkin product R A P with a value-only recompute.
///
/// The hierarchy, the cycles, the smoothers and the spectral estimates see
/// only this contract, so a new kind of level (a block matrix today, a
/// distributed matrix with MPI, a structured-grid operator) plugs in without
/// touching them, and a coarsening may hand the next level a different kind
/// than its own (scalar fine level, block coarse levels). CsrOperator and
/// BsrOperator are the kinds the library ships.
///
/// Why run-time polymorphism rather than a template over the matrix type:
/// levels of one hierarchy may differ in kind, so a compile-time parameter
/// would need a closed variant (and a kind defined outside the library could
/// not join it); each virtual call here launches a whole kernel, so its cost
/// is nothing beside the work; and the hierarchy and smoothers are compiled
/// once per value type instead of once per combination of level kinds, which
/// keeps the CUDA build light.
///
/// Ownership: operators share ownership of their matrices
/// (std::shared_ptr), so a caller may drop its handle as soon as it has made
/// the operator; nothing here needs the caller's objects to outlive it.

#include <memory>
#include <string>
#include <utility>

#include "strata/matrix/block_diagonal.hpp"
#include "strata/matrix/bsr.hpp"
#include "strata/matrix/csr.hpp"
#include "strata/solver/diagonal_scaling.hpp"
#include "strata/solver/operator.hpp"

namespace strata {

template <class T>
class LevelOperator;

/// A coarse operator A_c = R A P, kept so that a value-only resetup can
/// recompute it on the stored patterns.
template <class T>
class CoarseProduct {
 public:
  virtual ~CoarseProduct() = default;
  /// A_c. The object stays the same across recompute() (its values change
  /// in place), so holders of the pointer see the new values.
  virtual std::shared_ptr<const LevelOperator<T>> result() const = 0;
  /// New values of R, A and P with the patterns (and kinds) of construction.
  virtual void recompute(const LevelOperator<T>& R, const LevelOperator<T>& A,
                         const LevelOperator<T>& P) = 0;
  /// recompute() for a caller that vouches for the patterns of R and P (and
  /// of A, unless `check_a`): an AMG hierarchy whose coarsening keeps its
  /// transfers' patterns (Coarsening::refresh_keeps_patterns()). Skips their
  /// fingerprints where the product can (GalerkinProduct::recompute_trusted);
  /// the default checks everything.
  virtual void recompute_trusted(const LevelOperator<T>& R, const LevelOperator<T>& A,
                                 const LevelOperator<T>& P, bool check_a) {
    (void)check_a;
    recompute(R, A, P);
  }
  /// Frees intermediates that recompute() can rebuild from the patterns
  /// (the lean resetup of amg::HierarchyParams); recompute() then rebuilds
  /// them each time, and frees them again. The default keeps everything.
  virtual void release_intermediates() {}
};

/// The contract of one level (see the file comment). A LevelOperator lives
/// on one executor and takes vectors there; its scalar sizes are rows() and
/// cols(). Vector layout: vectors are plain scalar vectors of rows() (or
/// cols()) entries whatever the kind; a block kind numbers unknown a of
/// block row I as I * r + a, so levels of different kinds exchange vectors
/// without conversion. Implementations check operand locations and sizes
/// like the matrix functions they call (location_mismatch,
/// dimension_mismatch).
template <class T>
class LevelOperator : public LinearOperator<T> {
 public:
  using LinearOperator<T>::apply;

  /// Kind for messages and summaries ("CSR", "BSR 3x3", ...).
  virtual std::string kind() const = 0;
  /// Stored scalar entries (explicit zeros of stored blocks included): what
  /// operator complexity counts. A distributed kind counts this process's.
  virtual size_type nnz() const = 0;
  /// The global index of rows()'s first row: 0 for an operator that holds
  /// all its rows, the first owned row for a distributed one. What is made
  /// from an index (the spectral estimates' hashed start vectors, later
  /// PMIS weights) hashes this global index, so the result does not depend
  /// on how the rows are split over processes.
  virtual size_type global_row_begin() const { return 0; }
  /// Whether the operator's rows are split over processes. A distributed
  /// kind says true on every process, even on one, so that every process
  /// takes the same path through collective steps (the coarse solve's
  /// gather). What is then global: the sizes below, to_dense().
  virtual bool distributed() const { return false; }
  /// Rows, columns and stored entries over all processes (rows(), cols()
  /// and nnz() for an operator that holds all its rows). The hierarchy
  /// decides where to stop coarsening by these, so every process decides
  /// alike.
  virtual size_type global_rows() const { return this->rows(); }
  virtual size_type global_cols() const { return this->cols(); }
  virtual size_type global_nnz() const { return nnz(); }
  /// Collective for a distributed kind: the whole vector (global_rows()
  /// entries on executor()) from every process's part (rows() entries),
  /// on every process. The coarsest level's direct solve is redundant
  /// (every process applies the whole inverse) and needs it. The default
  /// copies.
  virtual void gather_all(const Vector<T>& part, Vector<T>& whole) const {
    copy(part.values(), whole.values());
  }
  /// {shortest, longest} row in stored scalar entries ({0, 0} without rows).
  virtual std::pair<size_type, size_type> row_nnz_range() const = 0;

  /// y = alpha A x + beta z. z may be y; x must be neither. With beta == 0,
  /// z is not read (NaN in it is ignored).
  virtual void apply(T alpha, const Vector<T>& x, T beta, const Vector<T>& z,
                     Vector<T>& y) const = 0;
  /// y = A x.
  void apply(const Vector<T>& x, Vector<T>& y) const override { apply(T{1}, x, T{0}, y, y); }
  /// r = b - A x (r may be b; x must not be r). A kind may fuse it.
  virtual void residual(const Vector<T>& b, const Vector<T>& x, Vector<T>& r) const {
    apply(T{-1}, x, T{1}, b, r);
  }

  /// d = the scaling `kind` of every row (square operators). Returns the
  /// first row whose scaling cannot be formed (a zero, missing or non-finite
  /// diagonal entry or row norm; a diagonal entry that is not positive for
  /// inverse_sqrt_diagonal), or -1 when every row could. d has rows()
  /// entries on executor().
  virtual size_type scaling(DiagonalScaling kind, Vector<T>& d) const = 0;

  /// One Jacobi sweep from x0 into x: x = x0 + d .* (b - A x0) (x and x0 in
  /// separate storage). The default takes three passes; a kind may do it in
  /// one pass over A (CSR does).
  virtual void jacobi_sweep(const Vector<T>& d, const Vector<T>& b, const Vector<T>& x0,
                            Vector<T>& x) const {
    residual(b, x0, x);
    pointwise_multiply(d, x, x);
    axpy(T{1}, x0, x);
  }

  /// Point-block smoothing (block Jacobi, block l1-Jacobi, Chebyshev in
  /// D^-1 A with D block diagonal; PETSc's PCPBJACOBI). A kind whose
  /// unknowns come in nodes of b (block matrices) says so here and builds
  /// the inverted b x b diagonal blocks; the smoothers then precondition by
  /// them instead of by the scalar diagonal. Why in the contract: the
  /// smoothers see only this interface, and only the kind knows where its
  /// diagonal blocks are.
  ///
  /// The size b of the square diagonal blocks, or 0 when the kind has none
  /// (the default: scalar kinds, rectangular blocks).
  virtual int diagonal_block_size() const { return 0; }
  /// The inverted diagonal blocks (BlockDiagonal::inverse), on executor().
  /// Only for diagonal_block_size() > 0: the default throws
  /// invalid_argument naming the kind. Same errors as BlockDiagonal::inverse.
  virtual BlockDiagonal<T> block_diagonal(BlockDiagonalKind kind) const {
    (void)kind;
    throw invalid_argument("LevelOperator::block_diagonal: a " + this->kind() +
                           " operator has no square diagonal blocks");
  }
  /// One point-block Jacobi sweep from x0 into x:
  /// x = x0 + omega D^-1 (b - A x0), D^-1 from block_diagonal() (x and x0 in
  /// separate storage). The default takes three passes; BSR does it in one
  /// pass over A for the compiled block sizes.
  virtual void block_jacobi_sweep(const BlockDiagonal<T>& inverse, T omega, const Vector<T>& b,
                                  const Vector<T>& x0, Vector<T>& x) const {
    Vector<T> r(x.executor(), b.size());
    residual(b, x0, r);
    inverse.apply(omega, r, T{0}, x);
    axpy(T{1}, x0, x);
  }

  /// The operator as a dense column-major rows() x cols() array on
  /// executor(), for the direct solve of the coarsest level (called only
  /// for small levels). A distributed kind returns the whole operator
  /// (global_rows() x global_cols()) on every process (collective).
  virtual Array<T> to_dense() const = 0;

  /// A_c = R A P with this operator as A, kept for value-only recompute.
  /// Throws invalid_argument when this kind cannot multiply with the kinds
  /// of R and P (naming them).
  virtual std::unique_ptr<CoarseProduct<T>> galerkin(const LevelOperator<T>& R,
                                                     const LevelOperator<T>& P) const = 0;

  /// A deep copy on the same executor (a coarse operator kept without the
  /// product that made it).
  virtual std::shared_ptr<const LevelOperator<T>> clone() const = 0;

  /// A copy with the values rounded to single precision, on the same
  /// executor: the level as the single-precision AMG cycle holds it
  /// (HierarchyParams::cycle_precision). share_pattern: the copy shares
  /// this operator's pattern (Array::alias, keeping this operator's matrix
  /// alive) and costs only its values; false copies the pattern too, so
  /// that this operator can be freed. Throws invalid_argument when a value
  /// lies beyond float's range, and (the default) for a kind that has no
  /// single-precision form, naming it (distributed kinds: their halo
  /// exchange is double only).
  virtual std::shared_ptr<const LevelOperator<float>> to_single(bool share_pattern) const {
    (void)share_pattern;
    throw invalid_argument("a " + kind() + " level operator has no single-precision form (" +
                           this->describe() + "); the single-precision AMG cycle takes CSR and " +
                           "BSR levels on one process");
  }
};

/// A CSR matrix as a level operator (and as the operator of a Krylov solve).
template <class T>
class CsrOperator final : public LevelOperator<T> {
 public:
  /// Shares ownership of A (invalid_argument when null).
  explicit CsrOperator(std::shared_ptr<const CsrMatrix<T>> A);
  /// Takes A over.
  explicit CsrOperator(CsrMatrix<T>&& A)
      : CsrOperator(std::make_shared<const CsrMatrix<T>>(std::move(A))) {}

  const CsrMatrix<T>& matrix() const noexcept { return *A_; }
  const std::shared_ptr<const CsrMatrix<T>>& shared_matrix() const noexcept { return A_; }

  size_type rows() const override { return A_->rows(); }
  size_type cols() const override { return A_->cols(); }
  const Executor& executor() const override { return A_->executor(); }
  std::string describe() const override;
  std::string kind() const override { return "CSR"; }
  size_type nnz() const override { return A_->nnz(); }
  std::pair<size_type, size_type> row_nnz_range() const override;

  using LevelOperator<T>::apply;
  void apply(const Vector<T>& x, Vector<T>& y) const override { spmv(*A_, x, y); }
  void apply(T alpha, const Vector<T>& x, T beta, const Vector<T>& z, Vector<T>& y) const override {
    spmv(alpha, *A_, x, beta, z, y);
  }
  T apply_dot(const Vector<T>& x, Vector<T>& y) const override { return spmv_dot(*A_, x, y); }
  void residual(const Vector<T>& b, const Vector<T>& x, Vector<T>& r) const override {
    strata::residual(*A_, b, x, r);
  }
  size_type scaling(DiagonalScaling kind, Vector<T>& d) const override;
  void jacobi_sweep(const Vector<T>& d, const Vector<T>& b, const Vector<T>& x0,
                    Vector<T>& x) const override;
  Array<T> to_dense() const override;
  std::unique_ptr<CoarseProduct<T>> galerkin(const LevelOperator<T>& R,
                                             const LevelOperator<T>& P) const override;
  std::shared_ptr<const LevelOperator<T>> clone() const override;
  std::shared_ptr<const LevelOperator<float>> to_single(bool share_pattern) const override;

 private:
  std::shared_ptr<const CsrMatrix<T>> A_;
};

/// A block CSR matrix (independent row and column block sizes) as a level
/// operator. Vectors are scalar (rows() entries), blocks contiguous.
template <class T>
class BsrOperator final : public LevelOperator<T> {
 public:
  /// Shares ownership of A (invalid_argument when null).
  explicit BsrOperator(std::shared_ptr<const BsrMatrix<T>> A);
  /// Takes A over.
  explicit BsrOperator(BsrMatrix<T>&& A)
      : BsrOperator(std::make_shared<const BsrMatrix<T>>(std::move(A))) {}

  const BsrMatrix<T>& matrix() const noexcept { return *A_; }
  const std::shared_ptr<const BsrMatrix<T>>& shared_matrix() const noexcept { return A_; }

  size_type rows() const override { return A_->rows(); }
  size_type cols() const override { return A_->cols(); }
  const Executor& executor() const override { return A_->executor(); }
  std::string describe() const override;
  std::string kind() const override;
  size_type nnz() const override { return A_->nnz(); }
  std::pair<size_type, size_type> row_nnz_range() const override;

  using LevelOperator<T>::apply;
  void apply(const Vector<T>& x, Vector<T>& y) const override { spmv(*A_, x, y); }
  void apply(T alpha, const Vector<T>& x, T beta, const Vector<T>& z, Vector<T>& y) const override;
  /// Square blocks only (invalid_argument otherwise): the diagonal entries
  /// sit in the diagonal blocks.
  size_type scaling(DiagonalScaling kind, Vector<T>& d) const override;
  /// The block size for square blocks of a matrix square in blocks, else 0.
  int diagonal_block_size() const override;
  BlockDiagonal<T> block_diagonal(BlockDiagonalKind kind) const override;
  /// In one pass over A for the compiled square block sizes (1, 2, 3, 4,
  /// 6), as CSR does: the scalar smoothers (Jacobi, l1-Jacobi) on a block
  /// level would otherwise take three passes per sweep and lose what the
  /// blocks save in the SpMV. The default's three passes for other blocks.
  void jacobi_sweep(const Vector<T>& d, const Vector<T>& b, const Vector<T>& x0,
                    Vector<T>& x) const override;
  /// In one pass over A (a thread per block row) for the compiled block
  /// sizes (1, 2, 3, 4, 6), the default's three passes otherwise.
  void block_jacobi_sweep(const BlockDiagonal<T>& inverse, T omega, const Vector<T>& b,
                          const Vector<T>& x0, Vector<T>& x) const override;
  Array<T> to_dense() const override;
  std::unique_ptr<CoarseProduct<T>> galerkin(const LevelOperator<T>& R,
                                             const LevelOperator<T>& P) const override;
  std::shared_ptr<const LevelOperator<T>> clone() const override;
  std::shared_ptr<const LevelOperator<float>> to_single(bool share_pattern) const override;

 private:
  std::shared_ptr<const BsrMatrix<T>> A_;
};

/// A_c = R A P for the kinds the library ships (each of R, A, P a
/// CsrOperator or a BsrOperator): two row-wise sparse products R (A P) when
/// all three are CSR (GalerkinProduct<CsrMatrix>, A_c CSR); otherwise two
/// blocked products (GalerkinProduct<BsrMatrix>, bsr_spgemm.hpp) that keep
/// the blocks throughout, A_c a BSR matrix with R's row block size and P's
/// column block size (1 for a CSR operand). A CSR operand among BSR ones is
/// converted to BSR with the block sizes of its BSR neighbours (R's column
/// blocks match A's row blocks, A's column blocks P's row blocks), at
/// construction and at each recompute; block sizes that do not line up
/// throw invalid_argument naming them. Throws invalid_argument naming the
/// kinds for any other kind.
template <class T>
std::unique_ptr<CoarseProduct<T>> make_coarse_product(const LevelOperator<T>& R,
                                                      const LevelOperator<T>& A,
                                                      const LevelOperator<T>& P);

/// The CSR matrix of a level that must be CSR (classical and aggregation
/// coarsening work on scalar CSR levels). Throws invalid_argument naming
/// `who` and the kind it got.
template <class T>
const CsrMatrix<T>& csr_matrix(const LevelOperator<T>& A, const char* who);

/// Hands a matrix over to shared ownership: share(gallery::poisson3d(...)).
/// The pointer converts to the std::shared_ptr<const ...> that operators,
/// smoothers and hierarchies take; the caller may keep it to change values
/// in place before a resetup.
template <class T>
std::shared_ptr<CsrMatrix<T>> share(CsrMatrix<T>&& A) {
  return std::make_shared<CsrMatrix<T>>(std::move(A));
}
template <class T>
std::shared_ptr<BsrMatrix<T>> share(BsrMatrix<T>&& A) {
  return std::make_shared<BsrMatrix<T>>(std::move(A));
}

}  // namespace strata
