#pragma once
// Kernel contract for the vector operations of strata/matrix/vector.hpp.
// All pointers are in the executor's memory and have n elements.

#include <utility>

#include "strata/core/executor.hpp"
#include "strata/core/types.hpp"

namespace strata::kernels::blas {

/// y = alpha x + beta y; beta == 0 ignores the old y (it may hold NaN).
template <class Exec, class T>
void axpby(const Exec& exec, size_type n, T alpha, const T* x, T beta, T* y);
/// z = alpha x + beta y
template <class Exec, class T>
void axpbyz(const Exec& exec, size_type n, T alpha, const T* x, T beta, const T* y, T* z);
/// x = alpha x
template <class Exec, class T>
void scale(const Exec& exec, size_type n, T alpha, T* x);
/// z_i = x_i y_i
template <class Exec, class T>
void pointwise_multiply(const Exec& exec, size_type n, const T* x, const T* y, T* z);
/// sum_i x_i y_i
template <class Exec, class T>
T dot(const Exec& exec, size_type n, const T* x, const T* y);
/// sum_i |x_i|
template <class Exec, class T>
T asum(const Exec& exec, size_type n, const T* x);
/// max_i |x_i| (0 for n == 0)
template <class Exec, class T>
T amax(const Exec& exec, size_type n, const T* x);
/// y += alpha x; returns sum_i y_i^2 of the new y.
template <class Exec, class T>
T axpy_norm2_squared(const Exec& exec, size_type n, T alpha, const T* x, T* y);
/// z_i = d_i r_i; returns sum_i r_i z_i.
template <class Exec, class T>
T pointwise_multiply_dot(const Exec& exec, size_type n, const T* d, const T* r, T* z);
/// {sum_i x_i y_i, sum_i x_i z_i}
template <class Exec, class T>
std::pair<T, T> dot2(const Exec& exec, size_type n, const T* x, const T* y, const T* z);

// Multi-vector kernels for classical Gram-Schmidt. V holds k pointers (in
// host memory) to vectors of n entries in the executor's memory; they are
// passed by value into the kernel, so the vectors need not be contiguous.
// h holds k coefficients in host memory, likewise passed by value.
// Up to multi_width columns go through one pass over memory and one fixed-
// order reduction; larger k take one pass per group of multi_width columns.

/// Columns one pass of the multi-vector kernels handles. 32 covers GMRES(m)
/// up to m = 32, the default m = 30 included.
inline constexpr int multi_width = 32;

/// out[j] = V_j^T w for j < k, and out[k] = w^T w (k + 1 results).
template <class Exec, class T>
void multi_dot(const Exec& exec, size_type n, int k, const T* const* V, const T* w, T* out);

/// w -= sum_{j<k} h_j V_j.
template <class Exec, class T>
void multi_axpy(const Exec& exec, size_type n, int k, const T* const* V, const T* h, T* w);

/// w -= sum_{j<k} h_j V_j, then out[j] = V_j^T w and out[k] = w^T w of the
/// updated w: the two halves of a Gram-Schmidt correction and the next
/// projection in one pass (V is read once for both).
template <class Exec, class T>
void multi_axpy_dot(const Exec& exec, size_type n, int k, const T* const* V, const T* h, T* w,
                    T* out);

// Tuned host versions of the three (overload resolution prefers them for
// HostExec). The shared body keeps k + 1 running sums per row, which stay in
// registers on the GPU but spill on a CPU (measured 3-5x slower than the k
// separate dots it replaces). These work on fixed chunks of rows, a few
// columns at a time, so the chunk of w stays in cache and each column's sum
// is a sequential chain of its own: the same sums in an order that depends
// on n only, and for every row the same update order j = 0, 1, ...
template <class T>
void multi_dot(const HostExec& exec, size_type n, int k, const T* const* V, const T* w, T* out);
template <class T>
void multi_axpy(const HostExec& exec, size_type n, int k, const T* const* V, const T* h, T* w);
template <class T>
void multi_axpy_dot(const HostExec& exec, size_type n, int k, const T* const* V, const T* h,
                    T* w, T* out);

}  // namespace strata::kernels::blas
