// Host instantiation of the solver kernels.
#include "backend/host/base/parallel.hpp"
#include "kernels/solver/solver_kernels.ipp"

#define STRATA_EXEC HostExec
#include "kernels/solver/solver_instantiate.inc"
#undef STRATA_EXEC
