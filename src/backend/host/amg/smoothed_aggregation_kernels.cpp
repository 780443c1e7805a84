// Host instantiation of the smoothed-aggregation kernels
// (smoothed_aggregation_kernels.ipp).
#include "kernels/amg/smoothed_aggregation_kernels.ipp"

#include "backend/host/base/parallel.hpp"

#define STRATA_EXEC HostExec
#include "kernels/amg/smoothed_aggregation_instantiate.inc"
#undef STRATA_EXEC
