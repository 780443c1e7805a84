// Host instantiation of the triangular-solve kernels, and the host's level
// computation: one pass over the rows in dependency order.

#include "kernels/matrix/triangular_kernels.ipp"

#include <algorithm>

#include "backend/host/base/parallel.hpp"

namespace strata::kernels::triangular {

template <class T>
size_type levels(const HostExec&, size_type rows, size_type, const offset_type* s_ptr,
                 const index_type* s_col, const T*, bool lower, index_type* level) {
  index_type most = -1;
  for (size_type q = 0; q < rows; ++q) {
    // Lower: row i depends on rows j < i, which come first; upper: on j > i.
    const size_type i = lower ? q : rows - 1 - q;
    index_type l = 0;
    for (offset_type e = s_ptr[i]; e < s_ptr[i + 1]; ++e) l = std::max(l, level[s_col[e]] + 1);
    level[i] = l;
    most = std::max(most, l);
  }
  return size_type{most} + 1;
}

}  // namespace strata::kernels::triangular

#define STRATA_EXEC HostExec
#include "kernels/matrix/triangular_instantiate.inc"
#undef STRATA_EXEC
