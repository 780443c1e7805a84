// Host BSR kernels: SpMV with compiled block sizes and a blocks-balanced
// split of block rows between threads, and the instantiation of the shared
// bodies (validate, conversions, transpose).

#include "kernels/matrix/bsr_kernels.ipp"

#include <algorithm>
#include <utility>

#include "backend/host/base/parallel.hpp"
#include "kernels/matrix/transpose_kernels.hpp"

namespace strata::kernels::bsr {

namespace {

/// Block rows [first, last) with R x C blocks known at compile time: the
/// inner loops unroll and the R partial sums stay in registers. The order
/// of summation is the contract's (blocks in order, then columns).
template <int R, int C, class T>
void spmv_block_rows(size_type first, size_type last, const offset_type* row_ptr,
                     const index_type* col_idx, const T* values, T alpha, const T* x, T beta,
                     T* y) {
  for (size_type I = first; I < last; ++I) {
    T sum[R] = {};
    for (offset_type k = row_ptr[I]; k < row_ptr[I + 1]; ++k) {
      const T* v = values + k * (R * C);
      const T* xs = x + static_cast<size_type>(col_idx[k]) * C;
      for (int a = 0; a < R; ++a) {
        for (int j = 0; j < C; ++j) sum[a] += v[a * C + j] * xs[j];
      }
    }
    for (int a = 0; a < R; ++a) {
      const size_type i = I * R + a;
      y[i] = beta == T{0} ? alpha * sum[a] : alpha * sum[a] + beta * y[i];
    }
  }
}

template <int R, int C, class T>
void spmv_fixed(const HostExec& exec, size_type block_rows, size_type num_blocks,
                const offset_type* row_ptr, const index_type* col_idx, const T* values, T alpha,
                const T* x, T beta, T* y) {
  const int threads = host_detail::thread_count(exec);
  if (threads <= 1 || num_blocks * R * C + block_rows < host_detail::parallel_threshold) {
    spmv_block_rows<R, C>(0, block_rows, row_ptr, col_idx, values, alpha, x, beta, y);
    return;
  }
  // Thread t takes the block rows whose first block falls in its equal share
  // of the blocks (as the CSR SpMV does with nonzeros).
  const auto boundary = [&](int t) -> size_type {
    if (t >= threads) return block_rows;
    const offset_type target =
        num_blocks / threads * t + std::min<offset_type>(t, num_blocks % threads);
    return std::lower_bound(row_ptr, row_ptr + block_rows, target) - row_ptr;
  };
  host_detail::for_each_task(exec, threads, [&](size_type t) {
    spmv_block_rows<R, C>(boundary(int(t)), boundary(int(t) + 1), row_ptr, col_idx, values, alpha,
                          x, beta, y);
  });
}

}  // namespace

template <class Exec, class T>
void spmv(const Exec& exec, size_type block_rows, size_type num_blocks, int r, int c,
          const offset_type* row_ptr, const index_type* col_idx, const T* values, T alpha,
          const T* x, T beta, T* y) {
  const auto fixed = [&](auto R, auto C) {
    spmv_fixed<decltype(R)::value, decltype(C)::value>(exec, block_rows, num_blocks, row_ptr,
                                                       col_idx, values, alpha, x, beta, y);
  };
  using std::integral_constant;
  using I1 = integral_constant<int, 1>;
  using I2 = integral_constant<int, 2>;
  using I3 = integral_constant<int, 3>;
  using I4 = integral_constant<int, 4>;
  using I6 = integral_constant<int, 6>;
  if (r == 1 && c == 1) return fixed(I1{}, I1{});
  if (r == 2 && c == 2) return fixed(I2{}, I2{});
  if (r == 3 && c == 3) return fixed(I3{}, I3{});
  if (r == 4 && c == 4) return fixed(I4{}, I4{});
  if (r == 6 && c == 6) return fixed(I6{}, I6{});
  if (r == 2 && c == 3) return fixed(I2{}, I3{});
  if (r == 3 && c == 2) return fixed(I3{}, I2{});
  if (r == 3 && c == 6) return fixed(I3{}, I6{});
  if (r == 6 && c == 3) return fixed(I6{}, I3{});
  detail::spmv_generic(exec, block_rows, r, c, row_ptr, col_idx, values, alpha, x, beta, y);
}

template <class T>
BsrMatrix<T> transpose_with_source(const HostExec& exec, size_type block_rows, size_type block_cols,
                                   int r, int c, const offset_type* row_ptr,
                                   const index_type* col_idx, const T* values, size_type num_blocks,
                                   offset_type* source) {
  const Executor e(exec);
  Array<offset_type> t_ptr(e, block_cols + 1);
  Array<index_type> t_col(e, num_blocks);
  transpose::transpose_pattern(exec, block_rows, block_cols, num_blocks, row_ptr, col_idx,
                               t_ptr.data(), t_col.data(), source);
  // Entry (a, j) of the new c x r block is entry (j, a) of the old one.
  const size_type block = static_cast<size_type>(r) * c;
  Array<T> t_values(e, num_blocks * block);
  T* val = t_values.data();
  parallel_for(exec, num_blocks, [&](size_type p) {
    const T* from = values + source[p] * block;
    T* to = val + p * block;
    for (int a = 0; a < c; ++a) {
      for (int j = 0; j < r; ++j) to[a * r + j] = from[j * c + a];
    }
  });
  return BsrMatrix<T>(block_cols, block_rows, c, r, std::move(t_ptr), std::move(t_col),
                      std::move(t_values));
}

template <class T>
BsrMatrix<T> transpose(const HostExec& exec, size_type block_rows, size_type block_cols, int r,
                       int c, const offset_type* row_ptr, const index_type* col_idx,
                       const T* values, size_type num_blocks) {
  Array<offset_type> source(Executor(exec), num_blocks);
  return transpose_with_source(exec, block_rows, block_cols, r, c, row_ptr, col_idx, values,
                               num_blocks, source.data());
}

// transpose() is instantiated by bsr_instantiate.inc below, whose
// transpose(const HostExec&, ...) names this overload (the more specialized).
template BsrMatrix<float> transpose_with_source<float>(const HostExec&, size_type, size_type, int,
                                                       int, const offset_type*, const index_type*,
                                                       const float*, size_type, offset_type*);
template BsrMatrix<double> transpose_with_source<double>(const HostExec&, size_type, size_type, int,
                                                         int, const offset_type*, const index_type*,
                                                         const double*, size_type, offset_type*);

}  // namespace strata::kernels::bsr

#define STRATA_EXEC HostExec
#include "kernels/matrix/bsr_instantiate.inc"
#undef STRATA_EXEC
