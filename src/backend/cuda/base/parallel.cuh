#pragma once
// CUDA implementations of the parallel primitives, on CUB. Kernel bodies
// call these unqualified with a CudaExec (see backend/host/base/parallel.hpp
// for the host side of the same vocabulary).
//
// transform_reduce uses a fixed grid that depends on n only and CUB's block
// reduction (a fixed tree), so a run repeats bit for bit on a given device.

#include <cub/block/block_reduce.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>

#include "backend/cuda/base/context.cuh"
#include "backend/cuda/base/cuda_check.cuh"
#include "kernels/base/hd.hpp"
#include "strata/core/types.hpp"

namespace strata {

namespace cuda_detail {

inline constexpr int for_block = 256;
inline constexpr int reduce_block = 256;
// Grid of the first reduction pass: at most this many partial results.
inline constexpr size_type reduce_max_blocks = 1024;

template <class F>
__global__ void for_each_kernel(size_type n, F f) {
  const size_type stride = static_cast<size_type>(gridDim.x) * blockDim.x;
  for (size_type i = static_cast<size_type>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    f(i);
  }
}

/// One thread per cell of an n0 x n1 x n2 box: (i, j) from the 2D block,
/// k from blockIdx.z. No index division (parallel_for's flat index would
/// need two per cell, as much work as a small stencil's arithmetic).
template <class F>
__global__ void for_each_cell_kernel(int n0, int n1, F f) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int j = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (i < n0 && j < n1) f(size_type{i}, size_type{j}, size_type{blockIdx.z});
}

template <class T, class Map, class Op>
__global__ void __launch_bounds__(reduce_block)
    reduce_partials_kernel(size_type n, T identity, Map map, Op op, T* partial) {
  T acc = identity;
  const size_type stride = static_cast<size_type>(gridDim.x) * reduce_block;
  for (size_type i = static_cast<size_type>(blockIdx.x) * reduce_block + threadIdx.x; i < n;
       i += stride) {
    acc = op(acc, map(i));
  }
  using BlockReduce = cub::BlockReduce<T, reduce_block>;
  __shared__ typename BlockReduce::TempStorage storage;
  const T block_result = BlockReduce(storage).Reduce(acc, op);
  if (threadIdx.x == 0) partial[blockIdx.x] = block_result;
}

template <class T, class Op>
__global__ void __launch_bounds__(reduce_block)
    reduce_final_kernel(int count, T identity, Op op, const T* partial, T* result) {
  T acc = identity;
  for (int i = threadIdx.x; i < count; i += reduce_block) acc = op(acc, partial[i]);
  using BlockReduce = cub::BlockReduce<T, reduce_block>;
  __shared__ typename BlockReduce::TempStorage storage;
  const T block_result = BlockReduce(storage).Reduce(acc, op);
  if (threadIdx.x == 0) *result = op(identity, block_result);
}

/// Partial reductions of map(i, j, k) over a box, one per block of
/// reduce_block threads: 2^log2_bx consecutive i by reduce_block >> log2_bx
/// consecutive j, each thread taking k = blockIdx.z, + gridDim.z, ... (so
/// that the number of partial results stays small for any depth).
template <class T, class Map, class Op>
__global__ void __launch_bounds__(reduce_block)
    reduce_cells_kernel(int n0, int n1, int n2, int log2_bx, T identity, Map map, Op op,
                        T* partial) {
  const int t = static_cast<int>(threadIdx.x);
  const int i = (static_cast<int>(blockIdx.x) << log2_bx) + (t & ((1 << log2_bx) - 1));
  const int j = static_cast<int>(blockIdx.y) * (reduce_block >> log2_bx) + (t >> log2_bx);
  T acc = identity;
  if (i < n0 && j < n1) {
    for (int k = static_cast<int>(blockIdx.z); k < n2; k += static_cast<int>(gridDim.z)) {
      acc = op(acc, map(size_type{i}, size_type{j}, size_type{k}));
    }
  }
  using BlockReduce = cub::BlockReduce<T, reduce_block>;
  __shared__ typename BlockReduce::TempStorage storage;
  const T block_result = BlockReduce(storage).Reduce(acc, op);
  if (t == 0)
    partial[blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z)] = block_result;
}

/// A thread per entry k, which finds its row by binary search in ptr (the
/// last i with ptr[i] <= k, so empty rows are skipped): coalesced reads and
/// writes of the entries whatever the row lengths, where a thread per row
/// strides through memory row by row.
template <class F>
__global__ void for_each_row_entry_kernel(size_type rows, offset_type nnz, const offset_type* ptr,
                                          F f) {
  const size_type stride = static_cast<size_type>(gridDim.x) * blockDim.x;
  for (offset_type k = static_cast<offset_type>(blockIdx.x) * blockDim.x + threadIdx.x; k < nnz;
       k += stride) {
    size_type lo = 0, hi = rows;  // ptr[lo] <= k < ptr[hi]
    while (hi - lo > 1) {
      const size_type mid = lo + (hi - lo) / 2;
      if (ptr[mid] <= k) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    f(lo, k);
  }
}

inline unsigned grid_for(size_type n, int block) {
  const size_type blocks = (n + block - 1) / block;
  return static_cast<unsigned>(std::min<size_type>(blocks, size_type{1} << 20));
}

}  // namespace cuda_detail

/// f(i) for i in [0, n), a grid-stride loop.
template <class F>
void parallel_for(const CudaExec& exec, size_type n, F f) {
  if (n <= 0) return;
  cuda_detail::activate(exec);
  cuda_detail::for_each_kernel<<<cuda_detail::grid_for(n, cuda_detail::for_block),
                                 cuda_detail::for_block, 0, cuda_detail::stream_of(exec)>>>(n, f);
  STRATA_CUDA_CHECK(cudaGetLastError());
}

/// f(i, j, k) for every cell of an n0 x n1 x n2 box, consecutive threads on
/// consecutive i (coalesced). A block is 256 threads: as many i as the
/// box's first extent needs, rounded up to a power of two (at most 256),
/// times as many j as fill the rest, so that a box only a few cells wide in
/// i (a semicoarsened level) does not leave most threads idle. Returns
/// false, launching nothing, when the box exceeds the grid limits (more
/// than 65535 blocks in j or 65535 cells in k): the caller takes another
/// path.
template <class F>
bool parallel_for_box(const CudaExec& exec, size_type n0, size_type n1, size_type n2, F f) {
  if (n0 <= 0 || n1 <= 0 || n2 <= 0) return true;
  unsigned bx = 1;
  while (bx < 256 && static_cast<size_type>(bx) < n0) bx *= 2;
  const unsigned by = 256 / bx;
  const size_type gx = (n0 + bx - 1) / bx, gy = (n1 + by - 1) / by;
  if (n0 > 0x7fffffff || gy > 65535 || n2 > 65535 || gx * bx > 0x7fffffff) return false;
  cuda_detail::activate(exec);
  const dim3 grid(static_cast<unsigned>(gx), static_cast<unsigned>(gy), static_cast<unsigned>(n2));
  cuda_detail::for_each_cell_kernel<<<grid, dim3(bx, by), 0, cuda_detail::stream_of(exec)>>>(
      static_cast<int>(n0), static_cast<int>(n1), f);
  STRATA_CUDA_CHECK(cudaGetLastError());
  return true;
}

/// f(i, k) for every entry k in [ptr[i], ptr[i + 1]) of every row i < rows
/// of a CSR-like layout (ptr[0] = 0, ptr[rows] = nnz, given here so that
/// no copy to the host is needed): a thread per entry.
template <class F>
void for_each_row_entry(const CudaExec& exec, size_type rows, offset_type nnz,
                        const offset_type* ptr, F f) {
  if (rows <= 0 || nnz <= 0) return;
  cuda_detail::activate(exec);
  cuda_detail::for_each_row_entry_kernel<<<cuda_detail::grid_for(nnz, cuda_detail::for_block),
                                           cuda_detail::for_block, 0,
                                           cuda_detail::stream_of(exec)>>>(rows, nnz, ptr, f);
  STRATA_CUDA_CHECK(cudaGetLastError());
}

namespace cuda_detail {
/// A value of device memory on the host, after what the stream has queued.
template <class T>
T read_back(cudaStream_t stream, const T* value) {
  T result;
  STRATA_CUDA_CHECK(cudaMemcpyAsync(&result, value, sizeof(T), cudaMemcpyDeviceToHost, stream));
  STRATA_CUDA_CHECK(cudaStreamSynchronize(stream));
  return result;
}

/// Blocks of the first pass of a flat reduction of n values (at least one).
inline size_type reduce_blocks(size_type n) {
  return std::max<size_type>(
      1, std::min<size_type>((n + reduce_block - 1) / reduce_block, reduce_max_blocks));
}

/// The two passes of a flat reduction: `blocks` partial results into
/// partial[0, blocks), then their combination into *result.
template <class T, class Map, class Op>
void reduce_flat(cudaStream_t stream, size_type n, size_type blocks, T identity, Map map, Op op,
                 T* partial, T* result) {
  reduce_partials_kernel<<<static_cast<unsigned>(blocks), reduce_block, 0, stream>>>(
      n, identity, map, op, partial);
  STRATA_CUDA_CHECK(cudaGetLastError());
  reduce_final_kernel<<<1, reduce_block, 0, stream>>>(static_cast<int>(blocks), identity, op,
                                                      partial, result);
  STRATA_CUDA_CHECK(cudaGetLastError());
}
}  // namespace cuda_detail

/// op-reduction of map(i) over [0, n) from `identity`; blocks until done.
template <class T, class Map, class Op>
T transform_reduce(const CudaExec& exec, size_type n, T identity, Map map, Op op) {
  using namespace cuda_detail;
  if (n <= 0) return identity;
  activate(exec);
  const size_type blocks = reduce_blocks(n);
  ScratchBuffer scratch(exec, sizeof(T) * static_cast<std::size_t>(blocks + 1));
  T* partial = scratch.as<T>();
  reduce_flat(stream_of(exec), n, blocks, identity, map, op, partial, partial + blocks);
  return read_back(stream_of(exec), partial + blocks);
}

/// The same reduction, left on the device: *result (device memory) is
/// written in stream order and nothing waits. A setup that checks many
/// arrays (one per level) gathers the results and waits once.
template <class T, class Map, class Op>
void transform_reduce_to(const CudaExec& exec, size_type n, T identity, Map map, Op op, T* result) {
  using namespace cuda_detail;
  activate(exec);
  const size_type blocks = reduce_blocks(n);
  // Freed in stream order (cudaFreeAsync): safe with the kernels in flight.
  ScratchBuffer scratch(exec, sizeof(T) * static_cast<std::size_t>(blocks));
  reduce_flat(stream_of(exec), n, blocks, identity, map, op, scratch.as<T>(), result);
}

/// op-reduction of map(i, j, k) over an n0 x n1 x n2 box; blocks until
/// done. The cells come from the block and thread indices (no division per
/// cell, as in parallel_for_box); the grid depends on the extents only, so a
/// run repeats bit for bit. A box beyond the grid limits takes the flat
/// reduction with the index divided per cell.
template <class T, class Map, class Op>
T transform_reduce_box(const CudaExec& exec, size_type n0, size_type n1, size_type n2, T identity,
                       Map map, Op op) {
  using namespace cuda_detail;
  if (n0 <= 0 || n1 <= 0 || n2 <= 0) return identity;
  int log2_bx = 0;
  while (log2_bx < 8 && (size_type{1} << log2_bx) < n0) ++log2_bx;
  const size_type bx = size_type{1} << log2_bx, by = reduce_block / bx;
  const size_type gx = (n0 + bx - 1) / bx, gy = (n1 + by - 1) / by;
  // (A depth within one grid step of 2^31 would overflow the kernel's int
  // k as it strides by gridDim.z.)
  if (n0 > 0x7fffffff || n1 > 0x7fffffff || n2 > 0x7fffffff - 65535 || gx > 0x7fffffff ||
      gy > 65535) {
    const size_type n01 = n0 * n1;
    return transform_reduce(
        exec, n01 * n2, identity,
        [=] STRATA_HD(size_type t) {
          const size_type i2 = t / n01, rest = t - i2 * n01, i1 = rest / n0;
          return map(rest - i1 * n0, i1, i2);
        },
        op);
  }
  // About two blocks per partial slot of the flat reduction: enough blocks
  // to fill the device, few partial results for the final block.
  const size_type gz =
      std::clamp<size_type>(2 * reduce_max_blocks / (gx * gy), 1, std::min<size_type>(n2, 65535));
  const size_type blocks = gx * gy * gz;
  activate(exec);
  ScratchBuffer scratch(exec, sizeof(T) * static_cast<std::size_t>(blocks + 1));
  T* partial = scratch.as<T>();
  cudaStream_t stream = stream_of(exec);
  reduce_cells_kernel<<<dim3(static_cast<unsigned>(gx), static_cast<unsigned>(gy),
                             static_cast<unsigned>(gz)),
                        reduce_block, 0, stream>>>(static_cast<int>(n0), static_cast<int>(n1),
                                                   static_cast<int>(n2), log2_bx, identity, map, op,
                                                   partial);
  STRATA_CUDA_CHECK(cudaGetLastError());
  reduce_final_kernel<<<1, reduce_block, 0, stream>>>(static_cast<int>(blocks), identity, op,
                                                      partial, partial + blocks);
  STRATA_CUDA_CHECK(cudaGetLastError());
  return read_back(stream, partial + blocks);
}

/// out[i] = in[0] + ... + in[i-1]; returns the total. `out` may equal `in`.
template <class T>
T exclusive_scan(const CudaExec& exec, const T* in, T* out, size_type n) {
  if (n <= 0) return T{};
  cuda_detail::activate(exec);
  cudaStream_t stream = cuda_detail::stream_of(exec);
  T last_in{}, last_out{};
  STRATA_CUDA_CHECK(
      cudaMemcpyAsync(&last_in, in + n - 1, sizeof(T), cudaMemcpyDeviceToHost, stream));
  std::size_t bytes = 0;
  STRATA_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, in, out, n, stream));
  cuda_detail::ScratchBuffer scratch(exec, bytes);
  STRATA_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scratch.data(), bytes, in, out, n, stream));
  STRATA_CUDA_CHECK(
      cudaMemcpyAsync(&last_out, out + n - 1, sizeof(T), cudaMemcpyDeviceToHost, stream));
  STRATA_CUDA_CHECK(cudaStreamSynchronize(stream));
  return last_out + last_in;
}

/// out[i] = in[0] + ... + in[i]. `out` may equal `in`.
template <class T>
void inclusive_scan(const CudaExec& exec, const T* in, T* out, size_type n) {
  if (n <= 0) return;
  cuda_detail::activate(exec);
  cudaStream_t stream = cuda_detail::stream_of(exec);
  std::size_t bytes = 0;
  STRATA_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, bytes, in, out, n, stream));
  cuda_detail::ScratchBuffer scratch(exec, bytes);
  STRATA_CUDA_CHECK(cub::DeviceScan::InclusiveSum(scratch.data(), bytes, in, out, n, stream));
}

/// Stable radix sort of (keys, values) by integer key. Keys that are zero
/// from bit `end_bit` up (row-column keys, aggregate pairs: about 2 log2(n)
/// significant bits) sort in fewer radix passes: 48 bits instead of 64 at
/// 10^7 unknowns saves two of CUB's eight 8-bit passes.
template <class K, class V>
void stable_sort_by_key(const CudaExec& exec, K* keys, V* values, size_type n,
                        int end_bit = int(sizeof(K) * 8)) {
  if (n < 2) return;
  end_bit = end_bit < 1 ? 1 : (end_bit > int(sizeof(K) * 8) ? int(sizeof(K) * 8) : end_bit);
  cuda_detail::activate(exec);
  cudaStream_t stream = cuda_detail::stream_of(exec);
  cuda_detail::ScratchBuffer alt_keys(exec, sizeof(K) * static_cast<std::size_t>(n));
  cuda_detail::ScratchBuffer alt_values(exec, sizeof(V) * static_cast<std::size_t>(n));
  cub::DoubleBuffer<K> k(keys, alt_keys.as<K>());
  cub::DoubleBuffer<V> v(values, alt_values.as<V>());
  std::size_t bytes = 0;
  STRATA_CUDA_CHECK(
      cub::DeviceRadixSort::SortPairs(nullptr, bytes, k, v, n, 0, end_bit, stream));
  cuda_detail::ScratchBuffer scratch(exec, bytes);
  STRATA_CUDA_CHECK(
      cub::DeviceRadixSort::SortPairs(scratch.data(), bytes, k, v, n, 0, end_bit, stream));
  if (k.Current() != keys) {
    STRATA_CUDA_CHECK(cudaMemcpyAsync(keys, k.Current(), sizeof(K) * n,
                                      cudaMemcpyDeviceToDevice, stream));
  }
  if (v.Current() != values) {
    STRATA_CUDA_CHECK(cudaMemcpyAsync(values, v.Current(), sizeof(V) * n,
                                      cudaMemcpyDeviceToDevice, stream));
  }
  // The scratch buffers are released stream-ordered, after the copies.
}

/// Sums of values over runs of equal consecutive keys; returns the run count.
template <class K, class V>
size_type reduce_by_key(const CudaExec& exec, const K* keys, const V* values, size_type n,
                        K* unique_keys, V* sums) {
  if (n <= 0) return 0;
  cuda_detail::activate(exec);
  cudaStream_t stream = cuda_detail::stream_of(exec);
  cuda_detail::ScratchBuffer runs_buffer(exec, sizeof(size_type));
  std::size_t bytes = 0;
  STRATA_CUDA_CHECK(cub::DeviceReduce::ReduceByKey(nullptr, bytes, keys, unique_keys, values,
                                                   sums, runs_buffer.as<size_type>(),
                                                   ops::Plus{}, n, stream));
  cuda_detail::ScratchBuffer scratch(exec, bytes);
  STRATA_CUDA_CHECK(cub::DeviceReduce::ReduceByKey(scratch.data(), bytes, keys, unique_keys,
                                                   values, sums, runs_buffer.as<size_type>(),
                                                   ops::Plus{}, n, stream));
  size_type runs = 0;
  STRATA_CUDA_CHECK(cudaMemcpyAsync(&runs, runs_buffer.data(), sizeof(size_type),
                                    cudaMemcpyDeviceToHost, stream));
  STRATA_CUDA_CHECK(cudaStreamSynchronize(stream));
  return runs;
}

}  // namespace strata
