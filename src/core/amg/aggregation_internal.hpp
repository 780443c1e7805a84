#pragma once
// The first half of aggregation's stage 3, shared by unsmoothed aggregation
// (which then drops the columns of rank-deficient aggregates) and smoothed
// aggregation (which completes them, to keep P's b x k block structure).

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "strata/amg/aggregation.hpp"

namespace strata::amg::detail {

/// A parameter's value for a message ("%g").
inline std::string number(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", v);
  return buffer;
}

/// Columns whose norm after orthogonalisation falls below this fraction of
/// their norm before are dropped (B rank-deficient on the aggregate); the
/// serial and the distributed stage share it.
inline constexpr double aggregate_drop_tolerance = 1e-8;

/// P(i, a k + c) = Q_a(i, c) with B restricted to aggregate a = Q_a R_a
/// (modified Gram-Schmidt, as piecewise_constant_interpolation), before any
/// column is dropped: columns of rank-deficient aggregates are zero in P
/// and R and have keep[a k + c] = 0 and zero rows in coarse_B.
template <class T>
struct OrthonormalizedAggregates {
  CsrMatrix<T> P;
  CsrMatrix<T> R;
  /// Column-major, P.cols() x columns.
  Array<T> coarse_B;
  Array<index_type> keep;
  size_type dropped = 0;
};

template <class T>
OrthonormalizedAggregates<T> orthonormalize(const Aggregates& aggregates,
                                            const Array<T>& near_null_space, int columns);

/// A column-major near-null space of `columns` vectors moved with its rows
/// (agglomeration, Coarsening::move_coarse_rows): each column through
/// `move`, stacked again column-major. Shared by both aggregations.
template <class T>
Array<T> move_near_null_rows(const Array<T>& B, int columns,
                             const std::function<Vector<T>(const Vector<T>&)>& move) {
  const Executor& exec = B.executor();
  const size_type rows = B.size() / columns;
  std::vector<Vector<T>> moved;
  for (int c = 0; c < columns; ++c) {
    Vector<T> column(exec, rows);
    if (rows > 0) copy_bytes(column.data(), exec, B.data() + c * rows, exec, sizeof(T) * rows);
    moved.push_back(move(column));
  }
  const size_type new_rows = moved.front().size();
  Array<T> result(exec, new_rows * columns);
  for (int c = 0; c < columns && new_rows > 0; ++c) {
    copy_bytes(result.data() + c * new_rows, exec, moved[std::size_t(c)].data(), exec,
               sizeof(T) * new_rows);
  }
  return result;
}

}  // namespace strata::amg::detail
