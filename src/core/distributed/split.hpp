#pragma once
// Splitting rows with global column ids into hypre's two blocks, shared by
// DistributedCsrMatrix's constructor and DistributedProduct::recompute, and
// the compression of the off-diagonal block's columns, shared by the scalar
// and the block matrix (whose column map holds nodes).

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

/// The compressed column map of an off-diagonal block: the distinct ids of
/// `ids` (the global column ids of its entries, in any order), sorted, into
/// `map`; returns each entry's position in the map, on ids' executor. A
/// sort and a segmented reduction over runs of equal ids, then a binary
/// search per entry (a hash map would not give the sorted map the halo plan
/// needs).
inline Array<index_type> compress_columns(const Array<std::int64_t>& ids,
                                          Array<std::int64_t>& map) {
  const Executor& exec = ids.executor();
  const size_type n = ids.size();
  Array<std::int64_t> sorted = ids.clone();
  Array<std::int32_t> ones(exec, n, 1), run_lengths(exec, 0);
  stable_sort_by_key(sorted, ones);
  map = Array<std::int64_t>(exec, 0);
  const size_type distinct = reduce_by_key(sorted, ones, map, run_lengths);
  Array<index_type> positions(exec, n);
  exec.visit([&](const auto& e) {
    kernels::distributed::locate_sorted(e, n, ids.data(), map.data(), distinct, positions.data());
  });
  return positions;
}

}  // namespace strata::detail
