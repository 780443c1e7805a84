// CUDA instantiation of the structured kernels (box loops as CUDA kernels).
#include "backend/cuda/base/parallel.cuh"
#include "kernels/structured/structured_kernels.ipp"

#define STRATA_EXEC CudaExec
#include "kernels/structured/structured_instantiate.inc"
#undef STRATA_EXEC
