// Host instantiation of the smoother kernels.
#include "kernels/smoother/smoother_kernels.ipp"

#include "backend/host/base/parallel.hpp"

#define STRATA_EXEC HostExec
#include "kernels/smoother/smoother_instantiate.inc"
#undef STRATA_EXEC
