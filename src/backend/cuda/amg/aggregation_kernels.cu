// CUDA instantiation of the aggregation kernels (aggregation_kernels.ipp).
#include "backend/cuda/base/parallel.cuh"
#include "kernels/amg/aggregation_kernels.ipp"

#define STRATA_EXEC CudaExec
#include "kernels/amg/aggregation_instantiate.inc"
#undef STRATA_EXEC
