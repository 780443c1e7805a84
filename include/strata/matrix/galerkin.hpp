#pragma once
/// \file
/// The Galerkin (coarse-grid) product Ac = R A P.
///
/// It lives with the matrices rather than under amg/ because it is plain
/// matrix algebra: it knows nothing of strength, splittings or aggregates,
/// works for any R (Petrov-Galerkin included), and is used by every
/// coarsening (classical, aggregation, smoothed aggregation) alike.
///
/// R = P^T is stored explicitly (make it with transpose(P)): the solve phase
/// needs R as a matrix of its own anyway, and computing R (A P) as two
/// row-wise products is what hypre does on the GPU (hypre paper, section
/// 4.2). Both products are kept, so when only values change (a Newton step
/// with the same hierarchy) recompute() redoes the values of A P and then of
/// R (A P) on the stored patterns; this is the pattern reuse of the
/// aggregation paper (section 3.1), which gets it by storing the sort and
/// segmented-reduction indices, here by storing the two products' patterns
/// and schedules. For a piecewise-constant P (one entry per row) the
/// products are cheap: every row of A P has the length of A's row or less.

#include "strata/matrix/bsr_spgemm.hpp"
#include "strata/matrix/spgemm.hpp"

namespace strata {

/// Ac = R A P, kept for value-only recomputation. One specialization per
/// matrix format: CSR, and BSR (below, the blocked products of
/// bsr_spgemm.hpp).
template <class Matrix>
class GalerkinProduct;

template <class T>
class GalerkinProduct<CsrMatrix<T>> {
 public:
  /// Computes A P, then Ac = R (A P), where A lives; R and P must live
  /// there too (location_mismatch), and R.cols() == A.rows(),
  /// A.cols() == P.rows() (dimension_mismatch). Ac is R.rows() x P.cols().
  GalerkinProduct(const CsrMatrix<T>& R, const CsrMatrix<T>& A, const CsrMatrix<T>& P);

  /// Ac.
  const CsrMatrix<T>& result() const noexcept { return RAP_.result(); }
  /// The intermediate A P (kept for recompute).
  const CsrMatrix<T>& AP() const noexcept { return AP_.result(); }

  /// Recomputes Ac's values for new values of R, A and P with unchanged
  /// patterns (checked as in SparseProduct::recompute). Equals a fresh
  /// GalerkinProduct(R, A, P) bit for bit.
  void recompute(const CsrMatrix<T>& R, const CsrMatrix<T>& A, const CsrMatrix<T>& P);

  /// Multiplications of both products together.
  size_type products() const noexcept { return AP_.products() + RAP_.products(); }

 private:
  SparseProduct<CsrMatrix<T>> AP_;
  SparseProduct<CsrMatrix<T>> RAP_;
};

template <class T>
GalerkinProduct(const CsrMatrix<T>&, const CsrMatrix<T>&, const CsrMatrix<T>&)
    -> GalerkinProduct<CsrMatrix<T>>;

/// Ac = R A P, once (no recompute).
template <class T>
CsrMatrix<T> galerkin_product(const CsrMatrix<T>& R, const CsrMatrix<T>& A, const CsrMatrix<T>& P);

/// Ac = R (A P) of BSR matrices as two blocked products, kept for
/// value-only recomputation: the blocked PtAP of smoothed aggregation for
/// elasticity (R 6x3 blocks, A 3x3, P 3x6, so Ac 6x6; 6x6 throughout on the
/// coarser levels). No operand is expanded to scalar form: the index work is
/// done per block and each block product is a small dense one
/// (bsr_spgemm.hpp). Ac has R's row block size and P's column block size.
template <class T>
class GalerkinProduct<BsrMatrix<T>> {
 public:
  /// Computes A P, then Ac = R (A P), where A lives; R and P must live there
  /// too (location_mismatch), R.cols() == A.rows() and A.cols() == P.rows()
  /// (dimension_mismatch), and the blocks must line up: R's column block
  /// size equal to A's row block size, A's column block size to P's row
  /// block size (invalid_argument naming the three block shapes).
  GalerkinProduct(const BsrMatrix<T>& R, const BsrMatrix<T>& A, const BsrMatrix<T>& P);

  /// Ac.
  const BsrMatrix<T>& result() const noexcept { return RAP_.result(); }
  /// The intermediate A P (kept for recompute).
  const BsrMatrix<T>& AP() const noexcept { return AP_.result(); }

  /// Recomputes Ac's values in place for new values of R, A and P with
  /// unchanged block sizes and block patterns (checked as in
  /// SparseProduct<BsrMatrix<T>>::recompute). Equals a fresh
  /// GalerkinProduct(R, A, P) bit for bit.
  void recompute(const BsrMatrix<T>& R, const BsrMatrix<T>& A, const BsrMatrix<T>& P);

  /// Scalar multiplications of both products together.
  size_type products() const noexcept { return AP_.products() + RAP_.products(); }

 private:
  SparseProduct<BsrMatrix<T>> AP_;
  SparseProduct<BsrMatrix<T>> RAP_;
};

template <class T>
GalerkinProduct(const BsrMatrix<T>&, const BsrMatrix<T>&, const BsrMatrix<T>&)
    -> GalerkinProduct<BsrMatrix<T>>;

/// Ac = R A P of BSR matrices, once (no recompute).
template <class T>
BsrMatrix<T> galerkin_product(const BsrMatrix<T>& R, const BsrMatrix<T>& A, const BsrMatrix<T>& P);

}  // namespace strata
