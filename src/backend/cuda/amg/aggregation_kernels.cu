// CUDA instantiation of the aggregation kernels (aggregation_kernels.ipp),
// and the strength graph's three passes with a group of G lanes per row (G
// from the mean row length, 4 to 32), as classical_kernels.cu does for the
// classical strength. Each computes what the single-source body computes,
// bit for bit: per-row maxima, minima and counts do not depend on the order
// in which the lanes meet the entries, and each weight is the same
// expression of the same values.

#include <cstdint>

#include "backend/cuda/base/lane_groups.cuh"
#include "backend/cuda/base/parallel.cuh"
#include "kernels/amg/aggregation_kernels.ipp"

namespace strata::kernels::aggregation {

namespace {

constexpr int kBlock = 256;

/// Calls launch.template operator()<G>() with G lanes per row for rows of
/// `mean` entries on average (a templated lambda: [&]<int G>() { ... }).
template <class Launch>
void with_group_for(double mean, const Launch& launch) {
  if (mean <= 4) {
    launch.template operator()<4>();
  } else if (mean <= 8) {
    launch.template operator()<8>();
  } else if (mean <= 16) {
    launch.template operator()<16>();
  } else {
    launch.template operator()<32>();
  }
}

template <int G>
unsigned blocks_for_rows(size_type rows) {
  return static_cast<unsigned>((rows * G + kBlock - 1) / kBlock);
}

/// The sum over the group (integers: exact in any order).
template <int G, class I>
__device__ __forceinline__ I group_sum(unsigned mask, I v) {
#pragma unroll
  for (int offset = G / 2; offset > 0; offset /= 2) v += __shfl_xor_sync(mask, v, offset, G);
  return v;
}

template <int G, class T>
__global__ void __launch_bounds__(kBlock)
    row_strength_kernel(size_type n, const offset_type* __restrict__ row_ptr,
                        const index_type* __restrict__ col_idx, const T* __restrict__ values,
                        T* __restrict__ sign, T* __restrict__ strongest,
                        unsigned long long* __restrict__ unordered_rows) {
  const size_type row = (static_cast<size_type>(blockIdx.x) * blockDim.x + threadIdx.x) / G;
  const int lane = static_cast<int>(threadIdx.x % G);
  if (row >= n) return;  // groups are aligned in a warp: a whole group leaves
  const unsigned mask = cuda_detail::group_mask<G>();
  const offset_type begin = row_ptr[row], end = row_ptr[row + 1];
  // The body keeps the last diagonal entry in stored order: the largest k.
  offset_type diag_at = -1;
  T diag{0}, low{0}, high{0};
  int unordered = 0;
  for (offset_type k = begin + lane; k < end; k += G) {
    const index_type j = col_idx[k];
    const T v = values[k];
    if (k > begin && !(col_idx[k - 1] < j)) unordered = 1;
    if (j == static_cast<index_type>(row)) {
      diag_at = k;
      diag = v;
    } else {
      low = v < low ? v : low;
      high = v > high ? v : high;
    }
  }
#pragma unroll
  for (int offset = G / 2; offset > 0; offset /= 2) {
    const offset_type other_at = __shfl_xor_sync(mask, diag_at, offset, G);
    const T other = __shfl_xor_sync(mask, diag, offset, G);
    if (other_at > diag_at) {
      diag_at = other_at;
      diag = other;
    }
    const T l = __shfl_xor_sync(mask, low, offset, G);
    const T h = __shfl_xor_sync(mask, high, offset, G);
    low = l < low ? l : low;
    high = h > high ? h : high;
    unordered |= __shfl_xor_sync(mask, unordered, offset, G);
  }
  if (lane == 0) {
    const bool negative = diag < T{0};
    sign[row] = negative ? T{-1} : T{1};
    strongest[row] = negative ? high : -low;
    if (unordered) atomicAdd(unordered_rows, 1ull);
  }
}

template <int G, class T>
__global__ void __launch_bounds__(kBlock)
    mark_strong_kernel(size_type n, const offset_type* __restrict__ row_ptr,
                       const index_type* __restrict__ col_idx, const T* __restrict__ values,
                       bool sorted, T alpha, const T* __restrict__ sign,
                       const T* __restrict__ strongest, std::uint8_t* __restrict__ strong,
                       offset_type* __restrict__ count, index_type* __restrict__ influence,
                       unsigned long long* __restrict__ missing_entries) {
  const size_type row = (static_cast<size_type>(blockIdx.x) * blockDim.x + threadIdx.x) / G;
  const int lane = static_cast<int>(threadIdx.x % G);
  if (row >= n) return;
  const unsigned mask = cuda_detail::group_mask<G>();
  const index_type i = static_cast<index_type>(row);
  const T s_i = sign[row];
  const T threshold_i = detail::mul(alpha, strongest[row]);
  unsigned missing = 0, edges = 0, influenced = 0;
  for (offset_type k = row_ptr[row] + lane; k < row_ptr[row + 1]; k += G) {
    const index_type j = col_idx[k];
    if (j == i) {
      strong[k] = 0;
      continue;
    }
    const bool c_ij = detail::strong_coupling(s_i, values[k], threshold_i);
    const offset_type t = detail::find_transposed(row_ptr, col_idx, sorted, i, k);
    bool c_ji = false;
    if (t < 0) {
      ++missing;
    } else {
      c_ji = detail::strong_coupling(sign[j], values[t], detail::mul(alpha, strongest[j]));
    }
    strong[k] = (c_ij || c_ji) ? 1 : 0;
    edges += (c_ij || c_ji) ? 1 : 0;
    influenced += c_ji ? 1 : 0;
  }
  edges = group_sum<G>(mask, edges);
  influenced = group_sum<G>(mask, influenced);
  missing = group_sum<G>(mask, missing);
  if (lane == 0) {
    count[row] = static_cast<offset_type>(edges);
    influence[row] = static_cast<index_type>(influenced);
    if (missing > 0) atomicAdd(missing_entries, static_cast<unsigned long long>(missing));
  }
}

template <int G, class T>
__global__ void __launch_bounds__(kBlock)
    fill_strength_graph_kernel(size_type n, const offset_type* __restrict__ row_ptr,
                               const index_type* __restrict__ col_idx, const T* __restrict__ values,
                               const T* __restrict__ sign, const T* __restrict__ strongest,
                               const std::uint8_t* __restrict__ strong,
                               const offset_type* __restrict__ g_row_ptr,
                               index_type* __restrict__ g_col_idx, T* __restrict__ g_weight) {
  const size_type row = (static_cast<size_type>(blockIdx.x) * blockDim.x + threadIdx.x) / G;
  const int lane = static_cast<int>(threadIdx.x % G);
  if (row >= n) return;
  const unsigned mask = cuda_detail::group_mask<G>();
  // This group's bits of a warp-wide ballot.
  const unsigned shift = G == 32 ? 0u : (threadIdx.x % 32) / G * G;
  const unsigned below = (1u << lane) - 1u;
  const T s_i = sign[row], m_i = strongest[row];
  offset_type out = g_row_ptr[row];
  const offset_type begin = row_ptr[row], end = row_ptr[row + 1];
  // The same trip count for every lane of the group: the ballot needs them all.
  for (offset_type base = begin; base < end; base += G) {
    const offset_type k = base + lane;
    const bool keep = k < end && strong[k] != 0;
    const unsigned kept = (__ballot_sync(mask, keep) >> shift) & (G == 32 ? ~0u : (1u << G) - 1u);
    if (keep) {
      const offset_type at = out + __popc(kept & below);
      g_col_idx[at] = col_idx[k];
      g_weight[at] = m_i > T{0} ? (-s_i * values[k]) / m_i : T{0};
    }
    out += __popc(kept);
  }
}

/// A counter on the device for the passes' rare events (unsorted rows,
/// missing transposes), read back once.
class DeviceCounter {
 public:
  explicit DeviceCounter(const CudaExec& exec) : value_(Executor(exec), 1, std::uint64_t{0}) {}
  /// As atomicAdd takes it (std::uint64_t is unsigned long here, the same
  /// 64 bits).
  unsigned long long* data() {
    static_assert(sizeof(unsigned long long) == sizeof(std::uint64_t));
    return reinterpret_cast<unsigned long long*>(value_.data());
  }
  size_type read() const { return static_cast<size_type>(value_.to_vector()[0]); }

 private:
  Array<std::uint64_t> value_;
};

double mean_row_length(size_type rows, size_type nnz) { return double(nnz) / double(rows); }

}  // namespace

template <class T>
bool row_strength(const CudaExec& exec, size_type rows, size_type nnz, const offset_type* row_ptr,
                  const index_type* col_idx, const T* values, T* sign, T* strongest) {
  if (rows <= 0) return true;
  cuda_detail::activate(exec);
  DeviceCounter unordered(exec);
  with_group_for(mean_row_length(rows, nnz), [&]<int G>() {
    row_strength_kernel<G, T>
        <<<blocks_for_rows<G>(rows), kBlock, 0, cuda_detail::stream_of(exec)>>>(
            rows, row_ptr, col_idx, values, sign, strongest, unordered.data());
    STRATA_CUDA_CHECK(cudaGetLastError());
  });
  return unordered.read() == 0;
}

template <class T>
size_type mark_strong(const CudaExec& exec, size_type rows, size_type nnz,
                      const offset_type* row_ptr, const index_type* col_idx, const T* values,
                      bool sorted, T alpha, const T* sign, const T* strongest, std::uint8_t* strong,
                      offset_type* count, index_type* influence) {
  if (rows <= 0) return 0;
  cuda_detail::activate(exec);
  DeviceCounter missing(exec);
  with_group_for(mean_row_length(rows, nnz), [&]<int G>() {
    mark_strong_kernel<G, T><<<blocks_for_rows<G>(rows), kBlock, 0, cuda_detail::stream_of(exec)>>>(
        rows, row_ptr, col_idx, values, sorted, alpha, sign, strongest, strong, count, influence,
        missing.data());
    STRATA_CUDA_CHECK(cudaGetLastError());
  });
  return missing.read();
}

template <class T>
void fill_strength_graph(const CudaExec& exec, size_type rows, size_type nnz,
                         const offset_type* row_ptr, const index_type* col_idx, const T* values,
                         const T* sign, const T* strongest, const std::uint8_t* strong,
                         const offset_type* g_row_ptr, index_type* g_col_idx, T* g_weight) {
  if (rows <= 0) return;
  cuda_detail::activate(exec);
  with_group_for(mean_row_length(rows, nnz), [&]<int G>() {
    fill_strength_graph_kernel<G, T>
        <<<blocks_for_rows<G>(rows), kBlock, 0, cuda_detail::stream_of(exec)>>>(
            rows, row_ptr, col_idx, values, sign, strongest, strong, g_row_ptr, g_col_idx,
            g_weight);
    STRATA_CUDA_CHECK(cudaGetLastError());
  });
}

template bool row_strength<double>(const CudaExec&, size_type, size_type, const offset_type*,
                                   const index_type*, const double*, double*, double*);
template size_type mark_strong<double>(const CudaExec&, size_type, size_type, const offset_type*,
                                       const index_type*, const double*, bool, double,
                                       const double*, const double*, std::uint8_t*, offset_type*,
                                       index_type*);
template void fill_strength_graph<double>(const CudaExec&, size_type, size_type, const offset_type*,
                                          const index_type*, const double*, const double*,
                                          const double*, const std::uint8_t*, const offset_type*,
                                          index_type*, double*);

}  // namespace strata::kernels::aggregation

#define STRATA_EXEC CudaExec
#include "kernels/amg/aggregation_instantiate.inc"
#undef STRATA_EXEC
