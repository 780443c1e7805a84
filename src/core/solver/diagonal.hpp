#pragma once
// The checked diagonal scaling that the smoothers and the spectral
// estimates share: computed by the level operator, with an error that names
// the first row whose diagonal cannot be divided by.

#include <string>

#include "strata/solver/level_operator.hpp"

namespace strata::detail {

/// d_i for every row of the square operator A (see DiagonalScaling). Throws
/// dimension_mismatch for a non-square A and invalid_argument naming `who`
/// and the first unusable row, 1-based as in a MatrixMarket file (followed
/// by `hint`).
template <class T>
Vector<T> checked_diagonal_scaling(const LevelOperator<T>& A, DiagonalScaling scaling,
                                   const char* who, const char* hint = "") {
  if (A.rows() != A.cols()) {
    throw dimension_mismatch(std::string(who) + ": A must be square, it is " +
                             std::to_string(A.rows()) + " x " + std::to_string(A.cols()));
  }
  Vector<T> d(A.executor(), A.rows());
  const size_type bad = A.scaling(scaling, d);
  if (bad >= 0) {
    const bool positive = scaling == DiagonalScaling::inverse_sqrt_diagonal;
    throw invalid_argument(std::string(who) + ": row " + std::to_string(bad + 1) + " (1-based) of " +
                           std::to_string(A.rows()) +
                           (positive ? " has a diagonal entry that is not positive"
                                     : " has a zero, missing or non-finite diagonal entry") +
                           "; " + who + " divides by it" + hint);
  }
  return d;
}

}  // namespace strata::detail
