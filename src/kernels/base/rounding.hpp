#pragma once
// Separately rounded products and sums for single-source kernels whose host
// and device results must agree bit for bit: nvcc would otherwise fuse
// a * b + c into one rounding on the device and the host compiler would not,
// and values compared against thresholds (strength, aggregation) or summed
// into coarse matrices would differ in the last bit between the backends.
// For float and double.

#include <type_traits>

#include "kernels/base/hd.hpp"

namespace strata::kernels {

template <class T>
STRATA_HD inline T mul(T a, T b) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, float>) {
    return __fmul_rn(a, b);
  } else {
    return __dmul_rn(a, b);
  }
#else
  return a * b;
#endif
}

template <class T>
STRATA_HD inline T add(T a, T b) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, float>) {
    return __fadd_rn(a, b);
  } else {
    return __dadd_rn(a, b);
  }
#else
  return a + b;
#endif
}

}  // namespace strata::kernels
