// Single-source bodies of vector_kernels.hpp (see primitives_kernels.ipp for
// how a backend includes this).

#include <algorithm>

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
  return transform_reduce(
      exec, n, T{0}, [=] STRATA_HD(size_type i) { return x[i] * y[i]; }, ops::Plus{});
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
      [=] STRATA_HD(size_type i) {
        return detail::Pair<T>{x[i] * y[i], x[i] * z[i]};
      },
      detail::PairPlus{});
  return {r.first, r.second};
}

// nvcc must unroll the loops over a pass's columns fully, so that the
// per-column arrays stay in registers.
#define STRATA_UNROLL_COLUMNS STRATA_UNROLL

namespace detail {
/// Up to W columns and their coefficients, copied into the kernel's
/// arguments: no device-side pointer table and no host-to-device copy of h.
template <class T, int W>
struct Columns {
  const T* v[W];
  T h[W];
};

/// W projections and w^T w, reduced together by one transform_reduce.
template <class T, int W>
struct ColumnSums {
  T s[W + 1];
};

template <class T, int W>
struct ColumnPlus {
  STRATA_HD ColumnSums<T, W> operator()(const ColumnSums<T, W>& a,
                                        const ColumnSums<T, W>& b) const {
    ColumnSums<T, W> c;
    STRATA_UNROLL_COLUMNS
    for (int j = 0; j <= W; ++j) c.s[j] = a.s[j] + b.s[j];
    return c;
  }
};

template <int W, class T>
Columns<T, W> columns(int k, const T* const* V, const T* h) {
  Columns<T, W> c{};  // unused slots: null pointers, never read
  for (int j = 0; j < k; ++j) {
    c.v[j] = V[j];
    c.h[j] = h != nullptr ? h[j] : T{0};
  }
  return c;
}

/// One pass over the rows for k <= W columns: with Update, w_i -= sum_j h_j
/// V_j[i] first (the same left-to-right order as k axpys); then out[j] =
/// V_j^T w and out[k] = w^T w. The columns beyond k cost predicated-off
/// loads and a few flops, not memory traffic.
template <int W, bool Update, class Exec, class T, class WPtr>
void multi_pass(const Exec& exec, size_type n, int k, const Columns<T, W>& cols, WPtr w, T* out) {
  const Columns<T, W> c = cols;
  const ColumnSums<T, W> sums = transform_reduce(
      exec, n, ColumnSums<T, W>{},
      [=] STRATA_HD(size_type i) {
        T x[W];
        STRATA_UNROLL_COLUMNS
        for (int j = 0; j < W; ++j) x[j] = j < k ? c.v[j][i] : T{0};
        T wi = w[i];
        if constexpr (Update) {
          STRATA_UNROLL_COLUMNS
          for (int j = 0; j < W; ++j) {
            if (j < k) wi -= c.h[j] * x[j];
          }
          w[i] = wi;
        }
        ColumnSums<T, W> s;
        STRATA_UNROLL_COLUMNS
        for (int j = 0; j < W; ++j) s.s[j] = x[j] * wi;
        s.s[W] = wi * wi;
        return s;
      },
      ColumnPlus<T, W>{});
  for (int j = 0; j < k; ++j) out[j] = sums.s[j];
  out[k] = sums.s[W];
}

template <int W, class Exec, class T>
void multi_update(const Exec& exec, size_type n, int k, const Columns<T, W>& cols, T* w) {
  const Columns<T, W> c = cols;
  parallel_for(exec, n, [=] STRATA_HD(size_type i) {
    T wi = w[i];
    STRATA_UNROLL_COLUMNS
    for (int j = 0; j < W; ++j) {
      if (j < k) wi -= c.h[j] * c.v[j][i];
    }
    w[i] = wi;
  });
}

/// A narrow pass for the first few Arnoldi steps: fewer registers and a
/// smaller block reduction than the full width.
inline constexpr int narrow_width = 8;
}  // namespace detail

template <class Exec, class T>
void multi_dot(const Exec& exec, size_type n, int k, const T* const* V, const T* w, T* out) {
  using namespace detail;
  if (k <= narrow_width) {
    return multi_pass<narrow_width, false>(
        exec, n, k, columns<narrow_width>(k, V, static_cast<const T*>(nullptr)), w, out);
  }
  // Column groups of multi_width; w^T w comes from the first group.
  T norm_squared{0};
  for (int first = 0; first < k; first += multi_width) {
    const int count = std::min(multi_width, k - first);
    multi_pass<multi_width, false>(
        exec, n, count, columns<multi_width>(count, V + first, static_cast<const T*>(nullptr)), w,
        out + first);
    if (first == 0) norm_squared = out[count];
  }
  out[k] = norm_squared;
}

template <class Exec, class T>
void multi_axpy(const Exec& exec, size_type n, int k, const T* const* V, const T* h, T* w) {
  using namespace detail;
  if (k <= narrow_width) {
    return multi_update<narrow_width>(exec, n, k, columns<narrow_width>(k, V, h), w);
  }
  for (int first = 0; first < k; first += multi_width) {
    const int count = std::min(multi_width, k - first);
    multi_update<multi_width>(exec, n, count, columns<multi_width>(count, V + first, h + first), w);
  }
}

template <class Exec, class T>
void multi_axpy_dot(const Exec& exec, size_type n, int k, const T* const* V, const T* h, T* w,
                    T* out) {
  using namespace detail;
  if (k <= narrow_width) {
    return multi_pass<narrow_width, true>(exec, n, k, columns<narrow_width>(k, V, h), w, out);
  }
  if (k <= multi_width) {
    return multi_pass<multi_width, true>(exec, n, k, columns<multi_width>(k, V, h), w, out);
  }
  // More columns than one pass holds: the whole update must land before
  // any projection, so update in groups, then project in groups.
  multi_axpy(exec, n, k, V, h, w);
  multi_dot(exec, n, k, V, static_cast<const T*>(w), out);
}

#undef STRATA_UNROLL_COLUMNS

}  // namespace strata::kernels::blas
