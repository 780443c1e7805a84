// Single-source bodies of distributed_kernels.hpp. Included by one backend
// file after that backend's parallel header (parallel_for and
// transform_reduce resolve by argument-dependent lookup on Exec).

#include <limits>

#include "kernels/base/hd.hpp"
#include "kernels/distributed/distributed_kernels.hpp"

namespace strata::kernels::distributed {

template <class Exec>
size_type first_bad_column(const Exec& exec, size_type nnz, const std::int64_t* cols,
                           std::int64_t global_cols) {
  constexpr size_type none = std::numeric_limits<size_type>::max();
  const size_type bad = transform_reduce(
      exec, nnz, none,
      [=] STRATA_HD(size_type k) -> size_type {
        return cols[k] < 0 || cols[k] >= global_cols ? k : none;
      },
      ops::Min{});
  return bad == none ? -1 : bad;
}

template <class Exec>
size_type first_decreasing_offset(const Exec& exec, size_type rows, const offset_type* ptr) {
  constexpr size_type none = std::numeric_limits<size_type>::max();
  const size_type bad = transform_reduce(
      exec, rows, none,
      [=] STRATA_HD(size_type i) -> size_type { return ptr[i + 1] < ptr[i] ? i : none; },
      ops::Min{});
  return bad == none ? -1 : bad;
}

template <class Exec>
void owned_flags(const Exec& exec, offset_type nnz, const std::int64_t* cols,
                 std::int64_t col_begin, std::int64_t col_end, offset_type* flags) {
  parallel_for(exec, nnz + 1, [=] STRATA_HD(size_type k) {
    flags[k] = k < nnz && cols[k] >= col_begin && cols[k] < col_end ? 1 : 0;
  });
}

template <class Exec>
void split_pointers(const Exec& exec, size_type rows, const offset_type* row_ptr,
                    const offset_type* position, offset_type* diag_ptr, offset_type* offd_ptr) {
  parallel_for(exec, rows + 1, [=] STRATA_HD(size_type i) {
    const offset_type d = position[row_ptr[i]];
    diag_ptr[i] = d;
    offd_ptr[i] = row_ptr[i] - d;
  });
}

template <class Exec, class T>
void split_entries(const Exec& exec, offset_type nnz, const std::int64_t* cols, const T* values,
                   const offset_type* position, std::int64_t col_begin, std::int64_t col_end,
                   SplitTarget<T> target) {
  parallel_for(exec, nnz, [=] STRATA_HD(size_type k) {
    const std::int64_t c = cols[k];
    const offset_type d = position[k];
    if (c >= col_begin && c < col_end) {
      if (target.diag_col) target.diag_col[d] = static_cast<index_type>(c - col_begin);
      target.diag_val[d] = values[k];
    } else {
      const offset_type o = static_cast<offset_type>(k) - d;
      if (target.offd_global) target.offd_global[o] = c;
      target.offd_val[o] = values[k];
    }
  });
}

template <class Exec>
void locate_sorted(const Exec& exec, size_type n, const std::int64_t* ids, const std::int64_t* map,
                   size_type map_size, index_type* out) {
  parallel_for(exec, n, [=] STRATA_HD(size_type k) {
    const std::int64_t id = ids[k];
    size_type lo = 0, hi = map_size;  // the first position whose id is >= id
    while (lo < hi) {
      const size_type mid = lo + (hi - lo) / 2;
      if (map[mid] < id) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    out[k] = static_cast<index_type>(lo);
  });
}

template <class Exec>
void widen_columns(const Exec& exec, size_type n, const index_type* cols, std::int64_t* out) {
  parallel_for(exec, n, [=] STRATA_HD(size_type k) { out[k] = cols[k]; });
}

template <class Exec, class T>
void row_lengths(const Exec& exec, size_type count, const index_type* rows, SplitRows<T> m,
                 offset_type* lengths) {
  parallel_for(exec, count + 1, [=] STRATA_HD(size_type k) {
    if (k == count) {
      lengths[k] = 0;
      return;
    }
    const size_type i = rows ? rows[k] : k;
    lengths[k] = (m.diag_ptr[i + 1] - m.diag_ptr[i]) + (m.offd_ptr[i + 1] - m.offd_ptr[i]);
  });
}

template <class Exec, class T>
void gather_global_rows(const Exec& exec, size_type count, const index_type* rows, SplitRows<T> m,
                        const offset_type* out_ptr, offset_type nnz, std::int64_t* out_col,
                        T* out_val) {
  for_each_row_entry(exec, count, nnz, out_ptr, [=] STRATA_HD(size_type k, offset_type o) {
    const size_type i = rows ? rows[k] : k;
    const offset_type p = o - out_ptr[k];
    const offset_type diag_length = m.diag_ptr[i + 1] - m.diag_ptr[i];
    if (p < diag_length) {
      const offset_type e = m.diag_ptr[i] + p;
      out_col[o] = m.col_begin + m.diag_col[e];
      out_val[o] = m.diag_val[e];
    } else {
      const offset_type e = m.offd_ptr[i] + (p - diag_length);
      out_col[o] = m.column_map[m.offd_col[e]];
      out_val[o] = m.offd_val[e];
    }
  });
}

template <class Exec>
void hstack_pointers(const Exec& exec, size_type rows, const offset_type* diag_ptr,
                     const offset_type* offd_ptr, offset_type* out_ptr) {
  parallel_for(exec, rows + 1,
               [=] STRATA_HD(size_type i) { out_ptr[i] = diag_ptr[i] + offd_ptr[i]; });
}

template <class Exec, class T>
void hstack_entries(const Exec& exec, size_type rows, SplitRows<T> m, index_type diag_cols,
                    const offset_type* out_ptr, offset_type nnz, index_type* out_col, T* out_val) {
  for_each_row_entry(exec, rows, nnz, out_ptr, [=] STRATA_HD(size_type i, offset_type o) {
    const offset_type p = o - out_ptr[i];
    const offset_type diag_length = m.diag_ptr[i + 1] - m.diag_ptr[i];
    if (p < diag_length) {
      const offset_type e = m.diag_ptr[i] + p;
      if (out_col) out_col[o] = m.diag_col[e];
      out_val[o] = m.diag_val[e];
    } else {
      const offset_type e = m.offd_ptr[i] + (p - diag_length);
      if (out_col) out_col[o] = diag_cols + m.offd_col[e];
      out_val[o] = m.offd_val[e];
    }
  });
}

template <class Exec>
void shift_offsets(const Exec& exec, size_type n, const offset_type* in, offset_type shift,
                   offset_type* out) {
  parallel_for(exec, n, [=] STRATA_HD(size_type i) { out[i] = in[i] + shift; });
}

template <class Exec>
void row_lengths_of(const Exec& exec, size_type rows, const offset_type* ptr,
                    offset_type* lengths) {
  parallel_for(exec, rows, [=] STRATA_HD(size_type i) { lengths[i] = ptr[i + 1] - ptr[i]; });
}

template <class Exec>
void nonempty_row_flags(const Exec& exec, size_type rows, const offset_type* ptr,
                        offset_type* flags) {
  parallel_for(exec, rows + 1, [=] STRATA_HD(size_type i) {
    flags[i] = i < rows && ptr[i + 1] > ptr[i] ? 1 : 0;
  });
}

template <class Exec>
void list_flagged_rows(const Exec& exec, size_type rows, const offset_type* position,
                       index_type* out) {
  parallel_for(exec, rows, [=] STRATA_HD(size_type i) {
    if (position[i + 1] > position[i]) out[position[i]] = static_cast<index_type>(i);
  });
}

/// Row i of a CSR block times x, summed in stored order: the boundary
/// rows' part of the listed-row products below.
template <class T>
STRATA_HD T row_product(const offset_type* ptr, const index_type* cols, const T* values,
                        const T* x, index_type i) {
  T sum{0};
  for (offset_type e = ptr[i]; e < ptr[i + 1]; ++e) sum += values[e] * x[cols[e]];
  return sum;
}

template <class Exec, class T>
void spmv_listed_rows(const Exec& exec, size_type count, const index_type* rows,
                      const offset_type* ptr, const index_type* cols, const T* values, T alpha,
                      const T* x, T* y) {
  parallel_for(exec, count, [=] STRATA_HD(size_type k) {
    const index_type i = rows[k];
    y[i] = alpha * row_product(ptr, cols, values, x, i) + y[i];
  });
}

template <class Exec>
size_type split_nodes(const Exec& exec, size_type count, const std::int64_t* ids, int m) {
  return transform_reduce(
      exec, count / m, size_type{0},
      [=] STRATA_HD(size_type g) -> size_type {
        const std::int64_t first = ids[g * m];
        if (first % m != 0) return 1;
        for (int j = 1; j < m; ++j) {
          if (ids[g * m + j] != first + j) return 1;
        }
        return 0;
      },
      ops::Plus{});
}

template <class Exec, class T>
T spmv_listed_rows_dot(const Exec& exec, size_type count, const index_type* rows,
                       const offset_type* ptr, const index_type* cols, const T* values,
                       const T* ghosts, const T* x, T* y) {
  return transform_reduce(
      exec, count, T{0},
      [=] STRATA_HD(size_type k) -> T {
        const index_type i = rows[k];
        const T sum = row_product(ptr, cols, values, ghosts, i);
        y[i] += sum;
        return x[i] * sum;
      },
      ops::Plus{});
}

template <class Exec, class T>
void jacobi_listed_rows(const Exec& exec, size_type count, const index_type* rows,
                        const offset_type* ptr, const index_type* cols, const T* values,
                        const T* d, const T* ghosts, T* x) {
  parallel_for(exec, count, [=] STRATA_HD(size_type k) {
    const index_type i = rows[k];
    x[i] -= d[i] * row_product(ptr, cols, values, ghosts, i);
  });
}

template <class Exec>
void compact_columns(const Exec& exec, size_type n, const std::int64_t* ids, std::int64_t own_begin,
                     std::int64_t own_count, const std::int64_t* foreign, size_type foreign_size,
                     index_type* out) {
  parallel_for(exec, n, [=] STRATA_HD(size_type k) {
    const std::int64_t id = ids[k];
    if (id >= own_begin && id < own_begin + own_count) {
      out[k] = static_cast<index_type>(id - own_begin);
      return;
    }
    size_type lo = 0, hi = foreign_size;
    while (lo < hi) {
      const size_type mid = lo + (hi - lo) / 2;
      if (foreign[mid] < id) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    out[k] = static_cast<index_type>(own_count + lo);
  });
}

template <class Exec>
void expand_columns(const Exec& exec, size_type n, const index_type* cols, std::int64_t own_begin,
                    std::int64_t own_count, const std::int64_t* foreign, std::int64_t* out) {
  parallel_for(exec, n, [=] STRATA_HD(size_type k) {
    const std::int64_t c = cols[k];
    out[k] = c < own_count ? own_begin + c : foreign[c - own_count];
  });
}

template <class Exec>
void row_keys(const Exec& exec, size_type count, const offset_type* ptr, const index_type* rows,
              offset_type nnz, index_type* keys) {
  for_each_row_entry(exec, count, nnz, ptr, [=] STRATA_HD(size_type k, offset_type e) {
    keys[e] = rows ? rows[k] : static_cast<index_type>(k);
  });
}

template <class Exec>
void add_offsets(const Exec& exec, size_type n, const offset_type* a, const offset_type* b,
                 offset_type* out) {
  parallel_for(exec, n, [=] STRATA_HD(size_type i) { out[i] = a[i] + b[i]; });
}

template <class Exec, class T>
void merge_rows(const Exec& exec, size_type rows, const offset_type* a_ptr,
                const index_type* a_col, std::int64_t a_begin, const T* a_val,
                const offset_type* b_ptr, const std::int64_t* b_col, const T* b_val,
                const offset_type* ptr, offset_type nnz, std::int64_t* col, T* val) {
  for_each_row_entry(exec, rows, nnz, ptr, [=] STRATA_HD(size_type r, offset_type q) {
    const offset_type j = q - ptr[r], own = a_ptr[r + 1] - a_ptr[r];
    if (j < own) {
      col[q] = a_begin + a_col[a_ptr[r] + j];
      val[q] = a_val[a_ptr[r] + j];
    } else {
      col[q] = b_col[b_ptr[r] + j - own];
      val[q] = b_val[b_ptr[r] + j - own];
    }
  });
}

template <class Exec>
void offsets_from_sorted_keys(const Exec& exec, size_type rows, const index_type* keys, size_type n,
                              offset_type* row_ptr) {
  parallel_for(exec, rows + 1, [=] STRATA_HD(size_type i) {
    size_type lo = 0, hi = n;
    while (lo < hi) {
      const size_type mid = lo + (hi - lo) / 2;
      if (keys[mid] < static_cast<index_type>(i)) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    row_ptr[i] = static_cast<offset_type>(lo);
  });
}

template <class Exec>
void node_ids(const Exec& exec, size_type n, const std::int64_t* ids, int b, std::int64_t* out) {
  parallel_for(exec, n, [=] STRATA_HD(size_type k) { out[k] = ids[k] / b; });
}

template <class Exec>
void ghost_node_columns(const Exec& exec, offset_type nnz, const index_type* cols,
                        const index_type* node_position, const std::int64_t* column_map, int b,
                        index_type* out) {
  parallel_for(exec, nnz, [=] STRATA_HD(size_type k) {
    const index_type c = cols[k];
    out[k] = node_position[c] * b + static_cast<index_type>(column_map[c] % b);
  });
}

template <class Exec>
void node_unknowns(const Exec& exec, size_type n, const std::int64_t* nodes, int b,
                   std::int64_t* out) {
  parallel_for(exec, n * b, [=] STRATA_HD(size_type k) { out[k] = nodes[k / b] * b + k % b; });
}

}  // namespace strata::kernels::distributed
