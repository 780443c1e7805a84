// CUDA instantiation of the distributed classical-coarsening kernels.
#include "backend/cuda/base/parallel.cuh"
#include "kernels/amg/distributed_classical_kernels.ipp"

#define STRATA_EXEC CudaExec
#include "kernels/amg/distributed_classical_instantiate.inc"
#undef STRATA_EXEC
