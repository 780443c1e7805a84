#pragma once
// The first half of aggregation's stage 3, shared by unsmoothed aggregation
// (which then drops the columns of rank-deficient aggregates) and smoothed
// aggregation (which completes them, to keep P's b x k block structure).

#include <cstdio>
#include <string>

#include "strata/amg/aggregation.hpp"

namespace strata::amg::detail {

/// A parameter's value for a message ("%g").
inline std::string number(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", v);
  return buffer;
}

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

}  // namespace strata::amg::detail
