// CUDA instantiation of the shared ILU kernels (ilu_kernels.ipp), and the
// device's level-scheduled numeric factorization with a group of lanes per
// row (factor_levels).
#include <type_traits>
#include <vector>

#include "backend/cuda/base/lane_groups.cuh"
#include "backend/cuda/base/parallel.cuh"
#include "kernels/matrix/ilu_kernels.ipp"

namespace strata::kernels::ilu {

namespace {

constexpr int factor_block = 256;
/// Entries of a row each lane holds: a group of G lanes holds rows of up to
/// 4 G entries in registers.
constexpr int held = 4;

/// Row order[q] for q in [begin, end), by groups of G lanes. Lane t holds
/// the row's entries t, t + G, t + 2 G, t + 3 G (coalesced across the
/// group): their columns and values, and for those left of the diagonal
/// the pivot u_kk, diag[k] and the end of row k, all loaded before the
/// first step (the rows k are final: earlier levels). Step p (the row's
/// entries left of the diagonal, ascending) takes l_ik from the lane
/// holding entry p, which divides it by its pivot first; then the group
/// reads row k right of its diagonal, G entries at a time, and each lane
/// subtracts l_ik u_kj from the entry of column j it holds, if any. Each
/// entry sees the same subtractions in the same order as factor_row's.
template <int G, class T>
__global__ void __launch_bounds__(factor_block)
    factor_level_kernel(size_type begin, size_type end, const index_type* order,
                        const offset_type* row_ptr, const index_type* col_idx,
                        const offset_type* diag, T* values) {
  const size_type thread = static_cast<size_type>(blockIdx.x) * factor_block + threadIdx.x;
  const size_type q = begin + thread / G;
  if (q >= end) return;  // the whole group
  const int lane = static_cast<int>(threadIdx.x % G);
  const unsigned mask = cuda_detail::group_mask<G>();
  const index_type i = order[q];
  const offset_type first = row_ptr[i], last = row_ptr[i + 1], pivot_at = diag[i];
  if (last - first > static_cast<offset_type>(held) * G) {
    if (lane == 0) factor_row(i, row_ptr, col_idx, diag, values);
    return;
  }
  T v[held], pivot[held];
  index_type c[held];
  offset_type k_first[held], k_last[held];
#pragma unroll
  for (int s = 0; s < held; ++s) {
    const offset_type e = first + lane + static_cast<offset_type>(s) * G;
    c[s] = -1;  // matches no column
    v[s] = T{0};
    pivot[s] = T{1};
    k_first[s] = k_last[s] = 0;
    if (e < last) {
      c[s] = col_idx[e];
      v[s] = values[e];
      if (e < pivot_at) {
        const offset_type dk = diag[c[s]];
        pivot[s] = values[dk];
        k_first[s] = dk + 1;
        k_last[s] = row_ptr[c[s] + 1];
      }
    }
  }
  for (offset_type p = first; p < pivot_at; ++p) {
    const int owner = static_cast<int>((p - first) % G);
    const int slot = static_cast<int>((p - first) / G);
    T l{0};
    offset_type from = 0, to = 0;
#pragma unroll
    for (int s = 0; s < held; ++s) {
      if (s == slot && lane == owner) {
        v[s] = v[s] / pivot[s];
        l = v[s];
        from = k_first[s];
        to = k_last[s];
      }
    }
    l = __shfl_sync(mask, l, owner, G);
    from = __shfl_sync(mask, from, owner, G);
    to = __shfl_sync(mask, to, owner, G);
    for (offset_type base = from; base < to; base += G) {
      const offset_type e = base + lane;
      const index_type j = e < to ? col_idx[e] : -1;
      const T u = e < to ? values[e] : T{0};
      const int count = static_cast<int>(to - base < G ? to - base : G);
      for (int t = 0; t < count; ++t) {
        const index_type jt = __shfl_sync(mask, j, t, G);
        const T ut = __shfl_sync(mask, u, t, G);
#pragma unroll
        for (int s = 0; s < held; ++s) {
          if (c[s] == jt) v[s] -= l * ut;
        }
      }
    }
  }
#pragma unroll
  for (int s = 0; s < held; ++s) {
    const offset_type e = first + lane + static_cast<offset_type>(s) * G;
    if (e < last) values[e] = v[s];
  }
}

template <int G, class T>
void launch_levels(cudaStream_t stream, const std::vector<offset_type>& level_ptr,
                   const index_type* order, const offset_type* row_ptr, const index_type* col_idx,
                   const offset_type* diag, T* values) {
  for (std::size_t l = 0; l + 1 < level_ptr.size(); ++l) {
    const size_type threads = (level_ptr[l + 1] - level_ptr[l]) * G;
    const auto blocks = static_cast<unsigned>((threads + factor_block - 1) / factor_block);
    factor_level_kernel<G, T><<<blocks, factor_block, 0, stream>>>(
        level_ptr[l], level_ptr[l + 1], order, row_ptr, col_idx, diag, values);
    STRATA_CUDA_CHECK(cudaGetLastError());
  }
}

}  // namespace

template <class T>
void factor_levels(const CudaExec& exec, const std::vector<offset_type>& level_ptr, size_type nnz,
                   const index_type* order, const offset_type* row_ptr, const index_type* col_idx,
                   const offset_type* diag, T* values) {
  if (level_ptr.size() < 2 || level_ptr.back() == 0) return;
  cuda_detail::activate(exec);
  cudaStream_t stream = cuda_detail::stream_of(exec);
  // Lanes per row: half the average row length rounded up to a power of
  // two (a group then holds rows up to twice the average; 16 lanes for a
  // 27-point row, 4 for a 7-point one).
  const size_type rows = level_ptr.back();
  int lanes = 1;
  while (lanes < 32 && 2 * static_cast<size_type>(lanes) * rows < nnz) lanes *= 2;
  const auto run = [&](auto group) {
    launch_levels<decltype(group)::value>(stream, level_ptr, order, row_ptr, col_idx, diag, values);
  };
  switch (lanes) {
    case 1:
      run(std::integral_constant<int, 1>{});
      break;
    case 2:
      run(std::integral_constant<int, 2>{});
      break;
    case 4:
      run(std::integral_constant<int, 4>{});
      break;
    case 8:
      run(std::integral_constant<int, 8>{});
      break;
    case 16:
      run(std::integral_constant<int, 16>{});
      break;
    default:
      run(std::integral_constant<int, 32>{});
      break;
  }
}

template void factor_levels<double>(const CudaExec&, const std::vector<offset_type>&, size_type,
                                    const index_type*, const offset_type*, const index_type*,
                                    const offset_type*, double*);

}  // namespace strata::kernels::ilu

#define STRATA_EXEC CudaExec
#include "kernels/matrix/ilu_instantiate.inc"
#undef STRATA_EXEC
