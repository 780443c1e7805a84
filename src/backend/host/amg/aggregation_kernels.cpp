// Host instantiation of the aggregation kernels (aggregation_kernels.ipp).
#include "kernels/amg/aggregation_kernels.ipp"

#include "backend/host/base/parallel.hpp"

namespace strata::kernels::aggregation {

void sort_by_key_bits(const HostExec& exec, std::uint64_t* keys, offset_type* values, size_type n,
                      int /*bits*/) {
  stable_sort_by_key(exec, keys, values, n);
}

}  // namespace strata::kernels::aggregation

#define STRATA_EXEC HostExec
#include "kernels/amg/aggregation_instantiate.inc"
#undef STRATA_EXEC
