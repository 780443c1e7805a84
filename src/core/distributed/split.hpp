#pragma once
// Splitting rows with global column ids into hypre's two blocks, shared by
// DistributedCsrMatrix's constructor and DistributedProduct::recompute.

#include <cstdint>

#include "kernels/distributed/distributed_kernels.hpp"
#include "strata/core/array.hpp"
#include "strata/core/primitives.hpp"

namespace strata::detail {

/// Each entry's position in its block, as split_entries reads it: the
/// exclusive scan of a flag per owned entry (columns in [begin, end)), nnz
/// + 1 entries on `exec`; `owned` gets the diagonal block's entry count.
inline Array<offset_type> block_positions(const Executor& exec, offset_type nnz,
                                          const std::int64_t* cols, std::int64_t begin,
                                          std::int64_t end, offset_type& owned) {
  Array<offset_type> position(exec, nnz + 1);
  exec.visit([&](const auto& e) {
    kernels::distributed::owned_flags(e, nnz, cols, begin, end, position.data());
  });
  owned = exclusive_scan(position, position);
  return position;
}

}  // namespace strata::detail
