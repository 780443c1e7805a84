// CUDA instantiation of the solver kernels.
#include "backend/cuda/base/parallel.cuh"
#include "kernels/solver/solver_kernels.ipp"

#define STRATA_EXEC CudaExec
#include "kernels/solver/solver_instantiate.inc"
#undef STRATA_EXEC
