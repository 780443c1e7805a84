// CUDA instantiation of the distributed-matrix kernels (distributed_kernels.ipp).
#include "backend/cuda/base/parallel.cuh"
#include "kernels/distributed/distributed_kernels.ipp"

#define STRATA_EXEC CudaExec
#include "kernels/distributed/distributed_instantiate.inc"
#undef STRATA_EXEC
