// Host instantiation of the primitives.
#include <cstdint>

#include "backend/host/base/parallel.hpp"
#include "kernels/base/primitives_kernels.ipp"

#define STRATA_EXEC HostExec
#include "kernels/base/primitives_instantiate.inc"
#undef STRATA_EXEC
