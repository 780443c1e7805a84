#pragma once
// Rounding a level's data to single precision for the single-precision AMG
// cycle (HierarchyParams::cycle_precision), with one error for values
// beyond float's range, wherever the data comes from (operators,
// smoothers' scalings and inverted blocks, the coarse inverse).

#include <string>
#include <type_traits>

#include "strata/core/error.hpp"
#include "strata/core/primitives.hpp"

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

}  // namespace strata::detail
