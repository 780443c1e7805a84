#pragma once
// STRATA_HD marks a function or lambda as callable on host and device. It is
// the portability macro of the kernel layer: single-source kernel bodies
// (*.ipp) are compiled by the host compiler for HostExec and by nvcc
// (--extended-lambda) for CudaExec. STRATA_UNROLL asks nvcc to unroll the
// loop it precedes fully (small fixed-size arrays then stay in registers);
// host compilers decide for themselves.
#if defined(__CUDACC__)
#define STRATA_HD __host__ __device__
#define STRATA_UNROLL _Pragma("unroll")
#else
#define STRATA_HD
#define STRATA_UNROLL
#endif

#include <limits>

namespace strata::ops {

struct Plus {
  template <class T>
  STRATA_HD T operator()(const T& a, const T& b) const {
    return a + b;
  }
};
struct Max {
  template <class T>
  STRATA_HD T operator()(const T& a, const T& b) const {
    return a < b ? b : a;
  }
};
struct Min {
  template <class T>
  STRATA_HD T operator()(const T& a, const T& b) const {
    return b < a ? b : a;
  }
};

}  // namespace strata::ops
