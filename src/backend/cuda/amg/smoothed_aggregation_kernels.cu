// CUDA instantiation of the smoothed-aggregation kernels
// (smoothed_aggregation_kernels.ipp).
#include "backend/cuda/base/parallel.cuh"
#include "kernels/amg/smoothed_aggregation_kernels.ipp"

#define STRATA_EXEC CudaExec
#include "kernels/amg/smoothed_aggregation_instantiate.inc"
#undef STRATA_EXEC
