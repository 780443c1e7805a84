// Host instantiation of the classical-coarsening kernels.
#include "kernels/amg/classical_kernels.ipp"

#include "backend/host/base/parallel.hpp"

namespace strata::kernels::classical {
template void strength<HostExec, double>(const HostExec&, size_type, size_type, const offset_type*,
                                         const index_type*, const double*, double, double,
                                         std::uint8_t*);
template MmOperands<double> mm_operands<HostExec, double>(const HostExec&,
                                                          const InterpolationInput<double>&,
                                                          MmVariant);
template void mm_operand_values<HostExec, double>(const HostExec&,
                                                  const InterpolationInput<double>&, MmVariant,
                                                  MmOperands<double>&);
}  // namespace strata::kernels::classical

#define STRATA_EXEC HostExec
#include "kernels/amg/classical_instantiate.inc"
#undef STRATA_EXEC
