// CUDA instantiation of the gallery generators (gallery_kernels.ipp).
#include "backend/cuda/base/parallel.cuh"
#include "kernels/gallery/gallery_kernels.ipp"

#define STRATA_EXEC CudaExec
#include "kernels/gallery/gallery_instantiate.inc"
#undef STRATA_EXEC
