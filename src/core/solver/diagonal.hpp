#pragma once
// The checked diagonal scaling that the smoothers and the spectral
// estimates share: computed where A lives, with an error that names the
// first row whose diagonal cannot be divided by.

#include <string>

#include "kernels/smoother/smoother_kernels.hpp"
#include "strata/matrix/csr.hpp"
#include "strata/matrix/vector.hpp"

namespace strata::detail {

/// d_i for every row of the square matrix A (see kernels::smoother::Scaling).
/// Throws dimension_mismatch for a non-square A and invalid_argument naming
/// `who` and the first unusable row (followed by `hint`).
template <class T>
Vector<T> checked_diagonal_scaling(const CsrMatrix<T>& A, kernels::smoother::Scaling scaling,
                                   const char* who, const char* hint = "") {
  if (A.rows() != A.cols()) {
    throw dimension_mismatch(std::string(who) + ": A must be square, it is " +
                             std::to_string(A.rows()) + " x " + std::to_string(A.cols()));
  }
  Vector<T> d(A.executor(), A.rows());
  const size_type bad = A.executor().visit([&](const auto& e) {
    return kernels::smoother::diagonal_scaling(e, A.rows(), A.row_ptr().data(), A.col_idx().data(),
                                               A.values().data(), scaling, d.data());
  });
  if (bad >= 0) {
    const bool positive = scaling == kernels::smoother::Scaling::inverse_sqrt_diagonal;
    throw invalid_argument(std::string(who) + ": row " + std::to_string(bad) +
                           (positive ? " has a diagonal entry that is not positive"
                                     : " has a zero, missing or non-finite diagonal entry") +
                           "; " + who + " divides by it" + hint);
  }
  return d;
}

}  // namespace strata::detail
