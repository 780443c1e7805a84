// Host instantiation of the vector kernels, and the tuned host versions of
// the multi-vector kernels.
#include "kernels/blas/vector_kernels.ipp"

#include <algorithm>
#include <vector>

#include "backend/host/base/parallel.hpp"

namespace strata::kernels::blas {

namespace {

/// Columns whose sums advance together: independent chains that keep the
/// floating-point units busy while each chain stays in row order.
constexpr int interleave = 8;

/// Rows per chunk: small enough that the chunk of all 31 columns of
/// GMRES(30) (250 KB) stays in L2 between the update and the projections.
constexpr size_type rows_per_chunk = 1024;

/// out[j] += sum_{i in [begin, end)} V_j[i] w[i] for columns [first, first + C).
template <int C, class T>
void chunk_dots(const T* const* V, int first, const T* w, size_type begin, size_type end, T* out) {
  T s[C] = {};
  const T* v[C];
  for (int c = 0; c < C; ++c) v[c] = V[first + c];
  for (size_type i = begin; i < end; ++i) {
    const T wi = w[i];
    for (int c = 0; c < C; ++c) s[c] += v[c][i] * wi;
  }
  for (int c = 0; c < C; ++c) out[first + c] = s[c];
}

/// The chunked pass: per chunk of rows_per_chunk rows, w -= V h when h is
/// given (for each row j in order, as k axpys would), then V^T w and w^T w
/// over the chunk when out is given; the chunks' sums are added in chunk
/// order.
template <class T>
void multi_pass(const HostExec& exec, size_type n, int k, const T* const* V, const T* h, T* w,
                T* out) {
  const size_type chunk = rows_per_chunk;
  const size_type chunks = (n + chunk - 1) / chunk;
  const std::size_t width = static_cast<std::size_t>(k) + 1;
  std::vector<T> partial(out != nullptr ? static_cast<std::size_t>(chunks) * width : 0);
  host_detail::for_each_task(exec, chunks, [&](size_type c) {
    const size_type begin = c * chunk, end = std::min(n, begin + chunk);
    if (h != nullptr) {
      for (int j = 0; j < k; ++j) {  // column by column: vectorises, same order per row
        const T hj = h[j];
        const T* v = V[j];
        for (size_type i = begin; i < end; ++i) w[i] -= hj * v[i];
      }
    }
    if (out == nullptr) return;
    T* p = partial.data() + static_cast<std::size_t>(c) * width;
    int j = 0;
    for (; j + interleave <= k; j += interleave) chunk_dots<interleave>(V, j, w, begin, end, p);
    for (; j < k; ++j) chunk_dots<1>(V, j, w, begin, end, p);
    const T* self[1] = {w};
    chunk_dots<1>(self, 0, w, begin, end, p + k);
  });
  if (out == nullptr) return;
  for (std::size_t j = 0; j < width; ++j) {
    T s{0};
    for (size_type c = 0; c < chunks; ++c) s += partial[static_cast<std::size_t>(c) * width + j];
    out[j] = s;
  }
}

}  // namespace

template <class T>
void multi_dot(const HostExec& exec, size_type n, int k, const T* const* V, const T* w, T* out) {
  // Nothing is written through w: h is null.
  multi_pass(exec, n, k, V, static_cast<const T*>(nullptr), const_cast<T*>(w), out);
}

template <class T>
void multi_axpy(const HostExec& exec, size_type n, int k, const T* const* V, const T* h, T* w) {
  multi_pass(exec, n, k, V, h, w, static_cast<T*>(nullptr));
}

template <class T>
void multi_axpy_dot(const HostExec& exec, size_type n, int k, const T* const* V, const T* h, T* w,
                    T* out) {
  multi_pass(exec, n, k, V, h, w, out);
}

}  // namespace strata::kernels::blas

#define STRATA_EXEC HostExec
#include "kernels/blas/vector_instantiate.inc"
#undef STRATA_EXEC
