// Host instantiation of the distributed classical-coarsening kernels.
#include "kernels/amg/distributed_classical_kernels.ipp"

#include "backend/host/base/parallel.hpp"

#define STRATA_EXEC HostExec
#include "kernels/amg/distributed_classical_instantiate.inc"
#undef STRATA_EXEC
