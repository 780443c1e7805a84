// CUDA instantiation of the primitives.
#include <cstdint>

#include "backend/cuda/base/parallel.cuh"
#include "kernels/base/primitives_kernels.ipp"

#define STRATA_EXEC CudaExec
#include "kernels/base/primitives_instantiate.inc"
#undef STRATA_EXEC
