#pragma once
/// \file
/// Compressed sparse row matrices and SpMV.

#include <atomic>
#include <string>
#include <utility>

#include "strata/core/array.hpp"
#include "strata/matrix/vector.hpp"

namespace strata {

/// A sparse matrix in compressed sparse row form, on one executor.
///
/// Row offsets are 64-bit (nnz may exceed 2^31); column indices are 32-bit
/// local indices (cols() < 2^31). Within a row, column indices need not be
/// sorted, but duplicates are not allowed; validate() checks this. With MPI
/// this becomes the local "diag" block of a distributed matrix, beside an
/// "offd" block with its column map, so nothing here assumes it is the whole
/// operator.
template <class T>
class CsrMatrix {
 public:
  using value_type = T;

  /// An empty 0 x 0 host matrix.
  CsrMatrix() : row_ptr_(Executor::host(), 1, offset_type{0}) {}

  /// Takes ownership of the three arrays, which must all live on one executor.
  /// Checks sizes (row_ptr has rows+1 entries, col_idx and values have the
  /// same size) and that cols fits a 32-bit index; the content is checked by
  /// validate(), which costs a pass over the matrix.
  CsrMatrix(size_type rows, size_type cols, Array<offset_type> row_ptr, Array<index_type> col_idx,
            Array<T> values);

  size_type rows() const noexcept { return rows_; }
  size_type cols() const noexcept { return cols_; }
  size_type nnz() const noexcept { return col_idx_.size(); }
  const Executor& executor() const noexcept { return row_ptr_.executor(); }
  Location location() const noexcept { return row_ptr_.location(); }

  const Array<offset_type>& row_ptr() const noexcept { return row_ptr_; }
  const Array<index_type>& col_idx() const noexcept { return col_idx_; }
  const Array<T>& values() const noexcept { return values_; }
  /// Values may change in place; the pattern may not.
  Array<T>& values() noexcept { return values_; }

  /// Entries in the longest row. Computed on the first call (a pass over
  /// row_ptr; on a device, one synchronisation) and kept, since the pattern
  /// never changes. SpMV uses it to tell stencil-like matrices, whose rows
  /// are all about as long, from coarse AMG operators, whose rows vary.
  size_type max_row_nnz() const;

  /// A copy on `target`.
  CsrMatrix to(const Executor& target) const;
  CsrMatrix clone() const { return to(executor()); }

  /// Checks the content: row_ptr[0] == 0, non-decreasing, row_ptr[rows] == nnz,
  /// column indices in [0, cols), no duplicate column within a row, and
  /// finite values. Throws invalid_argument naming the first bad row.
  void validate() const;

 private:
  size_type rows_ = 0;
  size_type cols_ = 0;
  Array<offset_type> row_ptr_;
  Array<index_type> col_idx_;
  Array<T> values_;
  /// A value computed from the pattern once (-1 until then). Copies carry it
  /// with the pattern; atomic so that concurrent const use stays defined.
  struct CachedSize {
    std::atomic<size_type> value{-1};
    CachedSize() = default;
    CachedSize(const CachedSize& other) noexcept : value(other.value.load(std::memory_order_relaxed)) {}
    CachedSize& operator=(const CachedSize& other) noexcept {
      value.store(other.value.load(std::memory_order_relaxed), std::memory_order_relaxed);
      return *this;
    }
  };
  mutable CachedSize max_row_nnz_;
};

/// y = alpha * A * x + beta * y, on the executor where A lives (x and y must
/// live there too). With beta == 0, y is overwritten (NaN in y is ignored).
template <class T>
void spmv(T alpha, const CsrMatrix<T>& A, const Vector<T>& x, T beta, Vector<T>& y);

/// y = A * x
template <class T>
void spmv(const CsrMatrix<T>& A, const Vector<T>& x, Vector<T>& y) {
  spmv(T{1}, A, x, T{0}, y);
}

/// r = b - A x in one pass over A (the residual, without storing A x).
/// r may be b; x must be neither.
template <class T>
void residual(const CsrMatrix<T>& A, const Vector<T>& b, const Vector<T>& x, Vector<T>& r);

/// y = alpha * A * x + beta * z (z may be y, and must not be x).
template <class T>
void spmv(T alpha, const CsrMatrix<T>& A, const Vector<T>& x, T beta, const Vector<T>& z,
          Vector<T>& y);

/// y = A x for square A, returning x^T y in the same pass (CG's p^T A p
/// without a second read of p and A p).
template <class T>
T spmv_dot(const CsrMatrix<T>& A, const Vector<T>& x, Vector<T>& y);

/// What `strata info` reports about a matrix.
struct MatrixProperties {
  size_type rows = 0;
  size_type cols = 0;
  size_type nnz = 0;
  size_type min_row_nnz = 0;
  size_type max_row_nnz = 0;
  double mean_row_nnz = 0.0;
  size_type empty_rows = 0;
  /// Pattern of A equals the pattern of A^T.
  bool structurally_symmetric = false;
  /// A == A^T up to a relative tolerance of 1e-12 * max|a_ij|.
  bool numerically_symmetric = false;
  /// Largest |a_ij - a_ji| over all entries (0 when symmetric).
  double max_asymmetry = 0.0;
  size_type positive_diagonal = 0;
  size_type negative_diagonal = 0;
  /// Rows whose diagonal entry is zero or not stored.
  size_type zero_diagonal = 0;
  /// Rows with |a_ii| >= sum_{j != i} |a_ij|.
  size_type diagonally_dominant_rows = 0;
  /// Rows with |a_ii| > sum_{j != i} |a_ij|.
  size_type strictly_diagonally_dominant_rows = 0;
};

/// Analyses a host matrix (throws location_mismatch for a device matrix:
/// move it with to(Executor::host()) first).
template <class T>
MatrixProperties analyze(const CsrMatrix<T>& A);

}  // namespace strata
