#pragma once
// Host (OpenMP) implementations of the parallel primitives. Kernel bodies
// call these unqualified with a HostExec; argument-dependent lookup picks
// them, and the CUDA versions in backend/cuda/base/parallel.cuh for CudaExec.
//
// Reductions and scans split the input into chunks of a fixed size that
// does not depend on the thread count, so results repeat bit for bit.

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "kernels/base/hd.hpp"
#include "strata/core/executor.hpp"
#include "strata/core/types.hpp"

#if STRATA_WITH_OPENMP
#include <omp.h>
#endif

namespace strata {

namespace host_detail {
// Chunk of the fixed-order reductions and scans.
inline constexpr size_type reduction_chunk = 4096;
// Below this many iterations a loop runs on the calling thread.
inline constexpr size_type parallel_threshold = 8192;

inline int thread_count(const HostExec& exec) {
#if STRATA_WITH_OPENMP
  return exec.threads() > 0 ? exec.threads() : omp_get_max_threads();
#else
  (void)exec;
  return 1;
#endif
}
/// f(t) for t in [0, tasks): coarse tasks (chunks, thread shares) that are
/// run in parallel whenever there is more than one.
template <class F>
void for_each_task(const HostExec& exec, size_type tasks, F&& f) {
#if STRATA_WITH_OPENMP
  const int threads = thread_count(exec);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (tasks > 1)
  for (size_type t = 0; t < tasks; ++t) f(t);
#else
  (void)exec;
  for (size_type t = 0; t < tasks; ++t) f(t);
#endif
}
}  // namespace host_detail

/// f(i) for i in [0, n): fine-grained, run on the calling thread when short.
template <class F>
void parallel_for(const HostExec& exec, size_type n, F&& f) {
#if STRATA_WITH_OPENMP
  const int threads = host_detail::thread_count(exec);
#pragma omp parallel for schedule(static) num_threads(threads) if (n > host_detail::parallel_threshold)
  for (size_type i = 0; i < n; ++i) f(i);
#else
  (void)exec;
  for (size_type i = 0; i < n; ++i) f(i);
#endif
}

/// f(i, k) for every entry k in [ptr[i], ptr[i + 1]) of every row i < rows
/// of a CSR-like layout (ptr[0] = 0, ptr[rows] = nnz): row by row here, in
/// entry order within a row. The CUDA version runs a thread per entry.
template <class F>
void for_each_row_entry(const HostExec& exec, size_type rows, offset_type nnz,
                        const offset_type* ptr, F&& f) {
  (void)nnz;
  parallel_for(exec, rows, [&](size_type i) {
    for (offset_type k = ptr[i]; k < ptr[i + 1]; ++k) f(i, k);
  });
}

/// op-reduction of map(i) over [0, n), starting from `identity`. The order of
/// combination depends on n only.
template <class T, class Map, class Op>
T transform_reduce(const HostExec& exec, size_type n, T identity, Map&& map, Op op) {
  const size_type chunk = host_detail::reduction_chunk;
  const size_type chunks = (n + chunk - 1) / chunk;
  std::vector<T> partial(static_cast<std::size_t>(chunks), identity);
  host_detail::for_each_task(exec, chunks, [&](size_type c) {
    T acc = identity;
    const size_type end = std::min(n, (c + 1) * chunk);
    for (size_type i = c * chunk; i < end; ++i) acc = op(acc, map(i));
    partial[static_cast<std::size_t>(c)] = acc;
  });
  T result = identity;
  for (const T& p : partial) result = op(result, p);
  return result;
}

/// op-reduction of map(i0, i1, i2) over an n0 x n1 x n2 box (i0 fastest),
/// in the order of transform_reduce over the flattened index (chunks of
/// consecutive cells; one division per chunk, not per cell).
template <class T, class Map, class Op>
T transform_reduce_box(const HostExec& exec, size_type n0, size_type n1, size_type n2, T identity,
                       Map&& map, Op op) {
  const size_type n01 = n0 * n1, n = n01 * n2;
  if (n <= 0) return identity;
  const size_type chunk = host_detail::reduction_chunk;
  const size_type chunks = (n + chunk - 1) / chunk;
  std::vector<T> partial(static_cast<std::size_t>(chunks), identity);
  host_detail::for_each_task(exec, chunks, [&](size_type c) {
    size_type t = c * chunk;
    const size_type end = std::min(n, t + chunk);
    size_type i2 = t / n01, i1 = (t - i2 * n01) / n0, i0 = t - i2 * n01 - i1 * n0;
    T acc = identity;
    for (; t < end; ++t) {
      acc = op(acc, map(i0, i1, i2));
      if (++i0 == n0) {
        i0 = 0;
        if (++i1 == n1) {
          i1 = 0;
          ++i2;
        }
      }
    }
    partial[static_cast<std::size_t>(c)] = acc;
  });
  T result = identity;
  for (const T& p : partial) result = op(result, p);
  return result;
}

/// The same reduction written to *result: the device's form (which leaves
/// the result in device memory without waiting) has this signature.
template <class T, class Map, class Op>
void transform_reduce_to(const HostExec& exec, size_type n, T identity, Map&& map, Op op,
                         T* result) {
  *result = transform_reduce(exec, n, identity, std::forward<Map>(map), op);
}

/// out[i] = in[0] + ... + in[i-1]; returns the total. `out` may equal `in`.
template <class T>
T exclusive_scan(const HostExec& exec, const T* in, T* out, size_type n) {
  const size_type chunk = host_detail::reduction_chunk;
  const size_type chunks = (n + chunk - 1) / chunk;
  std::vector<T> offset(static_cast<std::size_t>(chunks) + 1, T{});
  host_detail::for_each_task(exec, chunks, [&](size_type c) {
    T acc{};
    const size_type end = std::min(n, (c + 1) * chunk);
    for (size_type i = c * chunk; i < end; ++i) acc += in[i];
    offset[static_cast<std::size_t>(c) + 1] = acc;
  });
  for (size_type c = 0; c < chunks; ++c) offset[c + 1] += offset[c];
  host_detail::for_each_task(exec, chunks, [&](size_type c) {
    T acc = offset[static_cast<std::size_t>(c)];
    const size_type end = std::min(n, (c + 1) * chunk);
    for (size_type i = c * chunk; i < end; ++i) {
      const T v = in[i];
      out[i] = acc;
      acc += v;
    }
  });
  return offset.back();
}

/// out[i] = in[0] + ... + in[i]. `out` may equal `in`.
template <class T>
void inclusive_scan(const HostExec& exec, const T* in, T* out, size_type n) {
  const size_type chunk = host_detail::reduction_chunk;
  const size_type chunks = (n + chunk - 1) / chunk;
  std::vector<T> offset(static_cast<std::size_t>(chunks) + 1, T{});
  host_detail::for_each_task(exec, chunks, [&](size_type c) {
    T acc{};
    const size_type end = std::min(n, (c + 1) * chunk);
    for (size_type i = c * chunk; i < end; ++i) acc += in[i];
    offset[static_cast<std::size_t>(c) + 1] = acc;
  });
  for (size_type c = 0; c < chunks; ++c) offset[c + 1] += offset[c];
  host_detail::for_each_task(exec, chunks, [&](size_type c) {
    T acc = offset[static_cast<std::size_t>(c)];
    const size_type end = std::min(n, (c + 1) * chunk);
    for (size_type i = c * chunk; i < end; ++i) {
      acc += in[i];
      out[i] = acc;
    }
  });
}

/// Stable sort of (keys, values) by key: chunks sorted in parallel, then
/// merged pairwise (std::merge keeps the first range's element first on ties).
/// `end_bit` is the device backend's radix hint (keys are zero from that bit
/// up); a comparison sort does not need it.
template <class K, class V>
void stable_sort_by_key(const HostExec& exec, K* keys, V* values, size_type n,
                        int end_bit = int(sizeof(K) * 8)) {
  (void)end_bit;
  if (n < 2) return;
  using Pair = std::pair<K, V>;
  std::vector<Pair> a(static_cast<std::size_t>(n)), b(static_cast<std::size_t>(n));
  parallel_for(exec, n, [&](size_type i) { a[i] = {keys[i], values[i]}; });
  const auto by_key = [](const Pair& x, const Pair& y) { return x.first < y.first; };
  const size_type pieces = std::max<size_type>(
      1, std::min<size_type>(host_detail::thread_count(exec) * 2, n / 2048 + 1));
  const size_type width0 = (n + pieces - 1) / pieces;
  host_detail::for_each_task(exec, pieces, [&](size_type p) {
    const size_type lo = std::min(n, p * width0), hi = std::min(n, (p + 1) * width0);
    std::stable_sort(a.begin() + lo, a.begin() + hi, by_key);
  });
  for (size_type width = width0; width < n; width *= 2) {
    const size_type pairs = (n + 2 * width - 1) / (2 * width);
    host_detail::for_each_task(exec, pairs, [&](size_type p) {
      const size_type lo = p * 2 * width, mid = std::min(n, lo + width),
                      hi = std::min(n, lo + 2 * width);
      std::merge(a.begin() + lo, a.begin() + mid, a.begin() + mid, a.begin() + hi,
                 b.begin() + lo, by_key);
    });
    a.swap(b);
  }
  parallel_for(exec, n, [&](size_type i) {
    keys[i] = a[i].first;
    values[i] = a[i].second;
  });
}

/// Sums of values over runs of equal consecutive keys; writes run keys and
/// sums (each at most n long) and returns the number of runs.
template <class K, class V>
size_type reduce_by_key(const HostExec& exec, const K* keys, const V* values, size_type n,
                        K* unique_keys, V* sums) {
  if (n == 0) return 0;
  std::vector<size_type> head(static_cast<std::size_t>(n));
  parallel_for(exec, n, [&](size_type i) {
    head[i] = (i == 0 || !(keys[i] == keys[i - 1])) ? 1 : 0;
  });
  const size_type runs = exclusive_scan(exec, head.data(), head.data(), n);
  std::vector<size_type> start(static_cast<std::size_t>(runs) + 1);
  start[runs] = n;
  parallel_for(exec, n, [&](size_type i) {
    if (i == 0 || !(keys[i] == keys[i - 1])) start[head[i]] = i;
  });
  parallel_for(exec, runs, [&](size_type r) {
    V acc = values[start[r]];
    for (size_type i = start[r] + 1; i < start[r + 1]; ++i) acc += values[i];
    unique_keys[r] = keys[start[r]];
    sums[r] = acc;
  });
  return runs;
}

}  // namespace strata
