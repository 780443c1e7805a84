// Single-source bodies of ilu_kernels.hpp (the host-only symbolic ILU(k) and
// ILUT are in backend/host/matrix/ilu_kernels.cpp). Included by one backend
// file beside that backend's parallel header.

#include <cstdint>
#include <limits>

#include "kernels/base/hd.hpp"
#include "kernels/matrix/ilu_kernels.hpp"
#include "strata/core/array.hpp"

namespace strata::kernels::ilu {

template <class Exec>
bool rows_sorted(const Exec& exec, size_type rows, const offset_type* row_ptr,
                 const index_type* col_idx) {
  const int sorted = transform_reduce(
      exec, rows, 1,
      [=] STRATA_HD(size_type i) -> int {
        for (offset_type e = row_ptr[i] + 1; e < row_ptr[i + 1]; ++e) {
          if (col_idx[e] <= col_idx[e - 1]) return 0;
        }
        return 1;
      },
      ops::Min{});
  return sorted == 1;
}

template <class Exec, class T>
void sort_rows(const Exec& exec, size_type rows, size_type nnz, const offset_type* row_ptr,
               const index_type* col_idx, const T* values, index_type* out_col, T* out_val) {
  if (nnz == 0) return;
  // Key (row, column) in 64 bits: one stable sort orders every row at once
  // and keeps the rows where they were.
  Array<std::uint64_t> keys(Executor(exec), nnz);
  Array<offset_type> positions(Executor(exec), nnz);
  std::uint64_t* key = keys.data();
  offset_type* position = positions.data();
  parallel_for(exec, rows, [=] STRATA_HD(size_type i) {
    for (offset_type e = row_ptr[i]; e < row_ptr[i + 1]; ++e) {
      key[e] = (static_cast<std::uint64_t>(i) << 32) | static_cast<std::uint32_t>(col_idx[e]);
      position[e] = e;
    }
  });
  int end_bit = 33;
  while (end_bit < 64 && (size_type{1} << (end_bit - 32)) <= rows) ++end_bit;
  stable_sort_by_key(exec, key, position, nnz, end_bit);
  parallel_for(exec, nnz, [=] STRATA_HD(size_type e) {
    out_col[e] = static_cast<index_type>(key[e] & 0xffffffffu);
    out_val[e] = values[position[e]];
  });
}

template <class Exec, class T>
size_type diagonal_positions(const Exec& exec, size_type rows, const offset_type* row_ptr,
                             const index_type* col_idx, const T* values, offset_type* diag,
                             T* scale) {
  constexpr size_type none = std::numeric_limits<size_type>::max();
  const size_type missing = transform_reduce(
      exec, rows, none,
      [=] STRATA_HD(size_type i) -> size_type {
        offset_type d = -1;
        T largest{0};
        for (offset_type e = row_ptr[i]; e < row_ptr[i + 1]; ++e) {
          if (col_idx[e] == i) d = e;
          const T a = values[e] < T{0} ? -values[e] : values[e];
          largest = a > largest ? a : largest;
        }
        diag[i] = d;
        scale[i] = largest;
        return d < 0 ? i : none;
      },
      ops::Min{});
  return missing == none ? -1 : missing;
}

/// Row i of the IKJ factorization (see factor_level), by one thread.
template <class T>
STRATA_HD inline void factor_row(size_type i, const offset_type* row_ptr,
                                 const index_type* col_idx, const offset_type* diag, T* values) {
  const offset_type row_end = row_ptr[i + 1];
  // Sorted rows: the entries left of the diagonal are those with k < i.
  for (offset_type p = row_ptr[i]; p < diag[i]; ++p) {
    const index_type k = col_idx[p];
    const T l = values[p] / values[diag[k]];
    values[p] = l;
    offset_type at = p + 1;
    for (offset_type e = diag[k] + 1; e < row_ptr[k + 1]; ++e) {
      const index_type j = col_idx[e];
      while (at < row_end && col_idx[at] < j) ++at;
      if (at == row_end) break;
      if (col_idx[at] == j) values[at] -= l * values[e];
    }
  }
}

template <class Exec, class T>
void factor_level(const Exec& exec, size_type begin, size_type end, const index_type* order,
                  const offset_type* row_ptr, const index_type* col_idx, const offset_type* diag,
                  T* values) {
  parallel_for(exec, end - begin, [=] STRATA_HD(size_type q) {
    factor_row(order[begin + q], row_ptr, col_idx, diag, values);
  });
}

template <class Exec, class T>
size_type first_bad_pivot(const Exec& exec, size_type rows, const offset_type* diag,
                          const T* values, const T* scale, T tiny) {
  constexpr size_type none = std::numeric_limits<size_type>::max();
  const size_type bad = transform_reduce(
      exec, rows, none,
      [=] STRATA_HD(size_type i) -> size_type {
        const T u = values[diag[i]];
        const T size = u < T{0} ? -u : u;
        // Written so that NaN fails both tests.
        const bool good = u - u == T{0} && size > tiny * scale[i];
        return good ? none : i;
      },
      ops::Min{});
  return bad == none ? -1 : bad;
}

}  // namespace strata::kernels::ilu
