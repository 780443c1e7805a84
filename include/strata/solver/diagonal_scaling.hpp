#pragma once
/// \file
/// The diagonal scalings of the level-operator contract (level_operator.hpp),
/// in a header of their own so that the smoother kernels take the same enum.

namespace strata {

/// The diagonal scalings smoothers and spectral estimates divide by.
enum class DiagonalScaling {
  /// d_i = 1 / a_ii (Jacobi, Chebyshev in D^-1 A, Arnoldi).
  inverse_diagonal,
  /// d_i = 1 / sum_j |a_ij|, the l1 norm of row i (l1-Jacobi; a_ii must
  /// still be nonzero: without a diagonal it is no sensible smoother).
  inverse_l1_norm,
  /// d_i = 1 / sqrt(a_ii), for the symmetric D^-1/2 A D^-1/2 of Lanczos
  /// (a_ii must be positive).
  inverse_sqrt_diagonal,
};

}  // namespace strata
