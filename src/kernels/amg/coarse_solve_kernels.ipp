// Single-source bodies shared by both backends (dense_invert differs).

#include "kernels/amg/coarse_solve_kernels.hpp"
#include "kernels/base/hd.hpp"

namespace strata::kernels::amg {

template <class Exec, class T>
void csr_to_dense(const Exec& exec, size_type n, const offset_type* row_ptr,
                  const index_type* col_idx, const T* values, T* dense) {
  parallel_for(exec, n * n, [=] STRATA_HD(size_type k) { dense[k] = T{0}; });
  // 32 lanes per row, each writing every 32nd entry: the coarsest rows hold
  // a hundred entries and more, and one thread walking a row (a load and a
  // store per entry, the next load waiting on the store it might alias)
  // took 68 us for 102 rows on an H200. Columns are distinct within a row
  // (CsrMatrix's rule), so no two lanes write one entry.
  constexpr size_type lanes = 32;
  parallel_for(exec, n * lanes, [=] STRATA_HD(size_type t) {
    const size_type i = t / lanes;
    for (offset_type k = row_ptr[i] + static_cast<offset_type>(t % lanes); k < row_ptr[i + 1];
         k += lanes) {
      dense[col_idx[k] * n + i] = values[k];
    }
  });
}

template <class Exec, class T>
void dense_matvec(const Exec& exec, size_type n, const T* M, const T* x, T* y) {
  // Column-major: thread i reads M[j n + i], consecutive across threads.
  parallel_for(exec, n, [=] STRATA_HD(size_type i) {
    T sum{0};
    for (size_type j = 0; j < n; ++j) sum += M[j * n + i] * x[j];
    y[i] = sum;
  });
}

}  // namespace strata::kernels::amg
