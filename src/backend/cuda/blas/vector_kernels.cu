// CUDA instantiation of the vector kernels.
#include "backend/cuda/base/parallel.cuh"
#include "kernels/blas/vector_kernels.ipp"

#define STRATA_EXEC CudaExec
#include "kernels/blas/vector_instantiate.inc"
#undef STRATA_EXEC
