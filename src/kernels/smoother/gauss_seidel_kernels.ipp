// Single-source bodies of gauss_seidel_kernels.hpp. The including backend
// file defines, before this file, gauss_seidel_for_each_block(exec, n, f):
// f(k) for k in [0, n) with one host task per block (the host parallel_for
// runs short loops on one thread, and a sweep has few, long blocks) or one
// device thread per block.

#include <cstdint>
#include <limits>

#include "kernels/base/hd.hpp"
#include "kernels/base/random.hpp"
#include "kernels/smoother/gauss_seidel_kernels.hpp"

namespace strata::kernels::smoother {

namespace gs_detail {

/// The coloring key of row i: (random_unit(seed, i), i), compared
/// lexicographically, so ties of the random number fall to the index.
STRATA_HD inline bool key_above(double wi, index_type i, double wj, index_type j) {
  return wi > wj || (wi == wj && i > j);
}

/// Whether row i's key (wi, i) exceeds the keys of the uncolored columns
/// j != i of row i of the pattern (rp, ci).
STRATA_HD inline bool beats_uncolored(index_type i, double wi, const offset_type* rp,
                                      const index_type* ci, const int* color,
                                      std::uint64_t seed) {
  for (offset_type k = rp[i]; k < rp[i + 1]; ++k) {
    const index_type j = ci[k];
    if (j == i || color[j] >= 0) continue;
    if (!key_above(wi, i, base::random_unit(seed, static_cast<std::uint64_t>(j)), j)) return false;
  }
  return true;
}

}  // namespace gs_detail

template <class Exec, class T>
size_type hybrid_gs_scaling(const Exec& exec, size_type rows, size_type block_rows,
                            const offset_type* row_ptr, const index_type* col_idx,
                            const T* values, T omega, T* d) {
  constexpr size_type none = std::numeric_limits<size_type>::max();
  const size_type bad = transform_reduce(
      exec, rows, none,
      [=] STRATA_HD(size_type i) -> size_type {
        const size_type lo = i / block_rows * block_rows, hi = lo + block_rows;
        T diag{0}, off_block{0};
        for (offset_type k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
          const size_type j = col_idx[k];
          const T v = values[k];
          if (j == i) diag += v;
          if (j < lo || j >= hi) off_block += v < T{0} ? -v : v;
        }
        const bool usable = diag != T{0} && diag - diag == T{0};
        // Half the off-block l1 norm, dropped where it is at most two
        // thirds of |a_ii| (hypre's truncated l1 norms, its option 4).
        const T magnitude = diag < T{0} ? -diag : diag;
        const T extra = 3 * off_block <= 2 * magnitude ? T{0} : off_block / 2;
        d[i] = usable ? omega / (diag + (diag < T{0} ? -extra : extra)) : T{0};
        return usable ? none : i;
      },
      ops::Min{});
  return bad == none ? -1 : bad;
}

template <class Exec, class T>
void hybrid_gs_sweep(const Exec& exec, size_type rows, size_type block_rows,
                     const offset_type* row_ptr, const index_type* col_idx, const T* values,
                     const T* d, const T* b, const T* x_old, T* x, bool backward) {
  const size_type blocks = (rows + block_rows - 1) / block_rows;
  gauss_seidel_for_each_block(exec, blocks, [=] STRATA_HD(size_type block) {
    const size_type lo = block * block_rows;
    const size_type hi = lo + block_rows < rows ? lo + block_rows : rows;
    for (size_type step = 0; step < hi - lo; ++step) {
      const size_type i = backward ? hi - 1 - step : lo + step;
      T sum = b[i];
      for (offset_type k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
        const size_type j = col_idx[k];
        sum -= values[k] * (j >= lo && j < hi ? x[j] : x_old[j]);
      }
      x[i] += d[i] * sum;
    }
  });
}

template <class Exec>
void coloring_candidates(const Exec& exec, size_type rows, const offset_type* row_ptr,
                         const index_type* col_idx, const offset_type* t_row_ptr,
                         const index_type* t_col_idx, std::uint64_t seed, const int* color,
                         int* candidate) {
  parallel_for(exec, rows, [=] STRATA_HD(size_type i) {
    if (color[i] >= 0) {
      candidate[i] = 0;
      return;
    }
    const index_type ii = static_cast<index_type>(i);
    const double wi = base::random_unit(seed, static_cast<std::uint64_t>(i));
    const bool wins =
        gs_detail::beats_uncolored(ii, wi, row_ptr, col_idx, color, seed) &&
        gs_detail::beats_uncolored(ii, wi, t_row_ptr, t_col_idx, color, seed);
    candidate[i] = wins ? 1 : 0;
  });
}

template <class Exec>
size_type coloring_commit(const Exec& exec, size_type rows, const offset_type* row_ptr,
                          const index_type* col_idx, const offset_type* t_row_ptr,
                          const index_type* t_col_idx, const int* candidate, int* color) {
  return transform_reduce(
      exec, rows, size_type{0},
      [=] STRATA_HD(size_type i) -> size_type {
        if (color[i] >= 0) return 0;
        if (candidate[i] == 0) return 1;
        // The smallest color free among the neighbours, 64 colors at a time.
        for (int base = 0;; base += 64) {
          std::uint64_t used = 0;
          for (offset_type k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
            const int c = color[col_idx[k]] - base;
            if (c >= 0 && c < 64) used |= std::uint64_t{1} << c;
          }
          for (offset_type k = t_row_ptr[i]; k < t_row_ptr[i + 1]; ++k) {
            const int c = color[t_col_idx[k]] - base;
            if (c >= 0 && c < 64) used |= std::uint64_t{1} << c;
          }
          if (used != ~std::uint64_t{0}) {
            int c = 0;
            while (used & (std::uint64_t{1} << c)) ++c;
            color[i] = base + c;
            return 0;
          }
        }
      },
      ops::Plus{});
}

template <class Exec>
int color_count(const Exec& exec, size_type rows, const int* color) {
  return 1 + transform_reduce(
                 exec, rows, -1, [=] STRATA_HD(size_type i) { return color[i]; }, ops::Max{});
}

template <class Exec>
void rows_by_color(const Exec& exec, size_type rows, int colors, const int* color,
                   int* sorted_color, index_type* order, offset_type* color_start) {
  parallel_for(exec, rows, [=] STRATA_HD(size_type i) {
    sorted_color[i] = color[i];
    order[i] = static_cast<index_type>(i);
  });
  stable_sort_by_key(exec, sorted_color, order, rows);
  // Position p starts every color in (color before p, color at p].
  parallel_for(exec, rows + 1, [=] STRATA_HD(size_type p) {
    const int before = p == 0 ? -1 : sorted_color[p - 1];
    const int at = p == rows ? colors : sorted_color[p];
    for (int c = before + 1; c <= at; ++c) color_start[c] = p;
  });
}

template <class Exec, class T>
void multicolor_gs_color(const Exec& exec, size_type count, const index_type* order,
                         const offset_type* row_ptr, const index_type* col_idx, const T* values,
                         const T* d, const T* b, T* x) {
  parallel_for(exec, count, [=] STRATA_HD(size_type k) {
    const size_type i = order[k];
    T sum = b[i];
    for (offset_type e = row_ptr[i]; e < row_ptr[i + 1]; ++e) sum -= values[e] * x[col_idx[e]];
    x[i] += d[i] * sum;
  });
}

template <class Exec, class T>
void two_stage_inner(const Exec& exec, size_type rows, const offset_type* row_ptr,
                     const index_type* col_idx, const T* values, const T* dinv, const T* r,
                     const T* y_in, T* y_out, bool upper) {
  parallel_for(exec, rows, [=] STRATA_HD(size_type i) {
    T sum = r[i];
    for (offset_type k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
      const size_type j = col_idx[k];
      if (upper ? j > i : j < i) sum -= values[k] * (y_in ? y_in[j] : dinv[j] * r[j]);
    }
    y_out[i] = dinv[i] * sum;
  });
}

}  // namespace strata::kernels::smoother
