#pragma once
// Separately rounded products and sums for single-source kernels whose host
// and device results must agree bit for bit: nvcc would otherwise fuse
// a * b + c into one rounding on the device and the host compiler would not,
// and values compared against thresholds (strength, aggregation) or summed
// into coarse matrices would differ in the last bit between the backends.

#include "kernels/base/hd.hpp"

namespace strata::kernels {

STRATA_HD inline double mul(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
STRATA_HD inline double add(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}
STRATA_HD inline float mul(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
STRATA_HD inline float add(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}

}  // namespace strata::kernels
