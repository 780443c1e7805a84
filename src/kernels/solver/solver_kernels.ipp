// Single-source bodies of solver_kernels.hpp.

#include <cmath>
#include <limits>
#include <type_traits>

#include "kernels/base/hd.hpp"
#include "kernels/base/random.hpp"
#include "kernels/solver/solver_kernels.hpp"

namespace strata::kernels::solver {

namespace detail {
template <class T>
struct Sums {
  T a, b;
};
struct SumsPlus {
  template <class T>
  STRATA_HD Sums<T> operator()(const Sums<T>& u, const Sums<T>& v) const {
    return {u.a + v.a, u.b + v.b};
  }
};
}  // namespace detail

template <class Exec, class T>
std::pair<T, T> cg_update_diagonal(const Exec& exec, size_type n, T alpha, const T* p,
                                   const T* q, const T* d, T* x, T* r, T* z) {
  const auto s = transform_reduce(
      exec, n, detail::Sums<T>{T{0}, T{0}},
      [=] STRATA_HD(size_type i) {
        x[i] += alpha * p[i];
        const T ri = r[i] - alpha * q[i];
        const T zi = d[i] * ri;
        r[i] = ri;
        z[i] = zi;
        return detail::Sums<T>{ri * ri, ri * zi};
      },
      detail::SumsPlus{});
  return {s.a, s.b};
}

namespace detail {
/// K + 1 sums (K projections and the norm) as one value for transform_reduce.
/// K is a compile-time constant so that every loop unrolls into registers.
template <class T, int K>
struct BlockSums {
  T s[K + 1];
};
template <class T, int K>
struct BlockPlus {
  STRATA_HD BlockSums<T, K> operator()(const BlockSums<T, K>& a, const BlockSums<T, K>& b) const {
    BlockSums<T, K> c;
    for (int j = 0; j <= K; ++j) c.s[j] = a.s[j] + b.s[j];
    return c;
  }
};
template <class T, int K>
struct BlockPointers {
  const T* v[K];
  T h[K];
};

template <int K, class Exec, class T>
void block_dot_k(const Exec& exec, size_type n, const T* const* V, const T* w, T* out) {
  BlockPointers<T, K> b{};
  for (int j = 0; j < K; ++j) b.v[j] = V[j];
  const BlockSums<T, K> sums = transform_reduce(
      exec, n, BlockSums<T, K>{},
      [=] STRATA_HD(size_type i) {
        BlockSums<T, K> s;
        const T wi = w[i];
        for (int j = 0; j < K; ++j) s.s[j] = b.v[j][i] * wi;
        s.s[K] = wi * wi;
        return s;
      },
      BlockPlus<T, K>{});
  for (int j = 0; j <= K; ++j) out[j] = sums.s[j];
}

template <int K, class Exec, class T>
T block_update_k(const Exec& exec, size_type n, const T* const* V, const T* h, T* w) {
  BlockPointers<T, K> b{};
  for (int j = 0; j < K; ++j) {
    b.v[j] = V[j];
    b.h[j] = h[j];
  }
  return transform_reduce(
      exec, n, T{0},
      [=] STRATA_HD(size_type i) {
        T wi = w[i];
        for (int j = 0; j < K; ++j) wi -= b.h[j] * b.v[j][i];
        w[i] = wi;
        return wi * wi;
      },
      ops::Plus{});
}

/// f(std::integral_constant<int, K>) for the run-time k in [1, max_block].
template <class F>
decltype(auto) with_block_size(int k, F&& f) {
  switch (k) {
    case 1: return f(std::integral_constant<int, 1>{});
    case 2: return f(std::integral_constant<int, 2>{});
    case 3: return f(std::integral_constant<int, 3>{});
    case 4: return f(std::integral_constant<int, 4>{});
    case 5: return f(std::integral_constant<int, 5>{});
    case 6: return f(std::integral_constant<int, 6>{});
    case 7: return f(std::integral_constant<int, 7>{});
    case 8: return f(std::integral_constant<int, 8>{});
    case 9: return f(std::integral_constant<int, 9>{});
    case 10: return f(std::integral_constant<int, 10>{});
    default: return f(std::integral_constant<int, 11>{});
  }
}
static_assert(max_block == 11, "with_block_size lists the sizes up to max_block");
}  // namespace detail

namespace detail {
template <int K, class Exec, class T>
void block_gram_k(const Exec& exec, size_type n, const T* const* V, T* out) {
  using Sums = BlockSums<T, K*(K + 1) / 2 - 1>;  // K (K + 1) / 2 products
  BlockPointers<T, K> b{};
  for (int j = 0; j < K; ++j) b.v[j] = V[j];
  const Sums sums = transform_reduce(
      exec, n, Sums{},
      [=] STRATA_HD(size_type i) {
        Sums s;
        T x[K];
        for (int j = 0; j < K; ++j) x[j] = b.v[j][i];
        int p = 0;
        for (int r = 0; r < K; ++r) {
          for (int c = r; c < K; ++c) s.s[p++] = x[r] * x[c];
        }
        return s;
      },
      BlockPlus<T, K*(K + 1) / 2 - 1>{});
  int p = 0;
  for (int r = 0; r < K; ++r) {
    for (int c = r; c < K; ++c) {
      out[r * K + c] = sums.s[p];
      out[c * K + r] = sums.s[p];
      ++p;
    }
  }
}
}  // namespace detail

template <class Exec, class T>
void block_gram(const Exec& exec, size_type n, int k, const T* const* V, T* out) {
  static_assert(max_gram == 6, "block_gram lists the sizes up to max_gram");
  switch (k) {
    case 1: return detail::block_gram_k<1>(exec, n, V, out);
    case 2: return detail::block_gram_k<2>(exec, n, V, out);
    case 3: return detail::block_gram_k<3>(exec, n, V, out);
    case 4: return detail::block_gram_k<4>(exec, n, V, out);
    case 5: return detail::block_gram_k<5>(exec, n, V, out);
    default: return detail::block_gram_k<6>(exec, n, V, out);
  }
}

template <class Exec, class T>
void block_dot(const Exec& exec, size_type n, int k, const T* const* V, const T* w, T* out) {
  detail::with_block_size(k, [&](auto K) { detail::block_dot_k<K()>(exec, n, V, w, out); });
}

template <class Exec, class T>
T block_update_norm2(const Exec& exec, size_type n, int k, const T* const* V, const T* h, T* w) {
  return detail::with_block_size(
      k, [&](auto K) { return detail::block_update_k<K()>(exec, n, V, h, w); });
}

template <class Exec, class T>
void hashed_start_vector(const Exec& exec, size_type n, size_type first, T* v) {
  parallel_for(exec, n, [=] STRATA_HD(size_type i) {
    const std::uint64_t z =
        base::splitmix64_mix(static_cast<std::uint64_t>(first + i) + base::golden_gamma);
    v[i] = static_cast<T>(0.5 + base::unit_interval(z));
  });
}

template <class Exec, class T>
T cg_update(const Exec& exec, size_type n, T alpha, const T* p, const T* q, T* x, T* r) {
  return transform_reduce(
      exec, n, T{0},
      [=] STRATA_HD(size_type i) {
        x[i] += alpha * p[i];
        const T ri = r[i] - alpha * q[i];
        r[i] = ri;
        return ri * ri;
      },
      ops::Plus{});
}

}  // namespace strata::kernels::solver
