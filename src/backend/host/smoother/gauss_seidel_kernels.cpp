// Host instantiation of the Gauss-Seidel kernels.
#include "backend/host/base/parallel.hpp"

namespace strata::kernels::smoother {
// One task per block of a hybrid Gauss-Seidel sweep: the blocks are few and
// long, so they go to the threads even below parallel_for's threshold.
template <class F>
void gauss_seidel_for_each_block(const HostExec& exec, size_type blocks, F&& f) {
  host_detail::for_each_task(exec, blocks, f);
}
}  // namespace strata::kernels::smoother

#include "kernels/smoother/gauss_seidel_kernels.ipp"

#define STRATA_EXEC HostExec
#include "kernels/smoother/gauss_seidel_instantiate.inc"
#undef STRATA_EXEC
