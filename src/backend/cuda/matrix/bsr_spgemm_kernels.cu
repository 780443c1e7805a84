// CUDA blocked SpGEMM, numeric phase: C_IJ = sum over A's block row I in
// stored order of a_IK b_KJ, each entry summed over k in order (the
// contract in kernels/matrix/bsr_spgemm_kernels.hpp).
//
// A group of G threads takes a block row of C and sums it in shared memory
// when the row fits the group's share (C's values in global memory
// otherwise: the same steps on another pointer). A step is a_IK (in A's
// order) times a chunk of up to G blocks of B's row K:
//   1. staging: the block a_IK goes to shared memory, and thread l finds the
//      block of C of the chunk's block l (bisection in the row's sorted
//      block columns, held in shared memory beside the sums), once per
//      block of B rather than per entry;
//   2. the chunk's entries of C, one per thread (block qq = t / rc, entry
//      o = t mod rc, so consecutive threads add into consecutive entries of
//      one block and read consecutive columns of b_KJ), each adding
//      a_IK(i, :) b_KJ(:, j) with fused multiply-adds, k ascending;
//   3. a group barrier before the next step, which may add into the same
//      entries. Within one step the blocks b_KJ have distinct J, so no two
//      threads ever add into one entry at a time: no atomics, and every entry
//      is summed in the contract's order, run after run, whatever G is.
// Steps are pipelined: step s + 1 is staged into a second buffer while step
// s adds, so its chain of dependent index loads (A's column, B's row, B's
// columns, the bisection) overlaps step s's loads of B's values.
// G is chosen per product from the entries one a_IK adds: a whole CUDA block
// (256 threads) where B's rows give hundreds (the coarse products of smoothed
// aggregation: few block rows of C, each long, where one warp per row left
// most of the GPU idle: 14 ms for a 376-row 6x6 product on an H200 with C's
// sums in global memory), a warp or 8 threads where they give fewer, so a
// CUDA block takes several rows.
// Block sizes with a fast path (kernels::bsr_spgemm::with_block_shape) are
// template arguments, so the divisions by rc and c are by constants and the
// k loop unrolls; other sizes run the same kernel with run-time sizes.

#include <cooperative_groups.h>

#include <algorithm>
#include <cstddef>
#include <cub/block/block_scan.cuh>
#include <limits>
#include <string>
#include <type_traits>

#include "backend/cuda/base/parallel.cuh"
#include "kernels/matrix/bsr_spgemm_kernels.hpp"
#include "strata/core/array.hpp"
#include "strata/core/error.hpp"

namespace strata::kernels::bsr_spgemm {

namespace {

namespace cg = cooperative_groups;

constexpr int block_size = 256;
/// CUDA blocks per SM the register use must allow (at most 80 registers a
/// thread): the steps wait on loads, and only other warps hide that.
constexpr int min_blocks = 3;

/// Shared memory one CUDA block may take for its groups' sums: two such
/// blocks fit on an SM (228 KB), and rows of up to 340 6x6 blocks fit a
/// whole-block group.
constexpr std::size_t smem_budget = 96 * 1024;

/// Places (positions in C's row) a group finds per batch: a whole-block
/// group's batch holds about 24 steps of 170 blocks of B, a warp's a row of
/// a 27-point A times B rows of about 19 blocks.
template <int G>
constexpr int places_per_batch() {
  return G == block_size ? 4096 : 16 * G;
}

/// Where a group's shared memory goes: the sums of C's row (cap blocks of
/// rc entries), C's block columns (cap), the batch's steps (B's row start,
/// length and first place, G each) and its places, each part 16-byte
/// aligned.
struct GroupLayout {
  std::size_t cols = 0, steps = 0, places = 0, bytes = 0;
  __host__ __device__ GroupLayout(int cap, int rc, int G, int place_count,
                                  std::size_t value_bytes) {
    const auto round = [](std::size_t b) { return (b + 15) / 16 * 16; };
    cols = round(static_cast<std::size_t>(cap) * rc * value_bytes);
    steps = cols + round(static_cast<std::size_t>(cap) * sizeof(index_type));
    places = steps + round(3 * static_cast<std::size_t>(G) * sizeof(offset_type));
    bytes = places + round(static_cast<std::size_t>(place_count) * sizeof(index_type));
  }
};

inline unsigned grid_for(size_type items, int per_block) {
  const size_type blocks = (items + per_block - 1) / per_block;
  return static_cast<unsigned>(std::min<size_type>(std::max<size_type>(blocks, 1), 1 << 20));
}

/// Exclusive prefix sums over a group (a whole block, or a tile of G <= 32
/// lanes).
template <int G>
struct GroupScan {
  using BlockScan = cub::BlockScan<offset_type, block_size>;
  using Storage = std::conditional_t<G == block_size, typename BlockScan::TempStorage, char>;
  template <class Tile>
  __device__ static offset_type exclusive(Storage& storage, const Tile& tile, offset_type value) {
    if constexpr (G == block_size) {
      offset_type out;
      BlockScan(storage).ExclusiveSum(value, out);
      return out;
    } else {
      (void)storage;
      offset_type sum = value;  // inclusive, by shuffles up the tile
#pragma unroll
      for (int d = 1; d < G; d *= 2) {
        const offset_type other = tile.shfl_up(sum, d);
        if (static_cast<int>(tile.thread_rank()) >= d) sum += other;
      }
      return sum - value;
    }
  }
};

template <int R, int M, int C, int G, class T>
__global__ void __launch_bounds__(block_size, min_blocks)
    numeric_kernel(BlockShape s, Pattern A, const T* __restrict__ a_val, Pattern B,
                   const T* __restrict__ b_val, Pattern Cp, T* c_val, int cap) {
  static_assert(G == block_size || G <= 32, "a group is a whole CUDA block or part of a warp");
  constexpr int groups = block_size / G;
  constexpr int batch_places = places_per_batch<G>();
  const int r = R > 0 ? R : s.r, m = M > 0 ? M : s.m, c = C > 0 ? C : s.c;
  const int rc = r * c, rm = r * m;
  const size_type mc = static_cast<size_type>(m) * c;
  const auto block = cg::this_thread_block();
  const auto tile = cg::tiled_partition<(G < 32 ? G : 32)>(block);
  const auto sync = [&] {
    if constexpr (G == block_size) {
      block.sync();
    } else {
      tile.sync();
    }
  };
  const int group = static_cast<int>(threadIdx.x) / G;
  const int lane = static_cast<int>(threadIdx.x) % G;
  __shared__ typename GroupScan<G>::Storage scan_storage;
  extern __shared__ __align__(16) unsigned char smem[];
  const GroupLayout layout(cap, rc, G, batch_places, sizeof(T));
  unsigned char* mine = smem + group * layout.bytes;
  T* const sums = reinterpret_cast<T*>(mine);
  index_type* const kept_cols = reinterpret_cast<index_type*>(mine + layout.cols);
  offset_type* const step_q0 = reinterpret_cast<offset_type*>(mine + layout.steps);
  offset_type* const step_len = step_q0 + G;
  offset_type* const step_first = step_len + G;
  index_type* const places = reinterpret_cast<index_type*>(mine + layout.places);

  for (size_type I = static_cast<size_type>(blockIdx.x) * groups + group; I < Cp.rows;
       I += static_cast<size_type>(gridDim.x) * groups) {
    const offset_type c0 = Cp.row_ptr[I];
    const index_type n = static_cast<index_type>(Cp.row_ptr[I + 1] - c0);
    T* const out = c_val + c0 * rc;
    const bool in_shared = n <= cap;
    T* const row = in_shared ? sums : out;
    const index_type* cols = in_shared ? kept_cols : Cp.col_idx + c0;
    for (offset_type t = lane; t < static_cast<offset_type>(n) * rc; t += G) row[t] = T{0};
    if (in_shared) {
      for (index_type t = lane; t < n; t += G) kept_cols[t] = Cp.col_idx[c0 + t];
    }
    const offset_type a1 = A.row_ptr[I + 1];
    offset_type e0 = A.row_ptr[I];  // the batch's first block of A
    offset_type skip = 0;           // blocks of e0's row of B done by earlier batches
    while (e0 < a1) {
      // A batch: the steps of up to G blocks of A, lane l reading block
      // e0 + l's row of B, with their places found all at once, so that
      // the steps then wait on B's values only (found one step at a time,
      // the chain of index loads before each step cost more than the step).
      const offset_type e = e0 + lane;
      offset_type q0 = 0, len = 0;
      if (e < a1) {
        const index_type K = A.col_idx[e];
        q0 = B.row_ptr[K];
        len = B.row_ptr[K + 1] - q0;
        if (lane == 0) {
          q0 += skip;
          len -= skip;
        }
      }
      const offset_type first = GroupScan<G>::exclusive(scan_storage, tile, len);
      // The steps whose places all fit; at least part of the first.
      const bool fits = e < a1 && first + len <= batch_places;
      offset_type steps;
      if constexpr (G == block_size) {
        steps = __syncthreads_count(fits);
      } else {
        steps = __popc(tile.ballot(fits));
      }
      const bool partial = steps == 0;  // the first step alone overflows: take a part
      if (partial) {
        steps = 1;
        if (lane == 0) len = batch_places;
      }
      if (lane < steps) {
        step_q0[lane] = q0;
        step_len[lane] = len;
        step_first[lane] = first;
      }
      sync();
      const offset_type placed = step_first[steps - 1] + step_len[steps - 1];
      // Places of the batch: position p belongs to the step whose range
      // holds it (bisection in the step starts); four loads in flight.
      constexpr int V = 4;
      for (offset_type p0 = lane; p0 < placed; p0 += V * G) {
        index_type col[V];
#pragma unroll
        for (int v = 0; v < V; ++v) {
          const offset_type p = p0 + v * G;
          if (p < placed) {
            offset_type lo = 0, count = steps;
            while (count > 1) {  // the last step starting at or before p
              const offset_type half = count / 2;
              if (step_first[lo + half] <= p) {
                lo += half;
                count -= half;
              } else {
                count = half;
              }
            }
            col[v] = B.col_idx[step_q0[lo] + (p - step_first[lo])];
          }
        }
#pragma unroll
        for (int v = 0; v < V; ++v) {
          const offset_type p = p0 + v * G;
          if (p < placed) places[p] = static_cast<index_type>(spgemm::find_column(cols, n, col[v]));
        }
      }
      sync();
      for (offset_type st = 0; st < steps; ++st) {
        const offset_type ea = e0 + st;
        const T* a = a_val + ea * rm;
        const index_type* place = places + step_first[st];
        const int items = static_cast<int>(step_len[st]) * rc;
        const T* b_step = b_val + step_q0[st] * mc;
        if constexpr (M > 0) {
          // U entries per thread at a time, their loads issued together.
          // 2, also for 3x3 times 3x6: 4 spilled registers under
          // min_blocks' bound and ran 12% slower (H100).
          constexpr int U = 2;
          for (int t0 = lane; t0 < items; t0 += U * G) {
            T bv[U][M], old[U];
            int at[U], ai[U];  // the entry's place in the row, row i of a_IK
#pragma unroll
            for (int q = 0; q < U; ++q) {
              const int t = t0 + q * G;
              if (t < items) {
                const int qq = t / rc;
                const int o = t - qq * rc;
                const int i = o / C, j = o - i * C;
                const T* bj = b_step + qq * mc + j;
                ai[q] = i * M;
#pragma unroll
                for (int k = 0; k < M; ++k) bv[q][k] = bj[k * C];
                at[q] = place[qq] * rc + o;
                old[q] = row[at[q]];
              }
            }
#pragma unroll
            for (int q = 0; q < U; ++q) {
              if (t0 + q * G < items) {
                T acc = old[q];
#pragma unroll
                for (int k = 0; k < M; ++k) acc = fma(a[ai[q] + k], bv[q][k], acc);
                row[at[q]] = acc;
              }
            }
          }
        } else {
          for (int t = lane; t < items; t += G) {
            const int qq = t / rc;
            const int o = t - qq * rc;
            const int i = o / c, j = o - i * c;
            const T* bj = b_step + qq * mc + j;
            T* p = row + static_cast<offset_type>(place[qq]) * rc + o;
            T acc = *p;
            for (int k = 0; k < m; ++k) acc = fma(a[i * m + k], bj[k * c], acc);
            *p = acc;
          }
        }
        // This step's sums are done before the next adds into the same entries.
        sync();
      }
      // The next batch: the rest of a long row of B, or the next steps.
      if (partial) {
        skip += batch_places;
      } else {
        e0 += steps;
        skip = 0;
      }
    }
    if (in_shared) {
      // Each thread copies (and the next row zeroes) entries of its own.
      for (offset_type t = lane; t < static_cast<offset_type>(n) * rc; t += G) out[t] = sums[t];
    }
  }
}

/// Launches the kernel with G threads per block row of C, sized so that a
/// typical row (up to about 1.5 times the average) sums in shared memory.
template <int R, int M, int C, int G, class T>
void launch(cudaStream_t stream, BlockShape s, const Pattern& A, const T* a, const Pattern& B,
            const T* b, const Pattern& Cp, T* c) {
  constexpr int groups = block_size / G;
  const int rc = s.r * s.c;
  const auto bytes_for = [&](int cap) {
    return GroupLayout(cap, rc, G, places_per_batch<G>(), sizeof(T)).bytes;
  };
  const size_type average = Cp.nnz / std::max<size_type>(Cp.rows, 1);
  int cap = static_cast<int>(std::min<size_type>(average + average / 2 + 8, 1 << 20));
  while (cap > 0 && bytes_for(cap) * groups > smem_budget) cap = cap * 7 / 8;
  const std::size_t smem = bytes_for(cap) * groups;
  auto* kernel = &numeric_kernel<R, M, C, G, T>;
  STRATA_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(smem)));
  kernel<<<grid_for(Cp.rows, groups), block_size, smem, stream>>>(s, A, a, B, b, Cp, c, cap);
  STRATA_CUDA_CHECK(cudaGetLastError());
}

}  // namespace

template <class Exec, class T>
void numeric(const Exec& exec, BlockShape shape, const Pattern& A, const T* a_values,
             const Pattern& B, const T* b_values, const Pattern& C, T* c_values) {
  if (C.rows == 0 || C.nnz == 0) return;
  cuda_detail::activate(exec);
  cudaStream_t stream = cuda_detail::stream_of(exec);
  // Entries of C one a_IK adds, on average: a whole CUDA block per row of C
  // from a block's worth, a warp from a few dozen, else 8 threads.
  const size_type per_a =
      B.nnz / std::max<size_type>(B.rows, 1) * shape.r * static_cast<size_type>(shape.c);
  with_block_shape(shape, [&](auto r, auto m, auto c) {
    constexpr int R = decltype(r)::value, M = decltype(m)::value, Cc = decltype(c)::value;
    if (per_a >= block_size) {
      launch<R, M, Cc, block_size>(stream, shape, A, a_values, B, b_values, C, c_values);
    } else if (per_a >= 24) {
      launch<R, M, Cc, 32>(stream, shape, A, a_values, B, b_values, C, c_values);
    } else {
      launch<R, M, Cc, 8>(stream, shape, A, a_values, B, b_values, C, c_values);
    }
  });
}

// ---- the product plan ----

namespace {

/// counts (float, exact) -> offsets' counts.
__global__ void counts_from_values(size_type n, const float* __restrict__ counts,
                                   offset_type* __restrict__ out) {
  for (size_type p = static_cast<size_type>(blockIdx.x) * blockDim.x + threadIdx.x; p < n;
       p += static_cast<size_type>(gridDim.x) * blockDim.x) {
    out[p] = static_cast<offset_type>(counts[p]);
  }
}

/// The plan's lists: a group of G lanes per block row of C walks A's row in
/// stored order, one step per a_IK, and appends each of the step's pairs
/// (a_IK, b_KJ) to the list of C_IJ at that list's cursor. A step's b_KJ go
/// to distinct blocks, so its lanes never share a cursor; the tile barrier
/// between steps keeps the lists in A's order. The steps' K and B rows are
/// loaded G at a time (lane l: step e0 + l) and handed out by shuffles.
template <int G>
__global__ void __launch_bounds__(block_size)
    plan_kernel(Pattern A, Pattern B, Pattern C, offset_type* __restrict__ cursor,
                int2* __restrict__ pairs) {
  const auto tile = cg::tiled_partition<G>(cg::this_thread_block());
  const int lane = static_cast<int>(tile.thread_rank());
  const size_type groups = static_cast<size_type>(gridDim.x) * (block_size / G);
  for (size_type I = (static_cast<size_type>(blockIdx.x) * block_size + threadIdx.x) / G;
       I < C.rows; I += groups) {
    const offset_type c0 = C.row_ptr[I];
    const index_type n = static_cast<index_type>(C.row_ptr[I + 1] - c0);
    const index_type* cols = C.col_idx + c0;
    const offset_type a1 = A.row_ptr[I + 1];
    for (offset_type e0 = A.row_ptr[I]; e0 < a1; e0 += G) {
      offset_type q0 = 0, len = 0;
      if (e0 + lane < a1) {
        const index_type K = A.col_idx[e0 + lane];
        q0 = B.row_ptr[K];
        len = B.row_ptr[K + 1] - q0;
      }
      const int steps = static_cast<int>(a1 - e0 < G ? a1 - e0 : G);
      for (int st = 0; st < steps; ++st) {
        const offset_type sq0 = tile.shfl(q0, st), slen = tile.shfl(len, st);
        for (offset_type t = lane; t < slen; t += G) {
          const offset_type q = sq0 + t;
          const offset_type p = c0 + spgemm::find_column(cols, n, B.col_idx[q]);
          const offset_type at = cursor[p];
          cursor[p] = at + 1;
          pairs[at] = make_int2(static_cast<int>(e0 + st), static_cast<int>(q));
        }
        tile.sync();
      }
    }
  }
}

/// Row k of a block whose rows hold C values: two at a time where C is even
/// (every row then starts on a multiple of two values, and the arrays are
/// aligned), else one.
template <int C, class T>
__device__ __forceinline__ void load_row(const T* __restrict__ p, T (&out)[C]) {
  if constexpr (C % 2 == 0) {
    using Pair2 = std::conditional_t<std::is_same_v<T, double>, double2, float2>;
    const Pair2* q = reinterpret_cast<const Pair2*>(p);
#pragma unroll
    for (int j = 0; j < C / 2; ++j) {
      const Pair2 v = __ldg(q + j);
      out[2 * j] = v.x;
      out[2 * j + 1] = v.y;
    }
  } else {
#pragma unroll
    for (int j = 0; j < C; ++j) out[j] = __ldg(p + j);
  }
}

/// A thread per row i of each block of C: its C sums stay in registers while
/// it walks the block's list, adding a_IK(i, k) b_KJ(k, :) for k ascending
/// per pair, the order of numeric(). (Two pairs loaded ahead of their adds
/// measured the same for 3x3 by 3x6 and 5% slower for 6x3 by 3x6 on an
/// H200: the registers cost more occupancy than the overlap gave.)
template <int R, int M, int C, class T>
__global__ void __launch_bounds__(block_size)
    planned_kernel(size_type c_blocks, const offset_type* __restrict__ plan_ptr,
                   const int2* __restrict__ pairs, const T* __restrict__ a, const T* __restrict__ b,
                   T* __restrict__ c) {
  const size_type threads = c_blocks * R;
  for (size_type t = static_cast<size_type>(blockIdx.x) * block_size + threadIdx.x; t < threads;
       t += static_cast<size_type>(gridDim.x) * block_size) {
    const size_type p = t / R;
    const int i = static_cast<int>(t - p * R);
    T acc[C];
#pragma unroll
    for (int j = 0; j < C; ++j) acc[j] = T{0};
    const offset_type end = plan_ptr[p + 1];
    for (offset_type pr = plan_ptr[p]; pr < end; ++pr) {
      const int2 pq = __ldg(pairs + pr);
      T av[M];
      load_row<M>(a + static_cast<size_type>(pq.x) * (R * M) + i * M, av);
      const T* bk = b + static_cast<size_type>(pq.y) * (M * C);
#pragma unroll
      for (int k = 0; k < M; ++k) {
        T bv[C];
        load_row<C>(bk + k * C, bv);
#pragma unroll
        for (int j = 0; j < C; ++j) acc[j] = fma(av[k], bv[j], acc[j]);
      }
    }
    T* out = c + p * (R * C) + i * C;
#pragma unroll
    for (int j = 0; j < C; ++j) out[j] = acc[j];
  }
}

}  // namespace

void plan(const CudaExec& exec, const Pattern& A, const Pattern& B, const Pattern& C,
          const float* counts, size_type products, offset_type* plan_ptr, index_type* pairs) {
  const auto limit = static_cast<size_type>(std::numeric_limits<index_type>::max());
  require(A.nnz <= limit && B.nnz <= limit,
          "bsr_spgemm::plan: A has " + std::to_string(A.nnz) + " and B " + std::to_string(B.nnz) +
              " blocks; the plan's 32-bit pairs address at most " + std::to_string(limit));
  cuda_detail::activate(exec);
  cudaStream_t stream = cuda_detail::stream_of(exec);
  if (C.nnz > 0) {
    counts_from_values<<<grid_for(C.nnz, block_size), block_size, 0, stream>>>(C.nnz, counts,
                                                                               plan_ptr);
    STRATA_CUDA_CHECK(cudaGetLastError());
  }
  // Waits for the stream: the total is checked before any pair is written.
  const size_type total =
      spgemm::counts_to_offsets(exec, plan_ptr, C.nnz, std::max<size_type>(A.nnz, 1));
  require(total == products, "bsr_spgemm::plan: the counts per block of C add up to " +
                                 std::to_string(total) + " block products, the symbolic phase " +
                                 "counted " + std::to_string(products));
  if (C.rows == 0 || C.nnz == 0) return;
  Array<offset_type> cursor(exec, C.nnz);
  STRATA_CUDA_CHECK(cudaMemcpyAsync(cursor.data(), plan_ptr, C.nnz * sizeof(offset_type),
                                    cudaMemcpyDeviceToDevice, stream));
  // Lanes per block row of C: about one per block of a typical row of B.
  const size_type per_b = B.nnz / std::max<size_type>(B.rows, 1);
  auto* out = reinterpret_cast<int2*>(pairs);
  const auto run = [&](auto g) {
    constexpr int G = decltype(g)::value;
    plan_kernel<G>
        <<<grid_for(C.rows, block_size / G), block_size, 0, stream>>>(A, B, C, cursor.data(), out);
    STRATA_CUDA_CHECK(cudaGetLastError());
  };
  if (per_b <= 8) {
    run(std::integral_constant<int, 8>{});
  } else if (per_b <= 16) {
    run(std::integral_constant<int, 16>{});
  } else {
    run(std::integral_constant<int, 32>{});
  }
}

template <class T>
void planned_numeric(const CudaExec& exec, BlockShape shape, size_type c_blocks,
                     const offset_type* plan_ptr, const index_type* pairs, const T* a_values,
                     const T* b_values, T* c_values) {
  if (c_blocks == 0) return;
  cuda_detail::activate(exec);
  cudaStream_t stream = cuda_detail::stream_of(exec);
  const auto* pq = reinterpret_cast<const int2*>(pairs);
  with_block_shape(shape, [&](auto r, auto m, auto c) {
    constexpr int R = decltype(r)::value, M = decltype(m)::value, Cc = decltype(c)::value;
    if constexpr (R == 0) {
      throw invalid_argument("bsr_spgemm::planned_numeric: block shape " + std::to_string(shape.r) +
                             "x" + std::to_string(shape.m) + "x" + std::to_string(shape.c) +
                             " has no compiled path (not plannable)");
    } else {
      planned_kernel<R, M, Cc, T><<<grid_for(c_blocks * R, block_size), block_size, 0, stream>>>(
          c_blocks, plan_ptr, pq, a_values, b_values, c_values);
      STRATA_CUDA_CHECK(cudaGetLastError());
    }
  });
}

template void planned_numeric<float>(const CudaExec&, BlockShape, size_type, const offset_type*,
                                     const index_type*, const float*, const float*, float*);
template void planned_numeric<double>(const CudaExec&, BlockShape, size_type, const offset_type*,
                                      const index_type*, const double*, const double*, double*);

}  // namespace strata::kernels::bsr_spgemm

#define STRATA_EXEC CudaExec
#include "kernels/matrix/bsr_spgemm_instantiate.inc"
#undef STRATA_EXEC
