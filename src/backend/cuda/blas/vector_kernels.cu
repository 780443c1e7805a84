// CUDA instantiation of the vector kernels.
#include "backend/cuda/base/parallel.cuh"
#include "kernels/blas/vector_kernels.ipp"

#define STRATA_EXEC CudaExec
#include "kernels/blas/vector_instantiate.inc"
#undef STRATA_EXEC

// The multi-vector kernels' shared body serves the device; the host has its
// own (backend/host/blas/vector_kernels.cpp).
namespace strata::kernels::blas {
#define STRATA_MULTI_KERNELS(T)                                                                    \
  template void multi_dot<CudaExec, T>(const CudaExec&, size_type, int, const T* const*, const T*, \
                                       T*);                                                        \
  template void multi_axpy<CudaExec, T>(const CudaExec&, size_type, int, const T* const*,          \
                                        const T*, T*);                                             \
  template void multi_axpy_dot<CudaExec, T>(const CudaExec&, size_type, int, const T* const*,      \
                                            const T*, T*, T*);
STRATA_MULTI_KERNELS(float)
STRATA_MULTI_KERNELS(double)
#undef STRATA_MULTI_KERNELS
}  // namespace strata::kernels::blas
