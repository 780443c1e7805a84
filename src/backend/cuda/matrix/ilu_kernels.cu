// CUDA instantiation of the shared ILU kernels (ilu_kernels.ipp): the
// level-scheduled numeric factorization runs on the device.
#include "backend/cuda/base/parallel.cuh"
#include "kernels/matrix/ilu_kernels.ipp"

#define STRATA_EXEC CudaExec
#include "kernels/matrix/ilu_instantiate.inc"
#undef STRATA_EXEC
