// Host instantiation of the gallery generators (gallery_kernels.ipp).
#include "backend/host/base/parallel.hpp"
#include "kernels/gallery/gallery_kernels.ipp"

#define STRATA_EXEC HostExec
#include "kernels/gallery/gallery_instantiate.inc"
#undef STRATA_EXEC
