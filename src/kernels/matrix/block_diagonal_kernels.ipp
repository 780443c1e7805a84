// Single-source bodies of block_diagonal_kernels.hpp. Included by one backend
// file after that backend's parallel header. Each kernel is a template on the
// block size B (1, 2, 3, 4, 6 compiled, 0 = the run-time size b), so the
// small loops unroll and a block row's values stay in registers; one
// switch (with_block_size) picks the instance. The device lambdas sit in
// named function templates (*_fixed): nvcc does not allow an extended
// lambda whose enclosing function is itself a lambda.

#include <limits>
#include <type_traits>

#include "kernels/base/hd.hpp"
#include "kernels/matrix/block_diagonal_kernels.hpp"

namespace strata::kernels::block_diagonal {

namespace detail {

template <class T>
STRATA_HD T magnitude(T v) {
  return v < T{0} ? -v : v;
}

/// Inverts the n x n row-major matrix m (destroyed) into inv by Gauss-Jordan
/// elimination with partial pivoting (rows swapped explicitly, so no pivot
/// vector is needed). Returns false when a pivot is not above `tolerance`.
/// B > 0 fixes n at compile time.
template <int B, class T>
STRATA_HD bool gauss_jordan(int n_runtime, T* m, T* inv, T tolerance) {
  const int n = B > 0 ? B : n_runtime;
  for (int i = 0; i < n * n; ++i) inv[i] = (i / n == i % n) ? T{1} : T{0};
  for (int j = 0; j < n; ++j) {
    int p = j;
    T best = magnitude(m[j * n + j]);
    for (int i = j + 1; i < n; ++i) {
      const T v = magnitude(m[i * n + j]);
      if (v > best) {
        best = v;
        p = i;
      }
    }
    if (!(best > tolerance)) return false;
    if (p != j) {
      // Columns before j are zero in rows j and p already.
      for (int c = j; c < n; ++c) {
        const T s = m[j * n + c];
        m[j * n + c] = m[p * n + c];
        m[p * n + c] = s;
      }
      for (int c = 0; c < n; ++c) {
        const T s = inv[j * n + c];
        inv[j * n + c] = inv[p * n + c];
        inv[p * n + c] = s;
      }
    }
    const T scale = T{1} / m[j * n + j];
    for (int c = j; c < n; ++c) m[j * n + c] *= scale;
    for (int c = 0; c < n; ++c) inv[j * n + c] *= scale;
    for (int i = 0; i < n; ++i) {
      const T f = m[i * n + j];
      if (i == j || f == T{0}) continue;
      for (int c = j; c < n; ++c) m[i * n + c] -= f * m[j * n + c];
      for (int c = 0; c < n; ++c) inv[i * n + c] -= f * inv[j * n + c];
    }
  }
  return true;
}

template <int B, class Exec, class T>
size_type invert_fixed(const Exec& exec, size_type block_rows, int b_runtime,
                       const offset_type* row_ptr, const index_type* col_idx, const T* values,
                       bool l1, T* inverse, T* workspace) {
  constexpr size_type none = std::numeric_limits<size_type>::max();
  // Relative pivot test: 16 b eps of the block's largest entry.
  const T eps = std::numeric_limits<T>::epsilon();
  return transform_reduce(
      exec, block_rows, none,
      [=] STRATA_HD(size_type I) -> size_type {
        const int b = B > 0 ? B : b_runtime;
        const size_type bb = static_cast<size_type>(b) * b;
        offset_type diag = -1;
        for (offset_type k = row_ptr[I]; k < row_ptr[I + 1]; ++k) {
          if (col_idx[k] == I) diag = k;
        }
        if (diag < 0) return I * 4 + int(BlockDefect::missing);
        T local[B > 0 ? B * B : 1];
        T* m = B > 0 ? local : workspace + I * bb;
        for (size_type e = 0; e < bb; ++e) m[e] = values[diag * bb + e];
        if (l1) {
          for (offset_type k = row_ptr[I]; k < row_ptr[I + 1]; ++k) {
            if (k == diag) continue;
            for (int a = 0; a < b; ++a) {
              T s{0};
              for (int j = 0; j < b; ++j) s += magnitude(values[k * bb + a * b + j]);
              m[a * b + a] += s;
            }
          }
        }
        T largest{0};
        for (size_type e = 0; e < bb; ++e) {
          if (!(m[e] - m[e] == T{0})) return I * 4 + int(BlockDefect::non_finite);
          largest = magnitude(m[e]) > largest ? magnitude(m[e]) : largest;
        }
        const T tolerance = T(16) * T(b) * eps * largest;
        if (!gauss_jordan<B>(b, m, inverse + I * bb, tolerance)) {
          return I * 4 + int(BlockDefect::singular);
        }
        return none;
      },
      ops::Min{});
}

template <int B, class Exec, class T>
void apply_fixed(const Exec& exec, size_type block_rows, int b_runtime, const T* inverse, T alpha,
                 const T* x, T beta, T* y) {
  const size_type b = B > 0 ? B : b_runtime;
  parallel_for(exec, block_rows * b, [=] STRATA_HD(size_type i) {
    const size_type n = B > 0 ? B : b;
    const size_type I = i / n, a = i - I * n;
    const T* row = inverse + I * n * n + a * n;
    const T* xs = x + I * n;
    T sum{0};
    for (size_type j = 0; j < n; ++j) sum += row[j] * xs[j];
    y[i] = beta == T{0} ? alpha * sum : alpha * sum + beta * y[i];
  });
}

template <int B, class Exec, class T>
void chebyshev_start_fixed(const Exec& exec, size_type block_rows, int b_runtime, const T* inverse,
                           T inv_theta, const T* rhs, const T* t, T* r, T* p, T* x) {
  const size_type b = B > 0 ? B : b_runtime;
  parallel_for(exec, block_rows * b, [=] STRATA_HD(size_type i) {
    const size_type n = B > 0 ? B : b;
    const size_type I = i / n, a = i - I * n;
    const T* row = inverse + I * n * n + a * n;
    T ri{0};
    for (size_type j = 0; j < n; ++j) {
      const size_type q = I * n + j;
      ri += row[j] * (t == nullptr ? rhs[q] : rhs[q] - t[q]);
    }
    const T pi = inv_theta * ri;
    r[i] = ri;
    p[i] = pi;
    x[i] = t == nullptr ? pi : x[i] + pi;
  });
}

template <int B, class Exec, class T>
void chebyshev_step_fixed(const Exec& exec, size_type block_rows, int b_runtime, const T* inverse,
                          T c_keep, T c_new, const T* t, T* r, T* p, T* x) {
  const size_type b = B > 0 ? B : b_runtime;
  parallel_for(exec, block_rows * b, [=] STRATA_HD(size_type i) {
    const size_type n = B > 0 ? B : b;
    const size_type I = i / n, a = i - I * n;
    const T* row = inverse + I * n * n + a * n;
    T s{0};
    for (size_type j = 0; j < n; ++j) s += row[j] * t[I * n + j];
    const T ri = r[i] - s;
    const T pi = c_keep * p[i] + c_new * ri;
    r[i] = ri;
    p[i] = pi;
    x[i] += pi;
  });
}

/// f(std::integral_constant<int, B>{}) for the compiled B equal to b, or
/// with B = 0 (run-time size) for the others.
template <class F>
decltype(auto) with_block_size(int b, F&& f) {
  using std::integral_constant;
  switch (b) {
    case 1:
      return f(integral_constant<int, 1>{});
    case 2:
      return f(integral_constant<int, 2>{});
    case 3:
      return f(integral_constant<int, 3>{});
    case 4:
      return f(integral_constant<int, 4>{});
    case 6:
      return f(integral_constant<int, 6>{});
    default:
      return f(integral_constant<int, 0>{});
  }
}

}  // namespace detail

template <class Exec, class T>
size_type invert(const Exec& exec, size_type block_rows, int b, const offset_type* row_ptr,
                 const index_type* col_idx, const T* values, bool l1, T* inverse, T* workspace) {
  const size_type first = detail::with_block_size(b, [&](auto B) {
    return detail::invert_fixed<decltype(B)::value>(exec, block_rows, b, row_ptr, col_idx, values,
                                                    l1, inverse, workspace);
  });
  return first == std::numeric_limits<size_type>::max() ? -1 : first;
}

template <class Exec, class T>
void apply(const Exec& exec, size_type block_rows, int b, const T* inverse, T alpha, const T* x,
           T beta, T* y) {
  detail::with_block_size(b, [&](auto B) {
    detail::apply_fixed<decltype(B)::value>(exec, block_rows, b, inverse, alpha, x, beta, y);
  });
}

template <class Exec, class T>
void chebyshev_start(const Exec& exec, size_type block_rows, int b, const T* inverse, T inv_theta,
                     const T* rhs, const T* t, T* r, T* p, T* x) {
  detail::with_block_size(b, [&](auto B) {
    detail::chebyshev_start_fixed<decltype(B)::value>(exec, block_rows, b, inverse, inv_theta, rhs,
                                                      t, r, p, x);
  });
}

template <class Exec, class T>
void chebyshev_step(const Exec& exec, size_type block_rows, int b, const T* inverse, T c_keep,
                    T c_new, const T* t, T* r, T* p, T* x) {
  detail::with_block_size(b, [&](auto B) {
    detail::chebyshev_step_fixed<decltype(B)::value>(exec, block_rows, b, inverse, c_keep, c_new, t,
                                                     r, p, x);
  });
}

}  // namespace strata::kernels::block_diagonal
