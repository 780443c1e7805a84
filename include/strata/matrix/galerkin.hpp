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

#include <optional>

#include "strata/matrix/bsr_spgemm.hpp"
#include "strata/matrix/spgemm.hpp"

namespace strata {

/// Ac = R A P, kept for value-only recomputation: the two sparse products
/// A P and R (A P) of `Matrix`, CsrMatrix<T> or BsrMatrix<T> (T float or
/// double). For BSR matrices these are the blocked products of
/// bsr_spgemm.hpp: the blocked PtAP of smoothed aggregation for elasticity
/// (R 6x3 blocks, A 3x3, P 3x6, so Ac 6x6; 6x6 throughout on the coarser
/// levels), with no operand expanded to scalar form; Ac has R's row block
/// size and P's column block size.
template <class Matrix>
class GalerkinProduct {
 public:
  /// Computes A P, then Ac = R (A P), where A lives; R and P must live
  /// there too (location_mismatch), and R.cols() == A.rows(),
  /// A.cols() == P.rows() (dimension_mismatch). Ac is R.rows() x P.cols().
  /// BSR: the blocks must line up too, R's column block size equal to A's
  /// row block size and A's column block size to P's row block size
  /// (invalid_argument naming the three block shapes).
  GalerkinProduct(const Matrix& R, const Matrix& A, const Matrix& P);

  /// Ac.
  const Matrix& result() const noexcept { return RAP_.result(); }
  /// The intermediate A P (kept for recompute). Throws invalid_argument
  /// after release_intermediate().
  const Matrix& AP() const;

  /// Recomputes Ac's values in place for new values of R, A and P with
  /// unchanged patterns (and block sizes; checked as in
  /// SparseProduct::recompute). Equals a fresh GalerkinProduct(R, A, P) bit
  /// for bit.
  void recompute(const Matrix& R, const Matrix& A, const Matrix& P);

  /// recompute() for a caller that made R and P and kept their patterns (an
  /// AMG hierarchy whose coarsening refreshes its transfers in place): the
  /// patterns of R and P are not fingerprinted again, nor A's unless
  /// `check_a` (a hierarchy's coarse operators are its own products; its
  /// finest is the caller's). Their shapes, entry counts and block sizes are
  /// still checked (invalid_argument). A fingerprint is a pass over the
  /// pattern and a wait for its result, per operand and per level. The
  /// caller's promise is the point: an operand with the same shape and
  /// count but another pattern gives wrong values (and on the device, reads
  /// at the old positions), not an error.
  void recompute_trusted(const Matrix& R, const Matrix& A, const Matrix& P, bool check_a);

  /// Frees the intermediate A P, which for classical interpolation holds
  /// about twice A's entries (the lean resetup of amg::HierarchyParams),
  /// and R (A P)'s plan (BSR products on a device, see bsr_spgemm.hpp).
  /// recompute() then multiplies A P afresh, pattern and values, checks that
  /// its pattern is the one R (A P) was built on (invalid_argument
  /// otherwise), uses it and frees it again: less memory held between
  /// recomputes, for a slower recompute. Ac's values are the same either way.
  void release_intermediate();
  /// Whether release_intermediate() ran.
  bool intermediate_released() const noexcept { return !AP_.has_value(); }

  /// Multiplications of both products together (scalar multiplications
  /// for BSR).
  size_type products() const noexcept { return ap_products_ + RAP_.products(); }

 private:
  /// recompute() (every check) and recompute_trusted() (A's fingerprint
  /// only with check_a, none of R's and P's) in one.
  void refresh(const Matrix& R, const Matrix& A, const Matrix& P, bool check_a,
               bool check_transfers);

  std::optional<SparseProduct<Matrix>> AP_;
  SparseProduct<Matrix> RAP_;
  size_type ap_products_ = 0;
};

/// Ac = R A P, once (no recompute), for CsrMatrix<T> or BsrMatrix<T>. Same
/// rules as GalerkinProduct.
template <class Matrix>
Matrix galerkin_product(const Matrix& R, const Matrix& A, const Matrix& P);

}  // namespace strata
