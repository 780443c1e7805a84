// Host blocked SpGEMM, numeric phase: block rows of C in dynamic chunks over
// the OpenMP threads. Each block b_KJ finds its block of C through the
// thread's column marks (one load; the host CSR product's marks, where all
// threads' marks fit its budget) or else by bisection in the block row's
// sorted block columns, and is multiplied into it entry by entry, k
// ascending: the order of the contract, which is also the order of the host
// CSR product of the expanded matrices, so the two agree bit for bit. With
// 1 x 1 blocks (scalar smoothed aggregation) a bisection per product cost
// more than the product: R A P of poisson3d 64^3 spent 27% of the setup in
// it (bench/NOTES.md).

#include "kernels/matrix/bsr_spgemm_kernels.hpp"

#include <algorithm>
#include <cstdint>

#include "backend/host/base/parallel.hpp"
#include "backend/host/matrix/column_marks.hpp"

namespace strata::kernels::bsr_spgemm {

// Named, not anonymous (see the host SpGEMM: GCC's -Wsubobject-linkage).
namespace host_block_product {

// Block rows per task: enough to amortise the scheduling, few enough to
// balance block rows of uneven work.
constexpr size_type rows_per_task = 64;

/// c += a b for an r x m block a and an m x c block b (row-major), each
/// entry summed over k in order. R, M, C > 0 fix the sizes at compile time;
/// 0 takes them from `s`.
template <int R, int M, int C, class T>
inline void multiply_add(const BlockShape& s, const T* a, const T* b, T* c) {
  const int r = R > 0 ? R : s.r, m = M > 0 ? M : s.m, cc = C > 0 ? C : s.c;
  for (int i = 0; i < r; ++i) {
    for (int j = 0; j < cc; ++j) {
      T acc = c[i * cc + j];
      for (int k = 0; k < m; ++k) acc += a[i * m + k] * b[k * cc + j];
      c[i * cc + j] = acc;
    }
  }
}

/// Block row I of C (see the contract); `mark` (null: bisection) holds -1
/// for every column on entry and on return.
template <int R, int M, int C, class T>
void block_row(const BlockShape& s, const Pattern& A, const T* a_values, const Pattern& B,
               const T* b_values, const Pattern& Cp, T* c_values, size_type I, std::int32_t* mark) {
  const size_type rm = static_cast<size_type>(s.r) * s.m;
  const size_type mc = static_cast<size_type>(s.m) * s.c;
  const size_type rc = static_cast<size_type>(s.r) * s.c;
  const offset_type c0 = Cp.row_ptr[I];
  const offset_type n = Cp.row_ptr[I + 1] - c0;
  const index_type* cols = Cp.col_idx + c0;
  T* row = c_values + c0 * rc;
  std::fill(row, row + n * rc, T{0});
  const auto accumulate = [&](auto place) {
    for (offset_type e = A.row_ptr[I]; e < A.row_ptr[I + 1]; ++e) {
      const index_type K = A.col_idx[e];
      const T* a = a_values + e * rm;
      for (offset_type q = B.row_ptr[K]; q < B.row_ptr[K + 1]; ++q) {
        multiply_add<R, M, C>(s, a, b_values + q * mc, row + place(B.col_idx[q]) * rc);
      }
    }
  };
  if (mark == nullptr) {
    accumulate([&](index_type j) { return spgemm::find_column(cols, n, j); });
    return;
  }
  for (offset_type p = 0; p < n; ++p) mark[cols[p]] = static_cast<std::int32_t>(p);
  accumulate([&](index_type j) { return static_cast<offset_type>(mark[j]); });
  for (offset_type p = 0; p < n; ++p) mark[cols[p]] = -1;
}

}  // namespace host_block_product

template <class Exec, class T>
void numeric(const Exec& exec, BlockShape shape, const Pattern& A, const T* a_values,
             const Pattern& B, const T* b_values, const Pattern& C, T* c_values) {
  const bool marked = host_detail::use_marks(exec, C.cols);
  with_block_shape(shape, [&](auto R, auto M, auto Cc) {
    host_detail::for_each_with_scratch<host_detail::ColumnMarks>(
        exec, C.rows, host_block_product::rows_per_task,
        [&](host_detail::ColumnMarks& marks, size_type I) {
          if (marked) marks.reserve(C.cols);
          host_block_product::block_row<decltype(R)::value, decltype(M)::value,
                                        decltype(Cc)::value>(shape, A, a_values, B, b_values, C,
                                                             c_values, I,
                                                             marked ? marks.place.data() : nullptr);
        });
  });
}

}  // namespace strata::kernels::bsr_spgemm

#define STRATA_EXEC HostExec
#include "kernels/matrix/bsr_spgemm_instantiate.inc"
#undef STRATA_EXEC
