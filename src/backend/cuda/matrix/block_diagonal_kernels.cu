// CUDA instantiation of the block-diagonal kernels: one thread per block row
// for the small inversions, one per scalar row for the applications of D^-1.
#include "backend/cuda/base/parallel.cuh"
#include "kernels/matrix/block_diagonal_kernels.ipp"

#define STRATA_EXEC CudaExec
#include "kernels/matrix/block_diagonal_instantiate.inc"
#undef STRATA_EXEC
