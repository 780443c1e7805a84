// Host instantiation of the structured kernels (box loops on OpenMP).
#include "kernels/structured/structured_kernels.ipp"

#include "backend/host/base/parallel.hpp"

#define STRATA_EXEC HostExec
#include "kernels/structured/structured_instantiate.inc"
#undef STRATA_EXEC
