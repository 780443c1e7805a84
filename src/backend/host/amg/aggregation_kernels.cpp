// Host instantiation of the aggregation kernels (aggregation_kernels.ipp).
#include "kernels/amg/aggregation_kernels.ipp"

#include "backend/host/base/parallel.hpp"

#define STRATA_EXEC HostExec
#include "kernels/amg/aggregation_instantiate.inc"
#undef STRATA_EXEC
