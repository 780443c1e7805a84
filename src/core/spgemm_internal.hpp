#pragma once
/// \file
/// Hooks into the sparse product for the tests and the benchmarks; not part
/// of the installed API (they reach it through the include path
/// ${PROJECT_SOURCE_DIR}/src). Defined in core/spgemm.cpp.

#include <cstdint>

#include "strata/core/array.hpp"
#include "strata/core/types.hpp"

namespace strata::detail {

/// For the size-safety tests (they check the 64-bit counting without
/// allocating 2^31 entries):
///
/// work[i] = sum over A's entries (i, k) of b_row_ptr[k+1] - b_row_ptr[k]:
/// the products of row i of C = A B, 64-bit. Needs only A's pattern and B's
/// row offsets. Returns the sum over all rows. All arrays on one executor;
/// work has a_row_ptr.size() - 1 entries.
size_type spgemm_row_products(const Array<offset_type>& a_row_ptr,
                              const Array<index_type>& a_col_idx,
                              const Array<offset_type>& b_row_ptr, Array<offset_type>& work);

/// Turns the per-row nonzero counts in counts[0 .. n-1) into row offsets in
/// place (counts[n-1] is overwritten with the total, which is returned), in
/// 64-bit. Throws invalid_argument naming the first row whose count is
/// negative or above max_per_row, which is how a count that wrapped in
/// 32-bit arithmetic would show.
size_type spgemm_counts_to_offsets(Array<offset_type>& counts, size_type max_per_row);

/// For the tests of the CUDA product: its count pass computes rows of up to
/// 256 products whole and keeps up to `entries` entries of C (default 2^28)
/// for the fill, which computes the rest again. Sets that budget for every
/// later product and returns the previous one.
std::uint64_t spgemm_staging_budget(std::uint64_t entries);

/// For tuning (the benchmarks' --spgemm-stages): with `on`, every later CUDA
/// product prints its stage times (binning, count, fill, values per row
/// class) to stderr, from events recorded between the stages. Returns the
/// previous setting; off by default, when it costs nothing. The host
/// product ignores it.
bool spgemm_stage_timing(bool on);

}  // namespace strata::detail
