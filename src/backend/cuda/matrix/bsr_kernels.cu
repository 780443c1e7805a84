// CUDA BSR kernels: a tuned SpMV for the compiled block sizes, the fused
// point-block Jacobi sweep as the same kernel with another epilogue, and the
// instantiation of the shared bodies (generic SpMV, validate, conversions,
// transpose).
//
// SpMV with small dense blocks is bandwidth bound like CSR SpMV, but moves
// less: one 32-bit block column per r*c values instead of one per value
// (for 3x3 blocks 8.4 instead of 12 bytes per nonzero), and each x block it
// gathers serves r rows.
//
// The kernel gives each lane one *block row slice*: row a of one block,
// c contiguous values. A group of G lanes (a power of two, G >= r) takes a
// block row; lane l works on row a = l % r of the blocks l / r, l / r + M,
// l / r + 2M, ... (M = G / r blocks per step; the G - M r spare lanes idle).
// Because a block is stored row-major, consecutive lanes read consecutive
// slices: the values stream is contiguous for the group, each lane reads one
// block column per c values, keeps a single partial sum (its row never
// changes) and loads its slice of x contiguously. Two blocks per lane are in
// flight at a time. The partial sums of a row sit in lanes a, a + r, a + 2r,
// ...; a shuffle tree with strides that are multiples of r (r * 2^k, from the
// largest down) adds them into lane a in a fixed order, so a run repeats bit
// for bit.
//
// A first version let the lanes walk single values, as CSR-stream does; each
// value then needed its block, row and column by division and r selects to
// reach its row's sum, and on elasticity3d ne = 128 it ran at 2.09 ms, slower
// than our CSR (1.89 ms) and cuSPARSE (1.98 ms). The slices take 1.07 ms.

#include <algorithm>

#include "backend/cuda/base/parallel.cuh"
#include "kernels/matrix/bsr_kernels.ipp"

namespace strata::kernels::bsr {

namespace {

constexpr int spmv_block = 256;
/// Warps a block-row split aims to keep in flight: an H100/H200 holds 64
/// per SM on 132 SMs; half of that is plenty for a latency-bound walk.
constexpr double warps_in_flight = 4096;

/// Smallest power of two >= m.
constexpr int ceil_pow2(int m) { return m <= 1 ? 1 : 2 * ceil_pow2((m + 1) / 2); }

/// y = alpha A x + beta y: the SpMV's epilogue. Lanes 0..R-1 of a group hold
/// the sums of the R rows of their block row.
template <class T>
struct SpmvEpilogue {
  T alpha, beta;
  T* y;
  template <int R, int G>
  __device__ void finish(size_type I, bool active, int lane, T sum) const {
    if (active && lane < R) {
      const size_type i = I * R + lane;
      y[i] = beta == T{0} ? alpha * sum : alpha * sum + beta * y[i];
    }
  }
};

/// x = x0 + omega D^-1 (rhs - A x0), the point-block Jacobi sweep's epilogue
/// (R == C): lane a < R forms residual a, the group's R residuals reach
/// every lane by shuffles (all G lanes take part, as in the reduction), and
/// lane a applies row a of the inverted block to them, j = 0..R-1 in order.
template <class T>
struct BlockJacobiEpilogue {
  using value_type = T;
  const T* inverse;
  T omega;
  const T* rhs;
  const T* x0;
  T* x;
  template <int R, int G>
  __device__ void finish(size_type I, bool active, int lane, T sum) const {
    const bool owner = active && lane < R;
    const T r = owner ? rhs[I * R + lane] - sum : T{0};
    T s{0};
#pragma unroll
    for (int j = 0; j < R; ++j) {
      const T rj = __shfl_sync(0xffffffffu, r, j, G);
      if (owner) s += inverse[I * (R * R) + lane * R + j] * rj;
    }
    if (owner) x[I * R + lane] = x0[I * R + lane] + omega * s;
  }
};

/// x = x0 + d .* (rhs - A x0), the scalar Jacobi sweep's epilogue: lane
/// a < R finishes row a of its block row.
template <class T>
struct DiagonalJacobiEpilogue {
  using value_type = T;
  const T* d;
  const T* rhs;
  const T* x0;
  T* x;
  template <int R, int G>
  __device__ void finish(size_type I, bool active, int lane, T sum) const {
    if (active && lane < R) {
      const size_type i = I * R + lane;
      x[i] = x0[i] + d[i] * (rhs[i] - sum);
    }
  }
};

template <int R, int C, int G, int W, class T, class Epilogue>
__global__ void __launch_bounds__(spmv_block)
    spmv_slices_kernel(size_type block_rows, const offset_type* __restrict__ row_ptr,
                       const index_type* __restrict__ col_idx, const T* __restrict__ values,
                       const T* __restrict__ x, Epilogue epilogue) {
  constexpr int B = R * C;
  constexpr int M = G / R;  // blocks a warp's group advances per step
  static_assert(G <= 32 && (G & (G - 1)) == 0 && M >= 1, "G: a power of two in [R, 32]");
  static_assert(W == 1 || G == 32, "several warps per block row: whole warps");
  const size_type I = (static_cast<size_type>(blockIdx.x) * spmv_block + threadIdx.x) / (G * W);
  const int lane = static_cast<int>(threadIdx.x % G);
  const int w = W > 1 ? static_cast<int>(threadIdx.x / 32) % W : 0;  // warp within the row
  const int a = lane % R;
  // Groups past the end and spare lanes run with no blocks (no early return:
  // the whole warp takes part in the shuffles, the whole block in the barrier).
  offset_type k = 0, last = 0;
  if (I < block_rows && lane < M * R) {
    k = row_ptr[I] + w * M + lane / R;
    last = row_ptr[I + 1];
  }
  T sum{0};
  for (; k < last; k += 2 * W * M) {
    const offset_type k2 = k + W * M;
    const bool second = k2 < last;
    const size_type c1 = __ldg(col_idx + k);
    const size_type c2 = second ? __ldg(col_idx + k2) : c1;
    T v1[C], v2[C], x1[C], x2[C];
#pragma unroll
    for (int j = 0; j < C; ++j) {
      v1[j] = __ldg(values + k * B + a * C + j);
      x1[j] = __ldg(x + c1 * C + j);
      v2[j] = second ? __ldg(values + k2 * B + a * C + j) : T{0};
      x2[j] = second ? __ldg(x + c2 * C + j) : T{0};
    }
#pragma unroll
    for (int j = 0; j < C; ++j) sum += v1[j] * x1[j];
    if (second) {
#pragma unroll
      for (int j = 0; j < C; ++j) sum += v2[j] * x2[j];
    }
  }
#pragma unroll
  for (int stride = R * (ceil_pow2(M) / 2); stride >= R; stride /= 2) {
    const T other = __shfl_down_sync(0xffffffffu, sum, stride, G);
    if (lane + stride < G) sum += other;
  }
  if constexpr (W == 1) {
    epilogue.template finish<R, G>(I, I < block_rows, lane, sum);
  } else {
    // The row's W warp sums (lanes a < R of each warp) meet in shared
    // memory; its first warp adds them in warp order and finishes the row.
    __shared__ T partial[spmv_block / 32][R];
    const int warp = static_cast<int>(threadIdx.x / 32);
    if (lane < R) partial[warp][lane] = sum;
    __syncthreads();
    if (w == 0) {
      T total{0};
      if (lane < R) {
#pragma unroll
        for (int v = 0; v < W; ++v) total += partial[warp + v][lane];
      }
      epilogue.template finish<R, G>(I, I < block_rows, lane, total);
    }
  }
}

template <int R, int C, int G, class T, class Epilogue, int W = 1>
void launch_slices(cudaStream_t stream, size_type block_rows, const offset_type* row_ptr,
                   const index_type* col_idx, const T* values, const T* x,
                   const Epilogue& epilogue) {
  if constexpr (G >= R) {
    const size_type groups_per_block = spmv_block / (G * W);
    const size_type blocks = (block_rows + groups_per_block - 1) / groups_per_block;
    spmv_slices_kernel<R, C, G, W, T><<<static_cast<unsigned>(blocks), spmv_block, 0, stream>>>(
        block_rows, row_ptr, col_idx, values, x, epilogue);
    STRATA_CUDA_CHECK(cudaGetLastError());
  } else {
    launch_slices<R, C, 2 * G, T, Epilogue, W>(stream, block_rows, row_ptr, col_idx, values, x,
                                               epilogue);
  }
}

/// Lanes per block row: the smallest group whose working lanes get at most
/// about six slices each. Measured on the H200 with elasticity3d (27 blocks
/// of 3x3 per block row, 81 slices), ne = 128: 16 lanes (5.4 slices per lane)
/// 1.07 ms, 32 lanes (2.7) 1.23 ms, 8 lanes (13.5) 1.21 ms. Fewer, longer
/// lanes keep more loads in flight per lane and need one shuffle step less;
/// too few leave the group's block row a long serial tail. Short block rows
/// (prolongators: one or two blocks) get groups of 4 or 8, several block
/// rows per warp.
template <int R, int C, class T, class Epilogue>
void launch_fixed(cudaStream_t stream, size_type block_rows, size_type num_blocks,
                  const offset_type* row_ptr, const index_type* col_idx, const T* values,
                  const T* x, const Epilogue& epilogue) {
  constexpr double slices_per_lane = 6.0;
  const double slices = static_cast<double>(num_blocks) * R / static_cast<double>(block_rows);
  const auto fits = [&](int group) {
    return group >= R && (group / R) * R * slices_per_lane >= slices;
  };
  if (fits(4)) {
    launch_slices<R, C, 4>(stream, block_rows, row_ptr, col_idx, values, x, epilogue);
  } else if (fits(8)) {
    launch_slices<R, C, 8>(stream, block_rows, row_ptr, col_idx, values, x, epilogue);
  } else if (fits(16)) {
    launch_slices<R, C, 16>(stream, block_rows, row_ptr, col_idx, values, x, epilogue);
  } else {
    // Long block rows. Where they are few (the restrictions and operators
    // of smoothed aggregation's coarse levels: 17 to 369 block rows of about
    // a hundred 6x6 blocks at elasticity3d n = 64), one warp per row leaves
    // the GPU idle and its serial walk is the whole time (27-49 us, against
    // a few for the bytes): W warps share a row, as long as the rows in
    // flight stay under what the GPU holds and each lane keeps at least one
    // step of two blocks.
    constexpr int M = 32 / R;
    const double per_lane = slices / (M * R);
    int W = 1;
    while (W < spmv_block / 32 && static_cast<double>(block_rows) * 2 * W <= warps_in_flight &&
           per_lane / (2 * W) >= 2.0) {
      W *= 2;
    }
    const auto run = [&](auto w) {
      launch_slices<R, C, 32, T, Epilogue, decltype(w)::value>(stream, block_rows, row_ptr, col_idx,
                                                               values, x, epilogue);
    };
    using std::integral_constant;
    if (W == 8) {
      run(integral_constant<int, 8>{});
    } else if (W == 4) {
      run(integral_constant<int, 4>{});
    } else if (W == 2) {
      run(integral_constant<int, 2>{});
    } else {
      run(integral_constant<int, 1>{});
    }
  }
}

}  // namespace

template <class Exec, class T>
void spmv(const Exec& exec, size_type block_rows, size_type num_blocks, int r, int c,
          const offset_type* row_ptr, const index_type* col_idx, const T* values, T alpha,
          const T* x, T beta, T* y) {
  if (block_rows == 0) return;
  if (!has_fast_path(r, c)) {
    detail::spmv_generic(exec, block_rows, r, c, row_ptr, col_idx, values, alpha, x, beta, y);
    return;
  }
  cuda_detail::activate(exec);
  cudaStream_t s = cuda_detail::stream_of(exec);
  const SpmvEpilogue<T> epilogue{alpha, beta, y};
  const auto run = [&](auto R, auto C) {
    launch_fixed<decltype(R)::value, decltype(C)::value>(s, block_rows, num_blocks, row_ptr,
                                                         col_idx, values, x, epilogue);
  };
  using std::integral_constant;
  using I1 = integral_constant<int, 1>;
  using I2 = integral_constant<int, 2>;
  using I3 = integral_constant<int, 3>;
  using I4 = integral_constant<int, 4>;
  using I6 = integral_constant<int, 6>;
  if (r == 1 && c == 1) return run(I1{}, I1{});
  if (r == 2 && c == 2) return run(I2{}, I2{});
  if (r == 3 && c == 3) return run(I3{}, I3{});
  if (r == 4 && c == 4) return run(I4{}, I4{});
  if (r == 6 && c == 6) return run(I6{}, I6{});
  if (r == 2 && c == 3) return run(I2{}, I3{});
  if (r == 3 && c == 2) return run(I3{}, I2{});
  if (r == 3 && c == 6) return run(I3{}, I6{});
  run(I6{}, I3{});  // the last fast path: 6x3
}

namespace {

/// A sweep (jacobi_sweep, diagonal_sweep): the SpMV over x0 for square
/// b x b blocks with a fast path, finished by `epilogue`.
template <class Epilogue>
void sweep(const CudaExec& exec, size_type block_rows, size_type num_blocks, int b,
           const offset_type* row_ptr, const index_type* col_idx,
           const typename Epilogue::value_type* values, const typename Epilogue::value_type* x0,
           const Epilogue& epilogue) {
  if (block_rows == 0) return;
  cuda_detail::activate(exec);
  cudaStream_t s = cuda_detail::stream_of(exec);
  const auto run = [&](auto B) {
    constexpr int R = decltype(B)::value;
    launch_fixed<R, R>(s, block_rows, num_blocks, row_ptr, col_idx, values, x0, epilogue);
  };
  using std::integral_constant;
  if (b == 1) return run(integral_constant<int, 1>{});
  if (b == 2) return run(integral_constant<int, 2>{});
  if (b == 3) return run(integral_constant<int, 3>{});
  if (b == 4) return run(integral_constant<int, 4>{});
  run(integral_constant<int, 6>{});  // the last fast path (the caller checked b)
}

}  // namespace

template <class T>
void jacobi_sweep(const CudaExec& exec, size_type block_rows, size_type num_blocks, int b,
                  const offset_type* row_ptr, const index_type* col_idx, const T* values,
                  const T* inverse, T omega, const T* rhs, const T* x0, T* x) {
  sweep(exec, block_rows, num_blocks, b, row_ptr, col_idx, values, x0,
        BlockJacobiEpilogue<T>{inverse, omega, rhs, x0, x});
}

template <class T>
void diagonal_sweep(const CudaExec& exec, size_type block_rows, size_type num_blocks, int b,
                    const offset_type* row_ptr, const index_type* col_idx, const T* values,
                    const T* d, const T* rhs, const T* x0, T* x) {
  sweep(exec, block_rows, num_blocks, b, row_ptr, col_idx, values, x0,
        DiagonalJacobiEpilogue<T>{d, rhs, x0, x});
}

}  // namespace strata::kernels::bsr

#define STRATA_EXEC CudaExec
#include "kernels/matrix/bsr_instantiate.inc"
#undef STRATA_EXEC
