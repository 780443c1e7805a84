// CsrMatrix and SpMV entry points: operands are checked here, once, and the
// kernel runs where the matrix lives.

#include "strata/matrix/csr.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kernels/matrix/csr_kernels.hpp"

namespace strata {

template <class T>
CsrMatrix<T>::CsrMatrix(size_type rows, size_type cols, Array<offset_type> row_ptr,
                        Array<index_type> col_idx, Array<T> values)
    : rows_(rows),
      cols_(cols),
      row_ptr_(std::move(row_ptr)),
      col_idx_(std::move(col_idx)),
      values_(std::move(values)) {
  if (rows < 0 || cols < 0) {
    throw invalid_argument("CsrMatrix: rows and cols must be >= 0, got " + std::to_string(rows) +
                           " x " + std::to_string(cols));
  }
  checked_index(cols, "CsrMatrix: cols");
  if (row_ptr_.size() != rows + 1) {
    throw dimension_mismatch("CsrMatrix: row_ptr has " + std::to_string(row_ptr_.size()) +
                             " entries, expected rows + 1 = " + std::to_string(rows + 1));
  }
  if (col_idx_.size() != values_.size()) {
    throw dimension_mismatch("CsrMatrix: col_idx has " + std::to_string(col_idx_.size()) +
                             " entries but values has " + std::to_string(values_.size()));
  }
  check_location(row_ptr_.executor(), col_idx_.executor(), "col_idx", "row_ptr");
  check_location(row_ptr_.executor(), values_.executor(), "values", "row_ptr");
}

template <class T>
CsrMatrix<T> CsrMatrix<T>::to(const Executor& target) const {
  return CsrMatrix(rows_, cols_, row_ptr_.to(target), col_idx_.to(target), values_.to(target));
}

template <class T>
void CsrMatrix<T>::validate() const {
  offset_type first = 0, last = 0;
  copy_bytes(&first, Executor::host(), row_ptr_.data(), executor(), sizeof(offset_type));
  copy_bytes(&last, Executor::host(), row_ptr_.data() + rows_, executor(), sizeof(offset_type));
  if (first != 0) {
    throw invalid_argument("CsrMatrix::validate: row_ptr[0] = " + std::to_string(first) +
                           ", expected 0");
  }
  if (last != nnz()) {
    throw invalid_argument("CsrMatrix::validate: row_ptr[rows] = " + std::to_string(last) +
                           ", expected nnz = " + std::to_string(nnz()));
  }
  const size_type bad = executor().visit([&](const auto& e) {
    return kernels::csr::validate(e, rows_, cols_, nnz(), row_ptr_.data(), col_idx_.data(),
                                  values_.data());
  });
  if (bad < 0) return;
  const size_type row = bad / 8;
  const char* what = "";
  switch (static_cast<kernels::csr::CsrDefect>(bad % 8)) {
    case kernels::csr::CsrDefect::decreasing_row_ptr: what = "row_ptr decreases"; break;
    case kernels::csr::CsrDefect::column_out_of_range:
      what = "a column index lies outside [0, cols)";
      break;
    case kernels::csr::CsrDefect::duplicate_column: what = "a column index repeats"; break;
    case kernels::csr::CsrDefect::non_finite_value: what = "a value is NaN or infinite"; break;
    case kernels::csr::CsrDefect::row_ptr_out_of_range:
      what = "row_ptr points outside [0, nnz]";
      break;
    case kernels::csr::CsrDefect::none: what = "unknown defect"; break;
  }
  throw invalid_argument("CsrMatrix::validate: row " + std::to_string(row) + ": " + what +
                         " (matrix " + std::to_string(rows_) + " x " + std::to_string(cols_) +
                         ", cols = " + std::to_string(cols_) + ")");
}

template <class T>
size_type CsrMatrix<T>::max_row_nnz() const {
  size_type cached = max_row_nnz_.value.load(std::memory_order_relaxed);
  if (cached >= 0) return cached;
  cached = rows_ == 0 ? 0 : executor().visit([&](const auto& e) {
    return kernels::csr::row_length_range(e, rows_, row_ptr_.data()).second;
  });
  max_row_nnz_.value.store(cached, std::memory_order_relaxed);
  return cached;
}

namespace {
/// Checks where the operands of y = A x live, their sizes and that y is not
/// x (`who` names the caller in the messages).
template <class T>
void check_spmv_operands(const char* who, const CsrMatrix<T>& A, const Vector<T>& x,
                         const Vector<T>& y) {
  check_location(A.executor(), x.executor(), "x", "A");
  check_location(A.executor(), y.executor(), "y", "A");
  if (x.size() != A.cols() || y.size() != A.rows()) {
    throw dimension_mismatch(std::string(who) + ": A is " + std::to_string(A.rows()) + " x " +
                             std::to_string(A.cols()) + " but x has " + std::to_string(x.size()) +
                             " and y has " + std::to_string(y.size()) + " entries");
  }
  if (x.data() == y.data() && x.size() > 0) {
    throw invalid_argument(std::string(who) +
                           ": x and y are the same vector; y = A x needs separate storage");
  }
}

/// y = alpha A x + beta z (z == nullptr: z is y) after the checks.
template <class T>
void checked_spmv(const char* who, T alpha, const CsrMatrix<T>& A, const Vector<T>& x, T beta,
                  const Vector<T>* z, Vector<T>& y) {
  check_spmv_operands(who, A, x, y);
  const T* zp = y.data();
  if (z != nullptr) {
    check_location(A.executor(), z->executor(), "z", "A");
    if (z->size() != A.rows()) {
      throw dimension_mismatch(std::string(who) + ": A has " + std::to_string(A.rows()) +
                               " rows but the added vector has " + std::to_string(z->size()) +
                               " entries");
    }
    if (z->data() == x.data() && x.size() > 0) {
      throw invalid_argument(std::string(who) + ": the added vector is x itself");
    }
    zp = z->data();
  }
  A.executor().visit([&](const auto& e) {
    kernels::csr::spmv(e, A.rows(), A.nnz(), A.max_row_nnz(), A.row_ptr().data(),
                       A.col_idx().data(), A.values().data(), alpha, x.data(), beta, zp,
                       y.data());
  });
}
}  // namespace

template <class T>
void spmv(T alpha, const CsrMatrix<T>& A, const Vector<T>& x, T beta, Vector<T>& y) {
  checked_spmv("spmv", alpha, A, x, beta, static_cast<const Vector<T>*>(nullptr), y);
}

template <class T>
void spmv(T alpha, const CsrMatrix<T>& A, const Vector<T>& x, T beta, const Vector<T>& z,
          Vector<T>& y) {
  checked_spmv("spmv", alpha, A, x, beta, &z, y);
}

template <class T>
void residual(const CsrMatrix<T>& A, const Vector<T>& b, const Vector<T>& x, Vector<T>& r) {
  checked_spmv("residual", T{-1}, A, x, T{1}, &b, r);
}

template <class T>
T spmv_dot(const CsrMatrix<T>& A, const Vector<T>& x, Vector<T>& y) {
  if (A.rows() != A.cols()) {
    throw dimension_mismatch("spmv_dot: A must be square, it is " + std::to_string(A.rows()) +
                             " x " + std::to_string(A.cols()));
  }
  check_spmv_operands("spmv_dot", A, x, y);
  return A.executor().visit([&](const auto& e) {
    return kernels::csr::spmv_dot(e, A.rows(), A.nnz(), A.max_row_nnz(), A.row_ptr().data(),
                                  A.col_idx().data(), A.values().data(), x.data(), y.data());
  });
}

template <class T>
MatrixProperties analyze(const CsrMatrix<T>& A) {
  check_location(Executor::host(), A.executor(), "A", "analyze (a host routine)");
  const auto rp = A.row_ptr().host_view();
  const auto ci = A.col_idx().host_view();
  const auto va = A.values().host_view();
  const size_type n = A.rows();
  MatrixProperties p;
  p.rows = n;
  p.cols = A.cols();
  p.nnz = A.nnz();
  p.min_row_nnz = n > 0 ? A.nnz() : 0;
  p.mean_row_nnz = n > 0 ? static_cast<double>(A.nnz()) / static_cast<double>(n) : 0.0;
  double max_abs = 0.0;
  for (size_type i = 0; i < n; ++i) {
    const size_type len = rp[i + 1] - rp[i];
    p.min_row_nnz = std::min(p.min_row_nnz, len);
    p.max_row_nnz = std::max(p.max_row_nnz, len);
    if (len == 0) ++p.empty_rows;
    double diag = 0.0, off = 0.0;
    for (offset_type k = rp[i]; k < rp[i + 1]; ++k) {
      const double v = static_cast<double>(va[k]);
      max_abs = std::max(max_abs, std::abs(v));
      if (ci[k] == i) diag += v;
      else off += std::abs(v);
    }
    if (diag > 0) ++p.positive_diagonal;
    else if (diag < 0) ++p.negative_diagonal;
    else ++p.zero_diagonal;
    if (std::abs(diag) >= off) ++p.diagonally_dominant_rows;
    if (std::abs(diag) > off) ++p.strictly_diagonally_dominant_rows;
  }
  if (A.rows() != A.cols()) return p;

  // Symmetry: compare A row by row with A^T, both with sorted columns. The
  // transpose by counting sort comes out sorted; A's rows are sorted here.
  std::vector<offset_type> t_ptr(static_cast<std::size_t>(n) + 1, 0);
  for (offset_type k = 0; k < A.nnz(); ++k) ++t_ptr[static_cast<std::size_t>(ci[k]) + 1];
  for (size_type i = 0; i < n; ++i) t_ptr[i + 1] += t_ptr[i];
  std::vector<index_type> t_col(static_cast<std::size_t>(A.nnz()));
  std::vector<double> t_val(static_cast<std::size_t>(A.nnz()));
  std::vector<offset_type> fill(t_ptr.begin(), t_ptr.end() - 1);
  for (size_type i = 0; i < n; ++i) {
    for (offset_type k = rp[i]; k < rp[i + 1]; ++k) {
      const auto slot = fill[ci[k]]++;
      t_col[slot] = static_cast<index_type>(i);
      t_val[slot] = static_cast<double>(va[k]);
    }
  }
  bool pattern_equal = true;
  double asym = 0.0;
  std::vector<std::pair<index_type, double>> row;
  for (size_type i = 0; i < n && pattern_equal; ++i) {
    row.clear();
    for (offset_type k = rp[i]; k < rp[i + 1]; ++k) row.emplace_back(ci[k], static_cast<double>(va[k]));
    std::sort(row.begin(), row.end());
    const size_type t_len = t_ptr[i + 1] - t_ptr[i];
    if (static_cast<size_type>(row.size()) != t_len) {
      pattern_equal = false;
      break;
    }
    for (size_type k = 0; k < t_len; ++k) {
      const auto tk = static_cast<std::size_t>(t_ptr[i] + k);
      if (row[k].first != t_col[tk]) {
        pattern_equal = false;
        break;
      }
      asym = std::max(asym, std::abs(row[k].second - t_val[tk]));
    }
  }
  p.structurally_symmetric = pattern_equal;
  p.max_asymmetry = pattern_equal ? asym : max_abs;
  p.numerically_symmetric = pattern_equal && asym <= 1e-12 * max_abs;
  return p;
}

template class CsrMatrix<float>;
template class CsrMatrix<double>;
template void spmv<float>(float, const CsrMatrix<float>&, const Vector<float>&, float,
                          Vector<float>&);
template void spmv<double>(double, const CsrMatrix<double>&, const Vector<double>&, double,
                           Vector<double>&);
template void spmv<float>(float, const CsrMatrix<float>&, const Vector<float>&, float,
                          const Vector<float>&, Vector<float>&);
template void spmv<double>(double, const CsrMatrix<double>&, const Vector<double>&, double,
                           const Vector<double>&, Vector<double>&);
template void residual<float>(const CsrMatrix<float>&, const Vector<float>&,
                              const Vector<float>&, Vector<float>&);
template void residual<double>(const CsrMatrix<double>&, const Vector<double>&,
                               const Vector<double>&, Vector<double>&);
template float spmv_dot<float>(const CsrMatrix<float>&, const Vector<float>&, Vector<float>&);
template double spmv_dot<double>(const CsrMatrix<double>&, const Vector<double>&,
                                 Vector<double>&);
template MatrixProperties analyze<float>(const CsrMatrix<float>&);
template MatrixProperties analyze<double>(const CsrMatrix<double>&);

}  // namespace strata
