// DistributedOperator: the level-operator contract on a distributed matrix.

#include "strata/distributed/operator.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "core/distributed/communication.hpp"
#include "kernels/smoother/smoother_kernels.hpp"

namespace strata {

template <class T>
DistributedOperator<T>::DistributedOperator(std::shared_ptr<const DistributedCsrMatrix<T>> A)
    : A_(std::move(A)) {
  require(A_ != nullptr, "DistributedOperator: the matrix is null");
}

template <class T>
std::string DistributedOperator<T>::describe() const {
  return "distributed CSR " + std::to_string(A_->global_rows()) + "x" +
         std::to_string(A_->global_cols()) + ", " + std::to_string(A_->local_rows()) +
         " local rows, " + std::to_string(A_->local_nnz()) + " local nonzeros, " +
         std::to_string(A_->communicator().size()) + " processes";
}

template <class T>
std::pair<size_type, size_type> DistributedOperator<T>::row_nnz_range() const {
  const size_type n = A_->local_rows();
  if (n == 0) return {0, 0};
  const std::vector<offset_type> diag = A_->diag().row_ptr().to_vector();
  const std::vector<offset_type> offd = A_->offd().row_ptr().to_vector();
  size_type shortest = std::numeric_limits<size_type>::max(), longest = 0;
  for (size_type i = 0; i < n; ++i) {
    const size_type length = (diag[i + 1] - diag[i]) + (offd[i + 1] - offd[i]);
    shortest = std::min(shortest, length);
    longest = std::max(longest, length);
  }
  return {shortest, longest};
}

template <class T>
size_type DistributedOperator<T>::scaling(DiagonalScaling kind, Vector<T>& d) const {
  const CsrMatrix<T>& diag = A_->diag();
  const CsrMatrix<T>& offd = A_->offd();
  check_location(executor(), d.executor(), "d", "A");
  if (A_->row_partition() != A_->col_partition() || d.size() != rows()) {
    throw dimension_mismatch(
        "DistributedOperator::scaling: needs a square operator whose columns are split like its "
        "rows, and d with one entry per local row; A is " +
        std::to_string(A_->global_rows()) + " x " + std::to_string(A_->global_cols()) + ", d has " +
        std::to_string(d.size()) + " entries for " + std::to_string(rows()) + " local rows");
  }
  const size_type bad = executor().visit([&](const auto& e) {
    return kernels::smoother::diagonal_scaling(
        e, diag.rows(), diag.row_ptr().data(), diag.col_idx().data(), diag.values().data(),
        offd.row_ptr().data(), offd.values().data(), kind, d.data());
  });
  constexpr size_type none = std::numeric_limits<size_type>::max();
  const size_type first =
      detail::min_over_processes(A_->communicator(), bad >= 0 ? global_row_begin() + bad : none);
  return first == none ? -1 : first;
}

template <class T>
Array<T> DistributedOperator<T>::to_dense() const {
  throw not_implemented(
      "DistributedOperator::to_dense: a distributed level's direct solve needs its rows "
      "gathered onto one process (agglomeration), which comes with distributed AMG");
}

template <class T>
std::unique_ptr<CoarseProduct<T>> DistributedOperator<T>::galerkin(
    const LevelOperator<T>& R, const LevelOperator<T>& P) const {
  throw not_implemented("DistributedOperator::galerkin: R A P of a distributed level (R is " +
                        R.kind() + ", P is " + P.kind() +
                        ") needs the off-process rows of P, which come with distributed AMG");
}

template <class T>
std::shared_ptr<const LevelOperator<T>> DistributedOperator<T>::clone() const {
  return std::make_shared<const DistributedOperator<T>>(
      std::make_shared<const DistributedCsrMatrix<T>>(A_->clone()));
}

template class DistributedOperator<double>;

}  // namespace strata
