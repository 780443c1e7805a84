// CUDA blocked SpGEMM, numeric phase: C_IJ = sum over A's block row I in
// stored order of a_IK b_KJ, each entry summed over k in order (the
// contract in kernels/matrix/bsr_spgemm_kernels.hpp).
//
// A group of G lanes takes a block row of C (G = 32, or 8 for 1x1 blocks)
// and keeps its sums in C's values in global memory (the rows of a block
// product are long: 27 to 125 blocks of up to 36 entries, more than shared
// memory holds for a block of groups; the group's stores and loads of them
// stay in L1/L2). For each a_IK in A's order:
//   1. the lanes take B's row K in chunks of G blocks; lane l finds the
//      block of C of the chunk's block l (bisection in the row's sorted
//      block columns), once per block of B rather than once per entry;
//   2. the chunk's entries of C, one per lane (block qq = t / rc, entry
//      o = t mod rc, so consecutive lanes write consecutive entries of one
//      block and read consecutive columns of b_KJ), each adding
//      a_IK(i, :) b_KJ(:, j) with fused multiply-adds, k ascending; the
//      lane gets its block's place from lane qq by a shuffle;
//   3. a group barrier before the next a_IK, which may add into the same
//      entries. Within one a_IK the blocks b_KJ have distinct J, so no two
//      lanes ever add into one entry at a time: no atomics, and every entry
//      is summed in the contract's order, run after run.
// Block sizes with a fast path (kernels::bsr_spgemm::with_block_shape) are
// template arguments, so the divisions by rc and c are by constants and the
// k loop unrolls; other sizes run the same kernel with run-time sizes.

#include <cooperative_groups.h>

#include <algorithm>

#include "backend/cuda/base/parallel.cuh"
#include "kernels/matrix/bsr_spgemm_kernels.hpp"

namespace strata::kernels::bsr_spgemm {

namespace {

namespace cg = cooperative_groups;

constexpr int block_size = 256;

/// Lanes per block row: a warp, whose chunks of up to 32 blocks of B give
/// each lane several entries to sum; 8 for 1x1 blocks, whose B rows (of a
/// scalar matrix) are a few entries long.
template <int R, int C>
constexpr int lanes_per_row() {
  return R * C == 1 ? 8 : 32;
}

inline unsigned grid_for(size_type items, int per_block) {
  const size_type blocks = (items + per_block - 1) / per_block;
  return static_cast<unsigned>(std::min<size_type>(std::max<size_type>(blocks, 1), 1 << 20));
}

template <int R, int M, int C, int G, class T>
__global__ void __launch_bounds__(block_size)
    numeric_kernel(BlockShape s, Pattern A, const T* __restrict__ a_val, Pattern B,
                   const T* __restrict__ b_val, Pattern Cp, T* c_val) {
  constexpr int groups = block_size / G;
  const int r = R > 0 ? R : s.r, m = M > 0 ? M : s.m, c = C > 0 ? C : s.c;
  const int rc = r * c;
  const size_type rm = static_cast<size_type>(r) * m, mc = static_cast<size_type>(m) * c;
  const auto tile = cg::tiled_partition<G>(cg::this_thread_block());
  const int lane = static_cast<int>(tile.thread_rank());
  const int group = threadIdx.x / G;
  for (size_type I = static_cast<size_type>(blockIdx.x) * groups + group; I < Cp.rows;
       I += static_cast<size_type>(gridDim.x) * groups) {
    const offset_type c0 = Cp.row_ptr[I];
    const offset_type n = Cp.row_ptr[I + 1] - c0;
    const index_type* cols = Cp.col_idx + c0;
    T* row = c_val + c0 * rc;
    for (offset_type t = lane; t < n * rc; t += G) row[t] = T{0};
    tile.sync();
    const offset_type a1 = A.row_ptr[I + 1];
    for (offset_type e = A.row_ptr[I]; e < a1; ++e) {
      const T* a = a_val + e * rm;
      const index_type K = A.col_idx[e];
      const offset_type q0 = B.row_ptr[K];
      const offset_type len = B.row_ptr[K + 1] - q0;
      for (offset_type base = 0; base < len; base += G) {
        const int chunk = static_cast<int>(len - base < G ? len - base : G);
        offset_type place = 0;
        if (lane < chunk) place = spgemm::find_column(cols, n, B.col_idx[q0 + base + lane]);
        const int items = chunk * rc;
        // The trip count is the group's, so every lane takes part in the shuffle.
        for (int t0 = 0; t0 < items; t0 += G) {
          const int t = t0 + lane;
          const int qq = t < items ? t / rc : 0;
          const offset_type p = tile.shfl(place, qq);
          if (t < items) {
            const int o = t - qq * rc;
            const int i = o / c, j = o - i * c;
            const T* ai = a + i * m;
            const T* bj = b_val + (q0 + base + qq) * mc + j;
            T* out = row + p * rc + o;
            T acc = *out;
            if constexpr (M > 0) {
#pragma unroll
              for (int k = 0; k < M; ++k) acc = fma(ai[k], bj[k * C], acc);
            } else {
              for (int k = 0; k < m; ++k) acc = fma(ai[k], bj[k * c], acc);
            }
            *out = acc;
          }
        }
      }
      tile.sync();  // the next a_IK may add into the same entries
    }
  }
}

}  // namespace

template <class Exec, class T>
void numeric(const Exec& exec, BlockShape shape, const Pattern& A, const T* a_values,
             const Pattern& B, const T* b_values, const Pattern& C, T* c_values) {
  if (C.rows == 0 || C.nnz == 0) return;
  cuda_detail::activate(exec);
  cudaStream_t stream = cuda_detail::stream_of(exec);
  with_block_shape(shape, [&](auto r, auto m, auto c) {
    constexpr int R = decltype(r)::value, M = decltype(m)::value, Cc = decltype(c)::value;
    constexpr int G = lanes_per_row<R, Cc>();
    numeric_kernel<R, M, Cc, G, T><<<grid_for(C.rows, block_size / G), block_size, 0, stream>>>(
        shape, A, a_values, B, b_values, C, c_values);
    STRATA_CUDA_CHECK(cudaGetLastError());
  });
}

}  // namespace strata::kernels::bsr_spgemm

#define STRATA_EXEC CudaExec
#include "kernels/matrix/bsr_spgemm_instantiate.inc"
#undef STRATA_EXEC
