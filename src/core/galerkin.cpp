// Entry point of the Galerkin product Ac = R (A P): the operands are checked
// here once; the two products do the work.

#include "strata/matrix/galerkin.hpp"

#include <string>

namespace strata {

namespace {

template <class T>
const CsrMatrix<T>& checked(const CsrMatrix<T>& R, const CsrMatrix<T>& A, const CsrMatrix<T>& P) {
  check_location(A.executor(), R.executor(), "R", "A");
  check_location(A.executor(), P.executor(), "P", "A");
  if (R.cols() != A.rows() || A.cols() != P.rows()) {
    throw dimension_mismatch("GalerkinProduct: R is " + std::to_string(R.rows()) + " x " +
                             std::to_string(R.cols()) + ", A is " + std::to_string(A.rows()) +
                             " x " + std::to_string(A.cols()) + ", P is " +
                             std::to_string(P.rows()) + " x " + std::to_string(P.cols()) +
                             "; R A P needs R.cols() == A.rows() and A.cols() == P.rows()");
  }
  return A;
}

}  // namespace

template <class T>
GalerkinProduct<CsrMatrix<T>>::GalerkinProduct(const CsrMatrix<T>& R, const CsrMatrix<T>& A,
                                               const CsrMatrix<T>& P)
    : AP_(checked(R, A, P), P), RAP_(R, AP_.result(), true) {}

template <class T>
void GalerkinProduct<CsrMatrix<T>>::recompute(const CsrMatrix<T>& R, const CsrMatrix<T>& A,
                                              const CsrMatrix<T>& P) {
  checked(R, A, P);
  AP_.recompute(A, P);
  // A P is ours and its pattern cannot have changed: skip its check.
  RAP_.recompute_values(R, AP_.result(), true, false);
}

template <class T>
CsrMatrix<T> galerkin_product(const CsrMatrix<T>& R, const CsrMatrix<T>& A, const CsrMatrix<T>& P) {
  checked(R, A, P);
  return spgemm(R, spgemm(A, P));
}

template class GalerkinProduct<CsrMatrix<float>>;
template class GalerkinProduct<CsrMatrix<double>>;
template CsrMatrix<float> galerkin_product<float>(const CsrMatrix<float>&, const CsrMatrix<float>&,
                                                  const CsrMatrix<float>&);
template CsrMatrix<double> galerkin_product<double>(const CsrMatrix<double>&,
                                                    const CsrMatrix<double>&,
                                                    const CsrMatrix<double>&);

}  // namespace strata
