// DistributedOperator: the level-operator contract on a distributed matrix.

#include "strata/distributed/operator.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "core/distributed/communication.hpp"
#include "kernels/smoother/smoother_kernels.hpp"
#include "strata/distributed/rows.hpp"

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

namespace {

/// The scaling `kind` of every owned row, from its two blocks in scalar
/// form (diagonal entries in `diag`, the l1 norm adding `offd`), into d;
/// the first row anywhere without one, as a global row, or -1
/// (collective). `who` names the operator in the checks.
template <class T>
size_type scaling_of_rows(const char* who, const CsrMatrix<T>& diag, const CsrMatrix<T>& offd,
                          const RowPartition& rows, const RowPartition& cols, DiagonalScaling kind,
                          Vector<T>& d) {
  check_location(diag.executor(), d.executor(), "d", "A");
  if (rows != cols || d.size() != diag.rows()) {
    throw dimension_mismatch(std::string(who) +
                             "::scaling: needs a square operator whose columns are split like its "
                             "rows, and d with one entry per local row; A is " +
                             std::to_string(rows.global_size()) + " x " +
                             std::to_string(cols.global_size()) + ", d has " +
                             std::to_string(d.size()) + " entries for " +
                             std::to_string(diag.rows()) + " local rows");
  }
  const size_type bad = diag.executor().visit([&](const auto& e) {
    return kernels::smoother::diagonal_scaling(
        e, diag.rows(), diag.row_ptr().data(), diag.col_idx().data(), diag.values().data(),
        offd.row_ptr().data(), offd.values().data(), kind, d.data());
  });
  constexpr size_type none = std::numeric_limits<size_type>::max();
  const size_type first =
      detail::min_over_processes(rows.communicator(), bad >= 0 ? rows.begin() + bad : none);
  return first == none ? -1 : first;
}

/// Every process's part of a vector split by `rows`, on every process.
template <class T>
void gather_all_rows(const char* who, const RowPartition& rows, const Vector<T>& part,
                     Vector<T>& whole) {
  if (part.size() != rows.local_size() || whole.size() != rows.global_size()) {
    throw dimension_mismatch(
        std::string(who) + "::gather_all: part has " + std::to_string(part.size()) +
        " entries and whole " + std::to_string(whole.size()) + "; expected this process's " +
        std::to_string(rows.local_size()) + " and all " + std::to_string(rows.global_size()));
  }
  // One process: the part is the whole, copied where it lives (no round
  // trip through the host in every coarse solve).
  if (rows.processes() == 1) {
    copy(part.values(), whole.values());
    return;
  }
  std::vector<std::size_t> bytes(static_cast<std::size_t>(rows.processes()));
  for (int r = 0; r < rows.processes(); ++r) {
    bytes[static_cast<std::size_t>(r)] = static_cast<std::size_t>(rows.local_size(r)) * sizeof(T);
  }
  const std::vector<T> mine = part.values().to_vector();
  std::vector<T> all(static_cast<std::size_t>(rows.global_size()));
  detail::allgatherv(rows.communicator(), mine.data(), mine.size() * sizeof(T), all.data(), bytes);
  if (!all.empty()) {
    copy_bytes(whole.data(), whole.executor(), all.data(), Executor::host(),
               all.size() * sizeof(T));
  }
}

}  // namespace

template <class T>
size_type DistributedOperator<T>::scaling(DiagonalScaling kind, Vector<T>& d) const {
  return scaling_of_rows("DistributedOperator", A_->diag(), A_->offd(), A_->row_partition(),
                         A_->col_partition(), kind, d);
}

template <class T>
void DistributedOperator<T>::gather_all(const Vector<T>& part, Vector<T>& whole) const {
  gather_all_rows("DistributedOperator", A_->row_partition(), part, whole);
}

template <class T>
Array<T> DistributedOperator<T>::to_dense() const {
  const Communicator& comm = A_->communicator();
  const size_type n = A_->global_rows(), m = A_->global_cols();
  // Every process's entries as (row, column) ids and values, gathered on all.
  const RowBlock<T> own = owned_rows(*A_);
  const std::vector<offset_type> ptr = own.row_ptr.to_vector();
  const std::vector<global_index> cols = own.cols.to_vector();
  const std::vector<T> values = own.values.to_vector();
  std::vector<global_index> rows_of(cols.size());
  for (size_type i = 0; i < own.rows(); ++i) {
    for (offset_type k = ptr[i]; k < ptr[i + 1]; ++k) rows_of[k] = global_row_begin() + i;
  }
  const size_type mine = static_cast<size_type>(cols.size());
  std::vector<size_type> counts(static_cast<std::size_t>(comm.size()));
  detail::allgather(comm, &mine, sizeof mine, counts.data());
  size_type total = 0;
  std::vector<std::size_t> id_bytes, value_bytes;
  for (const size_type c : counts) {
    total += c;
    id_bytes.push_back(static_cast<std::size_t>(c) * sizeof(global_index));
    value_bytes.push_back(static_cast<std::size_t>(c) * sizeof(T));
  }
  std::vector<global_index> all_rows(static_cast<std::size_t>(total)),
      all_cols(static_cast<std::size_t>(total));
  std::vector<T> all_values(static_cast<std::size_t>(total));
  detail::allgatherv(comm, rows_of.data(), rows_of.size() * sizeof(global_index), all_rows.data(),
                     id_bytes);
  detail::allgatherv(comm, cols.data(), cols.size() * sizeof(global_index), all_cols.data(),
                     id_bytes);
  detail::allgatherv(comm, values.data(), values.size() * sizeof(T), all_values.data(),
                     value_bytes);
  std::vector<T> dense(static_cast<std::size_t>(n * m), T{0});
  for (std::size_t k = 0; k < all_values.size(); ++k) {
    dense[static_cast<std::size_t>(all_cols[k] * n + all_rows[k])] = all_values[k];
  }
  return Array<T>(executor(), dense);
}

namespace {

/// R A P of distributed levels as R (A P), each product kept.
template <class T>
class DistributedGalerkin final : public CoarseProduct<T> {
 public:
  /// A's unknowns in nodes of `fine`, the coarse level's in nodes of `coarse`.
  DistributedGalerkin(const DistributedCsrMatrix<T>& R, const DistributedCsrMatrix<T>& A,
                      const DistributedCsrMatrix<T>& P, int fine, int coarse)
      : AP_(A, P, {fine, fine, coarse}),
        RAP_(R, *AP_.result(), {coarse, fine, coarse}),
        Ac_(std::make_shared<const DistributedOperator<T>>(
            std::shared_ptr<const DistributedCsrMatrix<T>>(RAP_.result()))) {}

  std::shared_ptr<const LevelOperator<T>> result() const override { return Ac_; }

  void recompute(const LevelOperator<T>& R, const LevelOperator<T>& A,
                 const LevelOperator<T>& P) override {
    const auto& a = matrix_of(A, "A");
    AP_.recompute(a, matrix_of(P, "P"));
    RAP_.recompute(matrix_of(R, "R"), *AP_.result());
  }

  static const DistributedCsrMatrix<T>& matrix_of(const LevelOperator<T>& op, const char* name) {
    const auto* d = dynamic_cast<const DistributedOperator<T>*>(&op);
    if (d == nullptr) {
      throw invalid_argument(std::string("DistributedOperator::galerkin: ") + name + " is " +
                             op.kind() +
                             "; a distributed level multiplies with distributed R and P only");
    }
    return d->matrix();
  }

 private:
  DistributedProduct<T> AP_, RAP_;
  std::shared_ptr<const DistributedOperator<T>> Ac_;
};

}  // namespace

template <class T>
std::unique_ptr<CoarseProduct<T>> DistributedOperator<T>::galerkin(
    const LevelOperator<T>& R, const LevelOperator<T>& P) const {
  return galerkin(R, P, 1, 1);
}

template <class T>
std::unique_ptr<CoarseProduct<T>> DistributedOperator<T>::galerkin(const LevelOperator<T>& R,
                                                                   const LevelOperator<T>& P,
                                                                   int fine, int coarse) const {
  using G = DistributedGalerkin<T>;
  return std::make_unique<G>(G::matrix_of(R, "R"), *A_, G::matrix_of(P, "P"), fine, coarse);
}

template <class T>
std::shared_ptr<const LevelOperator<T>> DistributedOperator<T>::clone() const {
  return std::make_shared<const DistributedOperator<T>>(
      std::make_shared<const DistributedCsrMatrix<T>>(A_->clone()));
}

// ---------------------------------------------------------------- DistributedBsrOperator

template <class T>
DistributedBsrOperator<T>::DistributedBsrOperator(std::shared_ptr<const DistributedBsrMatrix<T>> A)
    : A_(std::move(A)) {
  require(A_ != nullptr, "DistributedBsrOperator: the matrix is null");
}

template <class T>
std::string DistributedBsrOperator<T>::kind() const {
  return "distributed BSR " + std::to_string(A_->row_block_size()) + "x" +
         std::to_string(A_->col_block_size());
}

template <class T>
std::pair<size_type, size_type> DistributedBsrOperator<T>::row_nnz_range() const {
  // Every scalar row of block row I holds (blocks of I in both blocks) * c.
  const size_type n = A_->diag().block_rows();
  if (n == 0) return {0, 0};
  const std::vector<offset_type> diag = A_->diag().row_ptr().to_vector();
  const std::vector<offset_type> offd = A_->offd().row_ptr().to_vector();
  size_type shortest = std::numeric_limits<size_type>::max(), longest = 0;
  for (size_type i = 0; i < n; ++i) {
    const size_type blocks = (diag[i + 1] - diag[i]) + (offd[i + 1] - offd[i]);
    shortest = std::min(shortest, blocks);
    longest = std::max(longest, blocks);
  }
  return {shortest * A_->col_block_size(), longest * A_->col_block_size()};
}

template <class T>
size_type DistributedBsrOperator<T>::scaling(DiagonalScaling kind, Vector<T>& d) const {
  // The scalar forms hold the same rows in the same order (as
  // BsrOperator::scaling does serially): a scaling is computed once per
  // smoother setup, so the expansion costs nothing that matters.
  if (A_->row_block_size() != A_->col_block_size()) {
    throw dimension_mismatch(
        "DistributedBsrOperator::scaling: the diagonal needs square blocks; "
        "this operator is " +
        this->kind());
  }
  return scaling_of_rows("DistributedBsrOperator", to_csr(A_->diag()), to_csr(A_->offd()),
                         A_->row_partition(), A_->col_partition(), kind, d);
}

template <class T>
void DistributedBsrOperator<T>::gather_all(const Vector<T>& part, Vector<T>& whole) const {
  gather_all_rows("DistributedBsrOperator", A_->row_partition(), part, whole);
}

template <class T>
Array<T> DistributedBsrOperator<T>::to_dense() const {
  return DistributedOperator<T>(to_csr(*A_)).to_dense();
}

template <class T>
std::unique_ptr<CoarseProduct<T>> DistributedBsrOperator<T>::galerkin(
    const LevelOperator<T>& R, const LevelOperator<T>& P) const {
  throw invalid_argument("DistributedBsrOperator::galerkin: R is " + R.kind() + ", A " + kind() +
                         ", P " + P.kind() +
                         "; a distributed BSR level has no Galerkin product: build the "
                         "hierarchy on the scalar form, DistributedOperator(to_csr(A))");
}

template <class T>
std::shared_ptr<const LevelOperator<T>> DistributedBsrOperator<T>::clone() const {
  return std::make_shared<const DistributedBsrOperator<T>>(
      std::make_shared<const DistributedBsrMatrix<T>>(A_->clone()));
}

template class DistributedOperator<double>;
template class DistributedBsrOperator<double>;

}  // namespace strata
