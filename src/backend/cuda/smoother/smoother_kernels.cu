// CUDA instantiation of the smoother kernels.
#include "backend/cuda/base/parallel.cuh"
#include "kernels/smoother/smoother_kernels.ipp"

#define STRATA_EXEC CudaExec
#include "kernels/smoother/smoother_instantiate.inc"
#undef STRATA_EXEC
