// CUDA instantiation of the Gauss-Seidel kernels.
#include "backend/cuda/base/parallel.cuh"

namespace strata::kernels::smoother {
// One thread per block of a hybrid Gauss-Seidel sweep: the host algorithm,
// run as it is (multicolor and two-stage Gauss-Seidel are the device forms).
template <class F>
void gauss_seidel_for_each_block(const CudaExec& exec, size_type blocks, F f) {
  parallel_for(exec, blocks, f);
}
}  // namespace strata::kernels::smoother

#include "kernels/smoother/gauss_seidel_kernels.ipp"

#define STRATA_EXEC CudaExec
#include "kernels/smoother/gauss_seidel_instantiate.inc"
#undef STRATA_EXEC
