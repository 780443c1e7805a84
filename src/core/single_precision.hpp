#pragma once
// Rounding a level's data to single precision for the single-precision AMG
// cycle (HierarchyParams::cycle_precision), with one error for values
// beyond float's range, wherever the data comes from (operators,
// smoothers' scalings and inverted blocks, the coarse inverse).

#include <cmath>
#include <string>
#include <type_traits>

#include "strata/core/error.hpp"
#include "strata/core/primitives.hpp"
#include "strata/matrix/vector.hpp"

namespace strata::detail {

/// `values` rounded to float on their executor. Throws invalid_argument
/// naming `what` when a finite value lies beyond float's range.
template <class T>
Array<float> single_copy(const Array<T>& values, const std::string& what) {
  if constexpr (std::is_same_v<T, float>) {
    return values.clone();
  } else {
    Array<float> single(values.executor(), values.size());
    const size_type overflowed = convert(values, single);
    if (overflowed > 0) {
      throw invalid_argument(what + ": " + std::to_string(overflowed) +
                             " values lie beyond single precision's range (about 3.4e38); "
                             "keep the AMG cycle in double precision");
    }
    return single;
  }
}

/// The power of two e by which a single-precision cycle scales the vector b
/// it is given (and by 2^-e the x it returns). A cycle is linear in b (the
/// K-cycle homogeneous of degree one), so cycling 2^e b and scaling back
/// gives the same x exactly; e puts b's largest entry in [1, 2): no
/// overflow however large b is, no loss to underflow however small
/// (subnormal b included). A b of zeros, or with NaN or infinite entries
/// (whose max-norm says nothing about the rest), goes in unscaled (e = 0):
/// zeros give zeros, NaN stays NaN for the Krylov method to see.
template <class T>
int single_precision_exponent(const Vector<T>& b) {
  const double s = static_cast<double>(norm_inf(b));
  return s > 0 && std::isfinite(s) ? -std::ilogb(s) : 0;
}

}  // namespace strata::detail
