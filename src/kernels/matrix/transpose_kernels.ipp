// Single-source body of transpose_kernels.hpp. Included by one backend file
// after that backend's parallel header, so the unqualified primitives below
// resolve (by argument-dependent lookup on Exec) to that backend.

#include <utility>

#include "kernels/base/hd.hpp"
#include "kernels/matrix/transpose_kernels.hpp"

namespace strata::kernels::transpose {

namespace detail {

/// First index p in [0, n) with sorted[p] >= key (n when there is none).
template <class S, class K>
STRATA_HD size_type lower_bound(const S* sorted, size_type n, K key) {
  size_type lo = 0;
  while (n > 0) {
    const size_type half = n / 2;
    if (sorted[lo + half] < key) {
      lo += half + 1;
      n -= half + 1;
    } else {
      n = half;
    }
  }
  return lo;
}

/// First index p in [0, n) with sorted[p] > key (n when there is none).
template <class S, class K>
STRATA_HD size_type upper_bound(const S* sorted, size_type n, K key) {
  size_type lo = 0;
  while (n > 0) {
    const size_type half = n / 2;
    if (!(key < sorted[lo + half])) {
      lo += half + 1;
      n -= half + 1;
    } else {
      n = half;
    }
  }
  return lo;
}

}  // namespace detail

template <class Exec, class T>
CsrMatrix<T> transpose_csr(const Exec& exec, size_type rows, size_type cols, size_type nnz,
                           const offset_type* row_ptr, const index_type* col_idx, const T* values) {
  // 1. Entries grouped by column, each group in the order of A's rows. The
  //    stable sort is what makes the result independent of thread timing.
  Array<index_type> keys(exec, nnz);
  Array<offset_type> positions(exec, nnz);
  index_type* key = keys.data();
  offset_type* position = positions.data();
  parallel_for(exec, nnz, [=] STRATA_HD(size_type k) {
    key[k] = col_idx[k];
    position[k] = k;
  });
  stable_sort_by_key(exec, key, position, nnz);

  // 2. Row c of A^T starts where the keys reach c.
  Array<offset_type> t_row_ptr(exec, cols + 1);
  offset_type* t_ptr = t_row_ptr.data();
  parallel_for(exec, cols + 1,
               [=] STRATA_HD(size_type c) { t_ptr[c] = detail::lower_bound(key, nnz, c); });

  // 3. Column of each entry = its row in A (the last row starting at or
  //    before its position; empty rows share a start and are skipped over by
  //    taking the last one), value gathered from A.
  Array<index_type> t_col_idx(exec, nnz);
  Array<T> t_values(exec, nnz);
  index_type* t_col = t_col_idx.data();
  T* t_val = t_values.data();
  parallel_for(exec, nnz, [=] STRATA_HD(size_type k) {
    const offset_type p = position[k];
    t_col[k] = static_cast<index_type>(detail::upper_bound(row_ptr, rows + 1, p) - 1);
    t_val[k] = values[p];
  });
  return CsrMatrix<T>(cols, rows, std::move(t_row_ptr), std::move(t_col_idx), std::move(t_values));
}

}  // namespace strata::kernels::transpose
