// Single-source helpers of spgemm_kernels.hpp: the work per row, the row
// offsets from counts (with the overflow check) and the pattern fingerprint.
// Included by one backend file after that backend's parallel header, so the
// unqualified primitives resolve (by argument-dependent lookup on Exec) to
// that backend.

#include <limits>
#include <string>

#include "kernels/base/hd.hpp"
#include "kernels/base/random.hpp"
#include "kernels/matrix/spgemm_kernels.hpp"

namespace strata::kernels::spgemm {

template <class Exec>
size_type row_products(const Exec& exec, size_type rows, const offset_type* a_row_ptr,
                       const index_type* a_col_idx, const offset_type* b_row_ptr,
                       offset_type* work) {
  // 64-bit throughout: one row can need more than 2^31 products (a long
  // row of A meeting long rows of B) even when C itself is small.
  parallel_for(exec, rows, [=] STRATA_HD(size_type i) {
    offset_type w = 0;
    for (offset_type e = a_row_ptr[i]; e < a_row_ptr[i + 1]; ++e) {
      const index_type k = a_col_idx[e];
      w += b_row_ptr[k + 1] - b_row_ptr[k];
    }
    work[i] = w;
  });
  return transform_reduce(
      exec, rows, size_type{0}, [=] STRATA_HD(size_type i) { return work[i]; }, ops::Plus{});
}

template <class Exec>
size_type counts_to_offsets(const Exec& exec, offset_type* row_ptr, size_type rows,
                            size_type max_per_row) {
  constexpr size_type none = std::numeric_limits<size_type>::max();
  const size_type bad = transform_reduce(
      exec, rows, none,
      [=] STRATA_HD(size_type i) {
        const offset_type c = row_ptr[i];
        return c < 0 || c > max_per_row ? i : none;
      },
      ops::Min{});
  if (bad != none) {
    offset_type count = 0;
    copy_bytes(&count, Executor::host(), row_ptr + bad, Executor(exec), sizeof(count));
    throw invalid_argument("spgemm: row " + std::to_string(bad) + " of C counts " +
                           std::to_string(count) + " nonzeros; expected between 0 and " +
                           std::to_string(max_per_row) +
                           " (the columns of B): a count that wrapped around");
  }
  parallel_for(exec, 1, [=] STRATA_HD(size_type) { row_ptr[rows] = 0; });
  return exclusive_scan(exec, row_ptr, row_ptr, rows + 1);
}

template <class Exec>
std::uint64_t pattern_fingerprint(const Exec& exec, const Pattern& P) {
  const offset_type* row_ptr = P.row_ptr;
  const index_type* col_idx = P.col_idx;
  // Unsigned sums wrap by design; they are order independent, so the host
  // and the device agree and a run repeats.
  const std::uint64_t entries = transform_reduce(
      exec, P.nnz, std::uint64_t{0},
      [=] STRATA_HD(size_type k) {
        return base::murmur3_mix(static_cast<std::uint64_t>(k) * base::golden_gamma +
                                 static_cast<std::uint32_t>(col_idx[k]));
      },
      ops::Plus{});
  const std::uint64_t offsets = transform_reduce(
      exec, P.rows + 1, std::uint64_t{0},
      [=] STRATA_HD(size_type i) {
        return base::murmur3_mix(static_cast<std::uint64_t>(i) * base::index_multiplier ^
                                 static_cast<std::uint64_t>(row_ptr[i]));
      },
      ops::Plus{});
  return base::murmur3_mix(entries ^
                           base::murmur3_mix(offsets + static_cast<std::uint64_t>(P.cols)));
}

}  // namespace strata::kernels::spgemm
