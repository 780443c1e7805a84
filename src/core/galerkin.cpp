// Entry points of the Galerkin product Ac = R (A P), of CSR and of BSR
// matrices: the operands are checked here once; the two products do the work.

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

std::string block_shape(int r, int c) { return std::to_string(r) + "x" + std::to_string(c); }

template <class T>
const BsrMatrix<T>& checked(const BsrMatrix<T>& R, const BsrMatrix<T>& A, const BsrMatrix<T>& P) {
  check_location(A.executor(), R.executor(), "R", "A");
  check_location(A.executor(), P.executor(), "P", "A");
  if (R.cols() != A.rows() || A.cols() != P.rows()) {
    throw dimension_mismatch(
        "GalerkinProduct<BsrMatrix>: R is " + std::to_string(R.rows()) + " x " +
        std::to_string(R.cols()) + ", A is " + std::to_string(A.rows()) + " x " +
        std::to_string(A.cols()) + ", P is " + std::to_string(P.rows()) + " x " +
        std::to_string(P.cols()) + "; R A P needs R.cols() == A.rows() and A.cols() == P.rows()");
  }
  if (R.col_block_size() != A.row_block_size() || A.col_block_size() != P.row_block_size()) {
    throw invalid_argument(
        "GalerkinProduct<BsrMatrix>: R has " + block_shape(R.row_block_size(), R.col_block_size()) +
        " blocks, A " + block_shape(A.row_block_size(), A.col_block_size()) + ", P " +
        block_shape(P.row_block_size(), P.col_block_size()) +
        "; a blocked R A P needs R's column block size to equal A's row block size (" +
        std::to_string(R.col_block_size()) + " and " + std::to_string(A.row_block_size()) +
        ") and A's column block size to equal P's row block size (" +
        std::to_string(A.col_block_size()) + " and " + std::to_string(P.row_block_size()) + ")");
  }
  return A;
}

}  // namespace

template <class Matrix>
GalerkinProduct<Matrix>::GalerkinProduct(const Matrix& R, const Matrix& A, const Matrix& P)
    : AP_(std::in_place, checked(R, A, P), P),
      RAP_(R, AP_->result(), true),
      ap_products_(AP_->products()) {}

template <class Matrix>
const Matrix& GalerkinProduct<Matrix>::AP() const {
  if (!AP_) {
    throw invalid_argument(
        "GalerkinProduct::AP: the intermediate A P was released (release_intermediate())");
  }
  return AP_->result();
}

template <class Matrix>
void GalerkinProduct<Matrix>::recompute(const Matrix& R, const Matrix& A, const Matrix& P) {
  refresh(R, A, P, true, true);
}

template <class Matrix>
void GalerkinProduct<Matrix>::recompute_trusted(const Matrix& R, const Matrix& A, const Matrix& P,
                                                bool check_a) {
  refresh(R, A, P, check_a, false);
}

template <class Matrix>
void GalerkinProduct<Matrix>::refresh(const Matrix& R, const Matrix& A, const Matrix& P,
                                      bool check_a, bool check_transfers) {
  checked(R, A, P);
  if (AP_) {
    AP_->recompute_values(A, P, check_a, check_transfers);
    // A P is ours and its pattern cannot have changed: skip its check.
    RAP_.recompute_values(R, AP_->result(), check_transfers, false);
    return;
  }
  // Released: A P afresh. Its pattern follows from A's and P's (it is built
  // here, not by the caller); the check against the fingerprint taken at
  // release catches a changed one.
  const SparseProduct<Matrix> AP(A, P);
  RAP_.recompute_values(R, AP.result(), check_transfers, true);
}

template <class Matrix>
void GalerkinProduct<Matrix>::release_intermediate() {
  // Lean: R (A P)'s plan (device BSR products) is rebuildable too.
  if constexpr (requires { RAP_.release_plan(); }) RAP_.release_plan();
  if (!AP_) return;
  RAP_.fingerprint_b(AP_->result());
  AP_.reset();
}

template <class Matrix>
Matrix galerkin_product(const Matrix& R, const Matrix& A, const Matrix& P) {
  checked(R, A, P);
  return spgemm(R, spgemm(A, P));
}

template class GalerkinProduct<CsrMatrix<float>>;
template class GalerkinProduct<CsrMatrix<double>>;
template class GalerkinProduct<BsrMatrix<float>>;
template class GalerkinProduct<BsrMatrix<double>>;
template CsrMatrix<float> galerkin_product(const CsrMatrix<float>&, const CsrMatrix<float>&,
                                           const CsrMatrix<float>&);
template CsrMatrix<double> galerkin_product(const CsrMatrix<double>&, const CsrMatrix<double>&,
                                            const CsrMatrix<double>&);
template BsrMatrix<float> galerkin_product(const BsrMatrix<float>&, const BsrMatrix<float>&,
                                           const BsrMatrix<float>&);
template BsrMatrix<double> galerkin_product(const BsrMatrix<double>&, const BsrMatrix<double>&,
                                            const BsrMatrix<double>&);

}  // namespace strata
