// Host CSR kernels: SpMV with a nonzero-balanced split of rows, and the
// instantiation of the shared validate body.

#include <algorithm>

#include "backend/host/base/parallel.hpp"
#include "kernels/matrix/csr_kernels.hpp"
#include "kernels/matrix/csr_validate.ipp"

namespace strata::kernels::csr {

namespace {
/// y_i = epi(i, (A x)_i) for the rows [first, last).
template <class T, class Epi>
void spmv_rows(size_type first, size_type last, const offset_type* row_ptr,
               const index_type* col_idx, const T* values, const T* x, T* y, const Epi& epi) {
  for (size_type i = first; i < last; ++i) {
    T sum{0};
    for (offset_type k = row_ptr[i]; k < row_ptr[i + 1]; ++k) sum += values[k] * x[col_idx[k]];
    y[i] = epi(i, sum);
  }
}

/// The rows split between threads so that each gets an equal share of
/// nonzeros: balanced for matrices with a few very long rows as well.
template <class Exec, class T, class Epi>
void spmv_split(const Exec& exec, size_type rows, size_type nnz, const offset_type* row_ptr,
                const index_type* col_idx, const T* values, const T* x, T* y, const Epi& epi) {
  const int threads = host_detail::thread_count(exec);
  if (threads <= 1 || nnz + rows < host_detail::parallel_threshold) {
    spmv_rows(0, rows, row_ptr, col_idx, values, x, y, epi);
    return;
  }
  // Thread t takes the rows whose first nonzero falls in its share of [0, nnz).
  const auto boundary = [&](int t) -> size_type {
    if (t >= threads) return rows;
    const offset_type target = nnz / threads * t + std::min<offset_type>(t, nnz % threads);
    return std::lower_bound(row_ptr, row_ptr + rows, target) - row_ptr;
  };
  host_detail::for_each_task(exec, threads, [&](size_type t) {
    spmv_rows(boundary(int(t)), boundary(int(t) + 1), row_ptr, col_idx, values, x, y, epi);
  });
}
}  // namespace

template <class Exec, class T>
void spmv(const Exec& exec, size_type rows, size_type nnz, size_type /*max_row: CUDA only*/,
          const offset_type* row_ptr, const index_type* col_idx, const T* values, T alpha,
          const T* x, T beta, const T* z, T* y) {
  spmv_split(exec, rows, nnz, row_ptr, col_idx, values, x, y, [=](size_type i, T sum) {
    return beta == T{0} ? alpha * sum : alpha * sum + beta * z[i];
  });
}

template <class Exec, class T>
void jacobi_sweep(const Exec& exec, size_type rows, size_type nnz, size_type /*max_row*/,
                  const offset_type* row_ptr, const index_type* col_idx, const T* values,
                  const T* d, const T* b, const T* x, T* y) {
  spmv_split(exec, rows, nnz, row_ptr, col_idx, values, x, y,
             [=](size_type i, T sum) { return x[i] + d[i] * (b[i] - sum); });
}

template <class Exec, class T>
T spmv_dot(const Exec& exec, size_type rows, size_type nnz, size_type max_row,
           const offset_type* row_ptr, const index_type* col_idx, const T* values, const T* x,
           T* y) {
  // On the host the second pass costs little against the SpMV itself, and it
  // keeps the reduction order independent of the thread count.
  spmv(exec, rows, nnz, max_row, row_ptr, col_idx, values, T{1}, x, T{0}, y, y);
  return transform_reduce(exec, rows, T{0}, [=](size_type i) { return x[i] * y[i]; },
                          ops::Plus{});
}

}  // namespace strata::kernels::csr

#define STRATA_EXEC HostExec
#include "kernels/matrix/csr_instantiate.inc"
#undef STRATA_EXEC
