// CUDA instantiation of the CSR transpose (transpose_kernels.ipp).
#include "backend/cuda/base/parallel.cuh"
#include "kernels/matrix/transpose_kernels.ipp"

#define STRATA_EXEC CudaExec
#include "kernels/matrix/transpose_instantiate.inc"
#undef STRATA_EXEC
