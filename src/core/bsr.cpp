// BsrMatrix, its SpMV, conversions and transpose: operands are checked here,
// once, and the kernel runs where the matrix lives.

#include "strata/matrix/bsr.hpp"

#include <string>

#include "kernels/matrix/bsr_kernels.hpp"

namespace strata {

namespace {
std::string shape(size_type rows, size_type cols) {
  return std::to_string(rows) + " x " + std::to_string(cols);
}
}  // namespace

template <class T>
BsrMatrix<T>::BsrMatrix(size_type block_rows, size_type block_cols, int row_block_size,
                        int col_block_size, Array<offset_type> row_ptr, Array<index_type> col_idx,
                        Array<T> values)
    : block_rows_(block_rows),
      block_cols_(block_cols),
      row_block_size_(row_block_size),
      col_block_size_(col_block_size),
      row_ptr_(std::move(row_ptr)),
      col_idx_(std::move(col_idx)),
      values_(std::move(values)) {
  if (block_rows < 0 || block_cols < 0) {
    throw invalid_argument("BsrMatrix: block_rows and block_cols must be >= 0, got " +
                           shape(block_rows, block_cols));
  }
  if (row_block_size < 1 || col_block_size < 1) {
    throw invalid_argument("BsrMatrix: block sizes must be >= 1, got " +
                           shape(row_block_size, col_block_size));
  }
  checked_index(block_cols * col_block_size, "BsrMatrix: cols (block_cols x col_block_size)");
  if (row_ptr_.size() != block_rows + 1) {
    throw dimension_mismatch(
        "BsrMatrix: row_ptr has " + std::to_string(row_ptr_.size()) +
        " entries, expected block_rows + 1 = " + std::to_string(block_rows + 1));
  }
  const size_type block = static_cast<size_type>(row_block_size) * col_block_size;
  if (values_.size() != col_idx_.size() * block) {
    throw dimension_mismatch("BsrMatrix: col_idx has " + std::to_string(col_idx_.size()) +
                             " blocks of " + shape(row_block_size, col_block_size) +
                             ", so values must have " + std::to_string(col_idx_.size() * block) +
                             " entries, but it has " + std::to_string(values_.size()));
  }
  check_location(row_ptr_.executor(), col_idx_.executor(), "col_idx", "row_ptr");
  check_location(row_ptr_.executor(), values_.executor(), "values", "row_ptr");
}

template <class T>
BsrMatrix<T> BsrMatrix<T>::to(const Executor& target) const {
  return BsrMatrix(block_rows_, block_cols_, row_block_size_, col_block_size_, row_ptr_.to(target),
                   col_idx_.to(target), values_.to(target));
}

template <class T>
void BsrMatrix<T>::validate() const {
  offset_type first = 0, last = 0;
  copy_bytes(&first, Executor::host(), row_ptr_.data(), executor(), sizeof(offset_type));
  copy_bytes(&last, Executor::host(), row_ptr_.data() + block_rows_, executor(),
             sizeof(offset_type));
  if (first != 0) {
    throw invalid_argument("BsrMatrix::validate: row_ptr[0] = " + std::to_string(first) +
                           ", expected 0");
  }
  if (last != num_blocks()) {
    throw invalid_argument("BsrMatrix::validate: row_ptr[block_rows] = " + std::to_string(last) +
                           ", expected num_blocks = " + std::to_string(num_blocks()));
  }
  const size_type bad = executor().visit([&](const auto& e) {
    return kernels::bsr::validate(e, block_rows_, block_cols_, num_blocks(),
                                  row_block_size_ * col_block_size_, row_ptr_.data(),
                                  col_idx_.data(), values_.data());
  });
  if (bad < 0) return;
  const char* what = "";
  switch (static_cast<kernels::csr::CsrDefect>(bad % 8)) {
    case kernels::csr::CsrDefect::decreasing_row_ptr:
      what = "row_ptr decreases";
      break;
    case kernels::csr::CsrDefect::column_out_of_range:
      what = "a block column index lies outside [0, block_cols)";
      break;
    case kernels::csr::CsrDefect::duplicate_column:
      what = "a block column index repeats";
      break;
    case kernels::csr::CsrDefect::non_finite_value:
      what = "a value is NaN or infinite";
      break;
    case kernels::csr::CsrDefect::row_ptr_out_of_range:
      what = "row_ptr points outside [0, num_blocks]";
      break;
    case kernels::csr::CsrDefect::none:
      what = "unknown defect";
      break;
  }
  throw invalid_argument("BsrMatrix::validate: block row " + std::to_string(bad / 8) + ": " + what +
                         " (" + shape(block_rows_, block_cols_) + " blocks of " +
                         shape(row_block_size_, col_block_size_) + ")");
}

template <class T>
void spmv(T alpha, const BsrMatrix<T>& A, const Vector<T>& x, T beta, Vector<T>& y) {
  check_location(A.executor(), x.executor(), "x", "A");
  check_location(A.executor(), y.executor(), "y", "A");
  if (x.size() != A.cols() || y.size() != A.rows()) {
    throw dimension_mismatch(
        "spmv: A is " + shape(A.rows(), A.cols()) + " (" + shape(A.block_rows(), A.block_cols()) +
        " blocks of " + shape(A.row_block_size(), A.col_block_size()) + ") but x has " +
        std::to_string(x.size()) + " and y has " + std::to_string(y.size()) + " entries");
  }
  if (x.data() == y.data() && x.size() > 0) {
    throw invalid_argument("spmv: x and y are the same vector; y = A x needs separate storage");
  }
  A.executor().visit([&](const auto& e) {
    kernels::bsr::spmv(e, A.block_rows(), A.num_blocks(), A.row_block_size(), A.col_block_size(),
                       A.row_ptr().data(), A.col_idx().data(), A.values().data(), alpha, x.data(),
                       beta, y.data());
  });
}

template <class T>
BsrMatrix<T> to_bsr(const CsrMatrix<T>& A, int row_block_size, int col_block_size) {
  if (row_block_size < 1 || col_block_size < 1) {
    throw invalid_argument("to_bsr: block sizes must be >= 1, got " +
                           shape(row_block_size, col_block_size));
  }
  if (A.rows() % row_block_size != 0 || A.cols() % col_block_size != 0) {
    throw invalid_argument(
        "to_bsr: a " + shape(A.rows(), A.cols()) + " matrix does not split into blocks of " +
        shape(row_block_size, col_block_size) + " (the block sizes must divide rows and cols)");
  }
  return A.executor().visit([&](const auto& e) {
    return kernels::bsr::from_csr(e, A.rows(), A.cols(), A.row_ptr().data(), A.col_idx().data(),
                                  A.values().data(), A.nnz(), row_block_size, col_block_size);
  });
}

template <class T>
CsrMatrix<T> to_csr(const BsrMatrix<T>& A) {
  return A.executor().visit([&](const auto& e) {
    return kernels::bsr::to_csr(e, A.block_rows(), A.block_cols(), A.row_block_size(),
                                A.col_block_size(), A.row_ptr().data(), A.col_idx().data(),
                                A.values().data(), A.num_blocks());
  });
}

template <class T>
BsrMatrix<T> transpose(const BsrMatrix<T>& A) {
  checked_index(A.block_rows() * A.row_block_size(), "transpose: rows of A (cols of A^T)");
  return A.executor().visit([&](const auto& e) {
    return kernels::bsr::transpose(e, A.block_rows(), A.block_cols(), A.row_block_size(),
                                   A.col_block_size(), A.row_ptr().data(), A.col_idx().data(),
                                   A.values().data(), A.num_blocks());
  });
}

template class BsrMatrix<float>;
template class BsrMatrix<double>;
template void spmv<float>(float, const BsrMatrix<float>&, const Vector<float>&, float,
                          Vector<float>&);
template void spmv<double>(double, const BsrMatrix<double>&, const Vector<double>&, double,
                           Vector<double>&);
template BsrMatrix<float> to_bsr<float>(const CsrMatrix<float>&, int, int);
template BsrMatrix<double> to_bsr<double>(const CsrMatrix<double>&, int, int);
template CsrMatrix<float> to_csr<float>(const BsrMatrix<float>&);
template CsrMatrix<double> to_csr<double>(const BsrMatrix<double>&);
template BsrMatrix<float> transpose<float>(const BsrMatrix<float>&);
template BsrMatrix<double> transpose<double>(const BsrMatrix<double>&);

}  // namespace strata
