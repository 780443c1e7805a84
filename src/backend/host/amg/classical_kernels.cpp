// Host instantiation of the classical-coarsening kernels.
#include "kernels/amg/classical_kernels.ipp"

#include "backend/host/base/parallel.hpp"

#define STRATA_EXEC HostExec
#include "kernels/amg/classical_instantiate.inc"
#undef STRATA_EXEC
