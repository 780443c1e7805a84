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
void count_split(const Exec& exec, size_type rows, const offset_type* row_ptr,
                 const std::int64_t* cols, std::int64_t col_begin, std::int64_t col_end,
                 offset_type* diag_count, offset_type* offd_count) {
  parallel_for(exec, rows + 1, [=] STRATA_HD(size_type i) {
    offset_type inside = 0, outside = 0;
    if (i < rows) {
      for (offset_type k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
        if (cols[k] >= col_begin && cols[k] < col_end) {
          ++inside;
        } else {
          ++outside;
        }
      }
    }
    diag_count[i] = inside;
    offd_count[i] = outside;
  });
}

template <class Exec, class T>
void split_rows(const Exec& exec, size_type rows, const offset_type* row_ptr,
                const std::int64_t* cols, const T* values, std::int64_t col_begin,
                std::int64_t col_end, SplitTarget<T> target) {
  parallel_for(exec, rows, [=] STRATA_HD(size_type i) {
    offset_type d = target.diag_ptr[i], o = target.offd_ptr[i];
    for (offset_type k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
      const std::int64_t c = cols[k];
      if (c >= col_begin && c < col_end) {
        target.diag_col[d] = static_cast<index_type>(c - col_begin);
        target.diag_val[d] = values[k];
        ++d;
      } else {
        target.offd_global[o] = c;
        target.offd_val[o] = values[k];
        ++o;
      }
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

}  // namespace strata::kernels::distributed
