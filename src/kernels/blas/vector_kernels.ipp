// Single-source bodies of vector_kernels.hpp (see primitives_kernels.ipp for
// how a backend includes this).

#include "kernels/base/hd.hpp"
#include "kernels/blas/vector_kernels.hpp"

namespace strata::kernels::blas {

namespace detail {
template <class T>
STRATA_HD T absolute(T v) {
  return v < T{0} ? -v : v;
}

template <class T>
struct Pair {
  T first, second;
};

struct PairPlus {
  template <class T>
  STRATA_HD Pair<T> operator()(const Pair<T>& a, const Pair<T>& b) const {
    return {a.first + b.first, a.second + b.second};
  }
};
}  // namespace detail

template <class Exec, class T>
void axpby(const Exec& exec, size_type n, T alpha, const T* x, T beta, T* y) {
  if (beta == T{0}) {
    parallel_for(exec, n, [=] STRATA_HD(size_type i) { y[i] = alpha * x[i]; });
  } else if (beta == T{1}) {
    parallel_for(exec, n, [=] STRATA_HD(size_type i) { y[i] += alpha * x[i]; });
  } else {
    parallel_for(exec, n, [=] STRATA_HD(size_type i) { y[i] = alpha * x[i] + beta * y[i]; });
  }
}

template <class Exec, class T>
void axpbyz(const Exec& exec, size_type n, T alpha, const T* x, T beta, const T* y, T* z) {
  parallel_for(exec, n, [=] STRATA_HD(size_type i) { z[i] = alpha * x[i] + beta * y[i]; });
}

template <class Exec, class T>
void scale(const Exec& exec, size_type n, T alpha, T* x) {
  parallel_for(exec, n, [=] STRATA_HD(size_type i) { x[i] *= alpha; });
}

template <class Exec, class T>
void pointwise_multiply(const Exec& exec, size_type n, const T* x, const T* y, T* z) {
  parallel_for(exec, n, [=] STRATA_HD(size_type i) { z[i] = x[i] * y[i]; });
}

template <class Exec, class T>
T dot(const Exec& exec, size_type n, const T* x, const T* y) {
  return transform_reduce(exec, n, T{0}, [=] STRATA_HD(size_type i) { return x[i] * y[i]; },
                          ops::Plus{});
}

template <class Exec, class T>
T asum(const Exec& exec, size_type n, const T* x) {
  return transform_reduce(
      exec, n, T{0}, [=] STRATA_HD(size_type i) { return detail::absolute(x[i]); }, ops::Plus{});
}

template <class Exec, class T>
T amax(const Exec& exec, size_type n, const T* x) {
  return transform_reduce(
      exec, n, T{0}, [=] STRATA_HD(size_type i) { return detail::absolute(x[i]); }, ops::Max{});
}

// The fused kernels write inside the reduction's map: every index is mapped
// exactly once by both backends' transform_reduce.
template <class Exec, class T>
T axpy_norm2_squared(const Exec& exec, size_type n, T alpha, const T* x, T* y) {
  return transform_reduce(
      exec, n, T{0},
      [=] STRATA_HD(size_type i) {
        const T v = y[i] + alpha * x[i];
        y[i] = v;
        return v * v;
      },
      ops::Plus{});
}

template <class Exec, class T>
T pointwise_multiply_dot(const Exec& exec, size_type n, const T* d, const T* r, T* z) {
  return transform_reduce(
      exec, n, T{0},
      [=] STRATA_HD(size_type i) {
        const T ri = r[i];
        const T zi = d[i] * ri;
        z[i] = zi;
        return ri * zi;
      },
      ops::Plus{});
}

template <class Exec, class T>
std::pair<T, T> dot2(const Exec& exec, size_type n, const T* x, const T* y, const T* z) {
  const auto r = transform_reduce(
      exec, n, detail::Pair<T>{T{0}, T{0}},
      [=] STRATA_HD(size_type i) { return detail::Pair<T>{x[i] * y[i], x[i] * z[i]}; },
      detail::PairPlus{});
  return {r.first, r.second};
}

}  // namespace strata::kernels::blas
