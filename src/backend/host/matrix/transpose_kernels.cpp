// Host CSR transpose: a counting sort of A's entries by column. Taking A's
// rows in order fills each row of A^T in ascending columns, the order the
// stable sort of transpose_kernels.ipp gives, so both backends agree exactly.
//
// One thread places the entries row by row. Several count and place them with
// atomic increments (the order within a column then depends on timing) and
// restore A's order by sorting each column's entries by their position in A,
// which is unique, so the result is the one-thread result.
#include "kernels/matrix/transpose_kernels.hpp"

#include <algorithm>
#include <atomic>
#include <utility>
#include <vector>

#include "backend/host/base/parallel.hpp"

namespace strata::kernels::transpose {

namespace {

/// Sorts the pairs (source[p], row[p]), p in [0, n), by source.
void sort_by_source(offset_type* source, index_type* row, size_type n) {
  if (n <= 32) {  // columns of a restriction or a stencil: a few entries
    for (size_type p = 1; p < n; ++p) {
      const offset_type s = source[p];
      const index_type r = row[p];
      size_type q = p;
      for (; q > 0 && source[q - 1] > s; --q) {
        source[q] = source[q - 1];
        row[q] = row[q - 1];
      }
      source[q] = s;
      row[q] = r;
    }
    return;
  }
  std::vector<std::pair<offset_type, index_type>> pairs(static_cast<std::size_t>(n));
  for (size_type p = 0; p < n; ++p) pairs[p] = {source[p], row[p]};
  std::sort(pairs.begin(), pairs.end());
  for (size_type p = 0; p < n; ++p) std::tie(source[p], row[p]) = pairs[p];
}

}  // namespace

void transpose_pattern(const HostExec& exec, size_type rows, size_type cols, size_type nnz,
                       const offset_type* row_ptr, const index_type* col_idx, offset_type* t_ptr,
                       index_type* t_col, offset_type* source) {
  // 1. Entries per column, then the offsets (t_ptr[cols] starts at 0).
  std::fill(t_ptr, t_ptr + cols + 1, offset_type{0});
  const bool threaded =
      host_detail::thread_count(exec) > 1 && nnz > host_detail::parallel_threshold;
  if (threaded) {
    parallel_for(exec, nnz, [&](size_type k) {
      std::atomic_ref<offset_type>(t_ptr[col_idx[k]]).fetch_add(1, std::memory_order_relaxed);
    });
  } else {
    for (size_type k = 0; k < nnz; ++k) ++t_ptr[col_idx[k]];
  }
  exclusive_scan(exec, t_ptr, t_ptr, cols + 1);
  // 2. Each entry placed in its column: in row order on one thread (done),
  //    in any order with atomics on several, with its position in A.
  std::vector<offset_type> next(t_ptr, t_ptr + cols);
  if (!threaded) {
    for (size_type i = 0; i < rows; ++i) {
      for (offset_type k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
        const offset_type p = next[col_idx[k]]++;
        t_col[p] = static_cast<index_type>(i);
        source[p] = k;
      }
    }
    return;
  }
  parallel_for(exec, rows, [&](size_type i) {
    for (offset_type k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
      const offset_type p =
          std::atomic_ref<offset_type>(next[col_idx[k]]).fetch_add(1, std::memory_order_relaxed);
      source[p] = k;
      t_col[p] = static_cast<index_type>(i);
    }
  });
  // 3. A's order within each column.
  parallel_for(exec, cols, [&](size_type c) {
    sort_by_source(source + t_ptr[c], t_col + t_ptr[c], t_ptr[c + 1] - t_ptr[c]);
  });
}

template <class T>
CsrMatrix<T> transpose_csr(const HostExec& exec, size_type rows, size_type cols, size_type nnz,
                           const offset_type* row_ptr, const index_type* col_idx, const T* values) {
  Array<offset_type> t_row_ptr(exec, cols + 1);
  Array<index_type> t_col_idx(exec, nnz);
  Array<T> t_values(exec, nnz);
  Array<offset_type> source(exec, nnz);
  transpose_pattern(exec, rows, cols, nnz, row_ptr, col_idx, t_row_ptr.data(), t_col_idx.data(),
                    source.data());
  T* t_val = t_values.data();
  const offset_type* from = source.data();
  parallel_for(exec, nnz, [&](size_type p) { t_val[p] = values[from[p]]; });
  return CsrMatrix<T>(cols, rows, std::move(t_row_ptr), std::move(t_col_idx), std::move(t_values));
}

}  // namespace strata::kernels::transpose

#define STRATA_EXEC HostExec
#include "kernels/matrix/transpose_instantiate.inc"
#undef STRATA_EXEC
