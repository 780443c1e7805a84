#pragma once
// Kernel contract of the distributed matrix (strata/distributed/matrix.hpp):
// splitting the rows a process owns, with global column ids, into hypre's
// diagonal block (owned columns, local indices) and off-diagonal block
// (other columns, by position in a sorted column map). Arguments are raw
// pointers in the executor's memory; src/core/distributed/matrix.cpp has
// checked sizes and locations. The bodies are in distributed_kernels.ipp.

#include <cstdint>

#include "strata/core/executor.hpp"
#include "strata/core/types.hpp"

namespace strata::kernels::distributed {

/// The first entry k of cols[0..nnz) outside [0, global_cols), or -1.
template <class Exec>
size_type first_bad_column(const Exec& exec, size_type nnz, const std::int64_t* cols,
                           std::int64_t global_cols);

/// For every row i: diag_count[i] = its entries with col_begin <= col <
/// col_end, offd_count[i] = the others; diag_count[rows] = offd_count[rows]
/// = 0 (both have rows + 1 entries, ready for an exclusive scan into row
/// pointers).
template <class Exec>
void count_split(const Exec& exec, size_type rows, const offset_type* row_ptr,
                 const std::int64_t* cols, std::int64_t col_begin, std::int64_t col_end,
                 offset_type* diag_count, offset_type* offd_count);

/// Where split_rows writes: the two blocks' row pointers (from count_split
/// and a scan) and their entries; the off-diagonal block's columns are the
/// global ids here (locate_sorted turns them into positions).
template <class T>
struct SplitTarget {
  const offset_type* diag_ptr;
  index_type* diag_col;
  T* diag_val;
  const offset_type* offd_ptr;
  std::int64_t* offd_global;
  T* offd_val;
};

/// Copies every entry into its block, keeping the order within each row:
/// an owned column as col - col_begin, another as its global id.
template <class Exec, class T>
void split_rows(const Exec& exec, size_type rows, const offset_type* row_ptr,
                const std::int64_t* cols, const T* values, std::int64_t col_begin,
                std::int64_t col_end, SplitTarget<T> target);

/// out[k] = the position of ids[k] in the sorted, distinct map[0..map_size)
/// (binary search; every id is in the map).
template <class Exec>
void locate_sorted(const Exec& exec, size_type n, const std::int64_t* ids, const std::int64_t* map,
                   size_type map_size, index_type* out);

/// out[k] = cols[k] as a 64-bit global id (the columns of an assembled
/// block of owned rows, which are global already).
template <class Exec>
void widen_columns(const Exec& exec, size_type n, const index_type* cols, std::int64_t* out);

}  // namespace strata::kernels::distributed
