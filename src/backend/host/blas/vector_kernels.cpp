// Host instantiation of the vector kernels.
#include "backend/host/base/parallel.hpp"
#include "kernels/blas/vector_kernels.ipp"

#define STRATA_EXEC HostExec
#include "kernels/blas/vector_instantiate.inc"
#undef STRATA_EXEC
