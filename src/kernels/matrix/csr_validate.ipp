// Single-source body of kernels::csr::validate.

#include <limits>

#include "kernels/base/hd.hpp"
#include "kernels/matrix/csr_kernels.hpp"

namespace strata::kernels::csr {

template <class Exec, class T>
size_type validate(const Exec& exec, size_type rows, size_type cols, size_type nnz,
                   const offset_type* row_ptr, const index_type* col_idx, const T* values) {
  constexpr size_type none = std::numeric_limits<size_type>::max();
  const size_type first = transform_reduce(
      exec, rows, none,
      [=] STRATA_HD(size_type i) -> size_type {
        const offset_type begin = row_ptr[i], end = row_ptr[i + 1];
        if (begin < 0 || end > nnz) return i * 8 + int(CsrDefect::row_ptr_out_of_range);
        if (end < begin) return i * 8 + int(CsrDefect::decreasing_row_ptr);
        bool sorted = true;
        for (offset_type k = begin; k < end; ++k) {
          const index_type c = col_idx[k];
          if (c < 0 || c >= cols) return i * 8 + int(CsrDefect::column_out_of_range);
          const T v = values[k];
          if (!(v - v == T{0})) return i * 8 + int(CsrDefect::non_finite_value);  // NaN or Inf
          if (k > begin && col_idx[k - 1] >= c) sorted = false;
        }
        if (!sorted) {  // quadratic only for rows whose columns are not sorted
          for (offset_type k = begin + 1; k < end; ++k) {
            for (offset_type m = begin; m < k; ++m) {
              if (col_idx[m] == col_idx[k]) return i * 8 + int(CsrDefect::duplicate_column);
            }
          }
        }
        return none;
      },
      ops::Min{});
  return first == none ? -1 : first;
}

namespace detail {
struct Range {
  size_type lo, hi;
};
struct RangeOp {
  STRATA_HD Range operator()(const Range& a, const Range& b) const {
    return {a.lo < b.lo ? a.lo : b.lo, a.hi < b.hi ? b.hi : a.hi};
  }
};
}  // namespace detail

template <class Exec>
std::pair<size_type, size_type> row_length_range(const Exec& exec, size_type rows,
                                                 const offset_type* row_ptr) {
  const detail::Range r = transform_reduce(
      exec, rows, detail::Range{std::numeric_limits<size_type>::max(), 0},
      [=] STRATA_HD(size_type i) {
        const size_type len = row_ptr[i + 1] - row_ptr[i];
        return detail::Range{len, len};
      },
      detail::RangeOp{});
  return {r.lo, r.hi};
}

}  // namespace strata::kernels::csr
