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

}  // namespace strata::kernels::blas
