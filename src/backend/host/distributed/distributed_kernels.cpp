// Host instantiation of the distributed-matrix kernels (distributed_kernels.ipp).
#include "kernels/distributed/distributed_kernels.ipp"

#include "backend/host/base/parallel.hpp"

#define STRATA_EXEC HostExec
#include "kernels/distributed/distributed_instantiate.inc"
#undef STRATA_EXEC
