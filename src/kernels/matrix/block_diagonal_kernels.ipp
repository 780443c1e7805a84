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
/// B > 0 fixes n at compile time; then every loop unrolls and the pivot row
/// is swapped by comparing it with each candidate row's compile-time index,
/// so that m and inv (the caller's local arrays) stay in registers. Indexed
/// by the pivot's run-time row instead, they went to local memory, and with
/// inv written in global memory a 6x6 inversion was a chain of several
/// hundred dependent memory operations: 97 us for a level of 369 blocks on
/// an H200, as long as for 7231. Same operations in the same order either
/// way.
template <int B, class T>
STRATA_HD bool gauss_jordan(int n_runtime, T* m, T* inv, T tolerance) {
  if constexpr (B == 1) {  // the steps below reduce to this, 1 * (1 / m) exactly
    if (!(magnitude(m[0]) > tolerance)) return false;
    inv[0] = T{1} / m[0];
    return true;
  }
  const int n = B > 0 ? B : n_runtime;
  STRATA_UNROLL
  for (int i = 0; i < (B > 0 ? B * B : n * n); ++i) inv[i] = (i / n == i % n) ? T{1} : T{0};
  STRATA_UNROLL
  for (int j = 0; j < (B > 0 ? B : n); ++j) {
    int p = j;
    T best = magnitude(m[j * n + j]);
    STRATA_UNROLL
    for (int i = j + 1; i < (B > 0 ? B : n); ++i) {
      const T v = magnitude(m[i * n + j]);
      if (v > best) {
        best = v;
        p = i;
      }
    }
    if (!(best > tolerance)) return false;
    // Columns before j are zero in rows j and p already.
    const auto swap_rows = [&](int q) {
      STRATA_UNROLL
      for (int c = j; c < (B > 0 ? B : n); ++c) {
        const T s = m[j * n + c];
        m[j * n + c] = m[q * n + c];
        m[q * n + c] = s;
      }
      STRATA_UNROLL
      for (int c = 0; c < (B > 0 ? B : n); ++c) {
        const T s = inv[j * n + c];
        inv[j * n + c] = inv[q * n + c];
        inv[q * n + c] = s;
      }
    };
    if constexpr (B > 0) {
      STRATA_UNROLL
      for (int q = j + 1; q < B; ++q) {
        if (q == p) swap_rows(q);
      }
    } else if (p != j) {
      swap_rows(p);
    }
    const T scale = T{1} / m[j * n + j];
    STRATA_UNROLL
    for (int c = j; c < (B > 0 ? B : n); ++c) m[j * n + c] *= scale;
    STRATA_UNROLL
    for (int c = 0; c < (B > 0 ? B : n); ++c) inv[j * n + c] *= scale;
    STRATA_UNROLL
    for (int i = 0; i < (B > 0 ? B : n); ++i) {
      const T f = m[i * n + j];
      if (i == j || f == T{0}) continue;
      STRATA_UNROLL
      for (int c = j; c < (B > 0 ? B : n); ++c) m[i * n + c] -= f * m[j * n + c];
      STRATA_UNROLL
      for (int c = 0; c < (B > 0 ? B : n); ++c) inv[i * n + c] -= f * inv[j * n + c];
    }
  }
  return true;
}

/// Block row I's diagonal block (plus its row's off-diagonal l1 sums when
/// `l1`) into m, inverted into inv; `none` or the defect's code.
template <int B, class T>
STRATA_HD size_type invert_block(size_type I, int b_runtime, const offset_type* row_ptr,
                                 const index_type* col_idx, const T* values, bool l1, T* m,
                                 T* inv) {
  constexpr size_type none = std::numeric_limits<size_type>::max();
  // Relative pivot test: 16 b eps of the block's largest entry.
  const T eps = std::numeric_limits<T>::epsilon();
  const int b = B > 0 ? B : b_runtime;
  const size_type bb = static_cast<size_type>(b) * b;
  offset_type diag = -1;
  for (offset_type k = row_ptr[I]; k < row_ptr[I + 1]; ++k) {
    if (col_idx[k] == I) diag = k;
  }
  if (diag < 0) return I * 4 + int(BlockDefect::missing);
  STRATA_UNROLL
  for (size_type e = 0; e < bb; ++e) m[e] = values[diag * bb + e];
  if (l1) {
    for (offset_type k = row_ptr[I]; k < row_ptr[I + 1]; ++k) {
      if (k == diag) continue;
      STRATA_UNROLL
      for (int a = 0; a < b; ++a) {
        T s{0};
        for (int j = 0; j < b; ++j) s += magnitude(values[k * bb + a * b + j]);
        m[a * b + a] += s;
      }
    }
  }
  T largest{0};
  STRATA_UNROLL
  for (size_type e = 0; e < bb; ++e) {
    if (!(m[e] - m[e] == T{0})) return I * 4 + int(BlockDefect::non_finite);
    largest = magnitude(m[e]) > largest ? magnitude(m[e]) : largest;
  }
  const T tolerance = T(16) * T(b) * eps * largest;
  if (!gauss_jordan<B>(b, m, inv, tolerance)) return I * 4 + int(BlockDefect::singular);
  return none;
}

template <int B, class Exec, class T>
size_type invert_fixed(const Exec& exec, size_type block_rows, int b_runtime,
                       const offset_type* row_ptr, const index_type* col_idx, const T* values,
                       bool l1, T* inverse, T* workspace) {
  constexpr size_type none = std::numeric_limits<size_type>::max();
  if constexpr (B > 0) {
    // A compiled size works in local arrays (registers on the device) and
    // writes the inverse once.
    (void)b_runtime;
    (void)workspace;
    return transform_reduce(
        exec, block_rows, none,
        [=] STRATA_HD(size_type I) -> size_type {
          T m[B * B], inv[B * B] = {};
          const size_type defect = invert_block<B>(I, B, row_ptr, col_idx, values, l1, m, inv);
          if (defect != none) return defect;
          STRATA_UNROLL
          for (int e = 0; e < B * B; ++e) inverse[I * (B * B) + e] = inv[e];
          return none;
        },
        ops::Min{});
  } else {
    const size_type bb = static_cast<size_type>(b_runtime) * b_runtime;
    return transform_reduce(
        exec, block_rows, none,
        [=] STRATA_HD(size_type I) -> size_type {
          return invert_block<0>(I, b_runtime, row_ptr, col_idx, values, l1, workspace + I * bb,
                                 inverse + I * bb);
        },
        ops::Min{});
  }
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
