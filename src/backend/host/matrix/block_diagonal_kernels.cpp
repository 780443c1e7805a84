// Host instantiation of the block-diagonal kernels.
#include "kernels/matrix/block_diagonal_kernels.ipp"

#include "backend/host/base/parallel.hpp"

#define STRATA_EXEC HostExec
#include "kernels/matrix/block_diagonal_instantiate.inc"
#undef STRATA_EXEC
