// Entry point of the explicit CSR transpose: checked here, run where A lives.

#include "strata/matrix/transpose.hpp"

#include "kernels/matrix/transpose_kernels.hpp"

namespace strata {

template <class T>
CsrMatrix<T> transpose(const CsrMatrix<T>& A) {
  // Rows of A become column indices of A^T.
  checked_index(A.rows(), "transpose: A.rows() (the column count of A^T)");
  return A.executor().visit([&](const auto& e) {
    return kernels::transpose::transpose_csr(e, A.rows(), A.cols(), A.nnz(), A.row_ptr().data(),
                                             A.col_idx().data(), A.values().data());
  });
}

template CsrMatrix<float> transpose<float>(const CsrMatrix<float>&);
template CsrMatrix<double> transpose<double>(const CsrMatrix<double>&);

}  // namespace strata
