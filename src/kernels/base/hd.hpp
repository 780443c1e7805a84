#pragma once
// STRATA_HD marks a function or lambda as callable on host and device. It is
// the one portability macro of the kernel layer: single-source kernel bodies
// (*.ipp) are compiled by the host compiler for HostExec and by nvcc
// (--extended-lambda) for CudaExec.
#if defined(__CUDACC__)
#define STRATA_HD __host__ __device__
#else
#define STRATA_HD
#endif

#include <limits>

namespace strata::ops {

struct Plus {
  template <class T>
  STRATA_HD T operator()(const T& a, const T& b) const { return a + b; }
};
struct Max {
  template <class T>
  STRATA_HD T operator()(const T& a, const T& b) const { return a < b ? b : a; }
};
struct Min {
  template <class T>
  STRATA_HD T operator()(const T& a, const T& b) const { return b < a ? b : a; }
};

}  // namespace strata::ops
