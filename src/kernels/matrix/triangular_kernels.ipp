// Single-source bodies of triangular_kernels.hpp (the host's levels() is in
// backend/host/matrix/triangular_kernels.cpp, the device's in
// backend/cuda/matrix/triangular_kernels.cu). Included by one backend file
// beside that backend's parallel header; the unqualified primitives resolve
// by argument-dependent lookup on Exec.

#include <limits>

#include "kernels/base/hd.hpp"
#include "kernels/matrix/triangular_kernels.hpp"

namespace strata::kernels::triangular {

template <class Exec, class T>
size_type split_count(const Exec& exec, size_type rows, const index_type* order,
                      const offset_type* row_ptr, const index_type* col_idx, const T* values,
                      bool lower, bool unit, offset_type* count, T* inv_diag) {
  constexpr size_type none = std::numeric_limits<size_type>::max();
  const size_type bad = transform_reduce(
      exec, rows, none,
      [=] STRATA_HD(size_type k) -> size_type {
        const size_type i = order ? size_type{order[k]} : k;
        offset_type c = 0;
        T diag{0};
        for (offset_type e = row_ptr[i]; e < row_ptr[i + 1]; ++e) {
          const size_type j = col_idx[e];
          if (j == i) diag = values[e];
          if (lower ? j < i : j > i) ++c;
        }
        count[k] = c;
        // Nonzero and finite (d - d is NaN for inf and NaN).
        const bool usable = unit || (diag != T{0} && diag - diag == T{0});
        inv_diag[k] = unit ? T{1} : (usable ? T{1} / diag : T{0});
        return usable ? none : i;
      },
      ops::Min{});
  return bad == none ? -1 : bad;
}

template <class Exec, class T>
void split_fill(const Exec& exec, size_type rows, const index_type* order,
                const offset_type* row_ptr, const index_type* col_idx, const T* values,
                bool lower, const offset_type* out_ptr, index_type* out_col, T* out_val) {
  parallel_for(exec, rows, [=] STRATA_HD(size_type k) {
    const size_type i = order ? size_type{order[k]} : k;
    offset_type out = out_ptr[k];
    for (offset_type e = row_ptr[i]; e < row_ptr[i + 1]; ++e) {
      const size_type j = col_idx[e];
      if (lower ? j < i : j > i) {
        out_col[out] = col_idx[e];
        out_val[out] = values[e];
        ++out;
      }
    }
  });
}

template <class Exec>
void order_by_level(const Exec& exec, size_type rows, size_type levels, index_type* level,
                    index_type* order, offset_type* level_ptr) {
  if (rows == 0) return;
  parallel_for(exec, rows, [=] STRATA_HD(size_type k) { order[k] = static_cast<index_type>(k); });
  // Levels are below 2^end_bit: fewer radix passes on the device.
  int end_bit = 1;
  while (end_bit < 31 && (size_type{1} << end_bit) <= levels) ++end_bit;
  // Stable: the rows of one level stay in ascending order, so the order,
  // and with it every solve, is the same on every run and backend.
  stable_sort_by_key(exec, level, order, rows, end_bit);
  parallel_for(exec, rows, [=] STRATA_HD(size_type k) {
    if (k == 0 || level[k] != level[k - 1]) level_ptr[level[k]] = k;
    if (k == rows - 1) level_ptr[level[k] + 1] = rows;
  });
}

template <class Exec, class T>
void solve_level(const Exec& exec, size_type begin, size_type end, const index_type* order,
                 const offset_type* ptr, const index_type* col, const T* val, const T* inv_diag,
                 const T* b, T* x) {
  parallel_for(exec, end - begin, [=] STRATA_HD(size_type q) {
    const size_type k = begin + q;
    const size_type i = order[k];
    T sum = b[i];
    for (offset_type e = ptr[k]; e < ptr[k + 1]; ++e) sum -= val[e] * x[col[e]];
    x[i] = inv_diag[k] * sum;
  });
}

template <class Exec, class T>
void jacobi_sweep(const Exec& exec, size_type rows, const offset_type* ptr, const index_type* col,
                  const T* val, const T* inv_diag, const T* b, const T* x_old, T* x_new) {
  if (x_old == nullptr) {
    parallel_for(exec, rows, [=] STRATA_HD(size_type i) { x_new[i] = inv_diag[i] * b[i]; });
    return;
  }
  parallel_for(exec, rows, [=] STRATA_HD(size_type i) {
    T sum = b[i];
    for (offset_type e = ptr[i]; e < ptr[i + 1]; ++e) sum -= val[e] * x_old[col[e]];
    x_new[i] = inv_diag[i] * sum;
  });
}

}  // namespace strata::kernels::triangular
