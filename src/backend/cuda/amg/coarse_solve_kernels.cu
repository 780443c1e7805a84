// CUDA coarse-level kernels: the inverse by Gauss-Jordan elimination with
// partial pivoting in one cooperative kernel (the host backend's algorithm,
// same pivots, same steps), and a dense mat-vec shaped for a few thousand
// rows.
//
// Why not cuSOLVER (potrf/potrs, getrf/getrs), which this file used before:
// its first call in a process loads cuSOLVER's and cuBLAS's kernels, 0.05 to
// 0.11 s on an H100, which was most of the difference between the first
// setup of a process and the next (issue 22: a user running `strata solve`
// once sees only the first). The coarsest level has at most a few thousand
// rows, where a factorization is a chain of n dependent steps either way.
// Warm, this kernel is as fast as cuSOLVER's Cholesky and solve up to a
// few hundred rows and 2.8x slower at 1,048 (5.4 against 1.9 ms on an H100;
// bench/NOTES.md, session 15).

#include <cooperative_groups.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "backend/cuda/base/parallel.cuh"
#include "kernels/amg/coarse_solve_kernels.ipp"

namespace strata::kernels::amg {

namespace {

namespace cg = cooperative_groups;

constexpr int gj_threads = 512;
constexpr int gj_warps = gj_threads / 32;

/// The larger of two pivot candidates (|value|, row): the larger magnitude,
/// the smaller row among equals, as the host's first-largest scan picks.
__device__ inline void keep_larger(double& value, index_type& row, double other_value,
                                   index_type other_row) {
  if (other_value > value || (other_value == value && other_row < row)) {
    value = other_value;
    row = other_row;
  }
}

/// Gauss-Jordan inversion of the column-major n x n `a` in place, Panel
/// elimination steps per grid-wide barrier (8; 2 where eight columns of n
/// rows do not fit in shared memory, above about 3,500 rows). CUDA block b
/// owns the columns [b cpb, (b + 1) cpb); with Resident they stay in its
/// shared memory from the first step to the last, else they are updated
/// where they are.
///
/// Step k (rows k and p swapped, row k scaled by 1 / a_pk, column k
/// eliminated from every other row; column k itself becomes the inverse's,
/// the in-place form with a_kk set to 1 before the scaling) needs, for any
/// column, only p, 1 / a_pk and column k as steps < k left it, rows k and p
/// swapped (the factors). For the steps k0 ... k0 + Panel - 1 of a panel
/// every block reads those columns as step k0 - 1 left them (their owners
/// wrote them to panels[(k0 / Panel) % 2] before the barrier) and runs the
/// panel's steps on them alone, which gives it the pivots and factors (the
/// same in every block: the same data and order), then applies the steps
/// to its own columns. The row swaps are undone on the columns afterwards
/// (by the caller). A pivot of magnitude <= threshold stops every block at
/// the same step, which goes to *singular_step.
template <bool Resident, int Panel>
__global__ void __launch_bounds__(gj_threads)
    gauss_jordan_kernel(index_type n, index_type cpb, double* __restrict__ a,
                        double* __restrict__ panels, index_type* __restrict__ pivots,
                        index_type* __restrict__ singular_step, double threshold) {
  const cg::grid_group grid = cg::this_grid();
  extern __shared__ double shared[];
  double* const panel = shared;             // Panel columns of n
  double* const row_k = panel + Panel * n;  // rows k and p of the owned columns
  double* const row_p = row_k + cpb;
  __shared__ double warp_value[gj_warps];
  __shared__ index_type warp_row[gj_warps];
  __shared__ double snap_k[Panel], snap_p[Panel], step_inv[Panel];
  __shared__ index_type step_row[Panel];
  const int tid = static_cast<int>(threadIdx.x);
  const index_type j0 = static_cast<index_type>(blockIdx.x) * cpb;
  const index_type width = n - j0 < cpb ? n - j0 : cpb;
  double* const global_own = a + static_cast<size_type>(j0) * n;
  double* const own = Resident ? row_p + cpb : global_own;  // column jj at own + jj n
  if constexpr (Resident) {
    for (index_type e = tid; e < width * n; e += gj_threads) own[e] = global_own[e];
    __syncthreads();  // publish() reads what other threads loaded
  }
  // Publishes the owned columns among [first, first + Panel) to `to`.
  const auto publish = [&](index_type first, double* to) {
    const index_type lo = first > j0 ? first : j0;
    const index_type hi_own = j0 + width, hi_panel = first + Panel;
    const index_type hi = hi_own < hi_panel ? hi_own : hi_panel;
    for (index_type j = lo; j < hi; ++j) {
      const double* from = own + static_cast<size_type>(j - j0) * n;
      double* dst = to + static_cast<size_type>(j - first) * n;
      for (index_type i = tid; i < n; i += gj_threads) dst[i] = from[i];
    }
  };
  publish(0, panels);
  grid.sync();
  for (index_type k0 = 0, m = 0; k0 < n; k0 += Panel, ++m) {
    const index_type steps = n - k0 < Panel ? n - k0 : Panel;
    const double* from = panels + static_cast<size_type>(m & 1) * Panel * n;
    for (index_type e = tid; e < steps * n; e += gj_threads) panel[e] = from[e];
    __syncthreads();
    // The panel's steps on the panel alone: pivots and factors.
    for (index_type s = 0; s < steps; ++s) {
      const index_type k = k0 + s;
      double* const col = panel + static_cast<size_type>(s) * n;
      double best = -1;
      index_type best_row = n;
      for (index_type i = k + tid; i < n; i += gj_threads)
        keep_larger(best, best_row, fabs(col[i]), i);
      for (int d = 16; d > 0; d /= 2) {
        keep_larger(best, best_row, __shfl_down_sync(0xffffffffu, best, d),
                    __shfl_down_sync(0xffffffffu, best_row, d));
      }
      if (tid % 32 == 0) {
        warp_value[tid / 32] = best;
        warp_row[tid / 32] = best_row;
      }
      __syncthreads();
      best = warp_value[0];
      best_row = warp_row[0];
      for (int w = 1; w < gj_warps; ++w) keep_larger(best, best_row, warp_value[w], warp_row[w]);
      const index_type p = best_row;
      if (!(best > threshold)) {  // every block stops here: the same data gives the same pivot
        if (blockIdx.x == 0 && tid == 0) *singular_step = k;
        return;
      }
      const index_type later = steps - 1 - s;  // panel columns after s
      if (tid < later) {
        const double* c = col + static_cast<size_type>(tid + 1) * n;
        snap_k[tid] = c[k];
        snap_p[tid] = c[p];
      }
      __syncthreads();
      if (tid == 0) {
        // col becomes the factors: rows k and p swapped.
        const double pivot = col[p];
        col[p] = col[k];
        col[k] = pivot;
        step_row[s] = p;
        step_inv[s] = 1.0 / pivot;
        if (blockIdx.x == 0) pivots[k] = p;
      }
      __syncthreads();
      const double inv = step_inv[s];
      for (index_type e = tid; e < later * n; e += gj_threads) {
        const index_type t = e / n, i = e - t * n;
        double* const c = col + static_cast<size_type>(t + 1) * n;
        const double r_k = snap_p[t] * inv;
        c[i] = i == k ? r_k : (i == p ? snap_k[t] : c[i]) - col[i] * r_k;
      }
      __syncthreads();
    }
    // The same steps on the owned columns.
    for (index_type s = 0; s < steps; ++s) {
      const index_type k = k0 + s, p = step_row[s];
      const double inv = step_inv[s];
      const double* const f = panel + static_cast<size_type>(s) * n;
      for (index_type jj = tid; jj < width; jj += gj_threads) {
        row_k[jj] = own[static_cast<size_type>(jj) * n + k];
        row_p[jj] = own[static_cast<size_type>(jj) * n + p];
      }
      __syncthreads();
      for (index_type jj = 0; jj < width; ++jj) {
        double* const col_j = own + static_cast<size_type>(jj) * n;
        const bool pivot_column = j0 + jj == k;
        const double r_k = (pivot_column ? 1.0 : row_p[jj]) * inv;
        for (index_type i = tid; i < n; i += gj_threads) {
          const double a_ij = pivot_column ? 0.0 : (i == p ? row_k[jj] : col_j[i]);
          col_j[i] = i == k ? r_k : a_ij - f[i] * r_k;
        }
      }
      __syncthreads();
    }
    if (k0 + Panel < n) {
      publish(k0 + Panel, panels + static_cast<size_type>((m + 1) & 1) * Panel * n);
    }
    grid.sync();
  }
  if constexpr (Resident) {
    for (index_type e = tid; e < width * n; e += gj_threads) global_own[e] = own[e];
  }
}

constexpr int matvec_rows = 32;  // rows per block: one per lane
constexpr int matvec_warps = 8;  // column slices per block

template <class T>
__global__ void __launch_bounds__(matvec_rows* matvec_warps)
    dense_matvec_kernel(size_type n, const T* __restrict__ M, const T* __restrict__ x,
                        T* __restrict__ y) {
  __shared__ T partial[matvec_warps][matvec_rows];
  const int lane = static_cast<int>(threadIdx.x % matvec_rows);
  const int warp = static_cast<int>(threadIdx.x / matvec_rows);
  const size_type i = static_cast<size_type>(blockIdx.x) * matvec_rows + lane;
  T sum = 0;
  if (i < n) {
    // Lanes read 32 consecutive rows of one column: coalesced.
    for (size_type j = warp; j < n; j += matvec_warps) sum += M[j * n + i] * x[j];
  }
  partial[warp][lane] = sum;
  __syncthreads();
  if (warp == 0 && i < n) {
    T total = 0;
    for (int w = 0; w < matvec_warps; ++w) total += partial[w][lane];
    y[i] = total;
  }
}

}  // namespace

template <class Exec, class T>
size_type dense_invert(const Exec& exec, size_type n, T* a, T singular_tolerance) {
  static_assert(std::is_same_v<T, double>, "the CUDA coarse solver is instantiated for double");
  if (n == 0) return -1;
  cuda_detail::activate(exec);
  cudaStream_t stream = cuda_detail::stream_of(exec);
  // One block per multiprocessor, each owning cpb consecutive columns: the
  // grid barrier costs more with more blocks, and a step's work per block
  // (cpb columns of n rows) is small either way.
  const int sms = std::max(exec.context().multiprocessors, 1);
  const index_type cpb = static_cast<index_type>((n + sms - 1) / sms);
  const auto grid = static_cast<unsigned>((n + cpb - 1) / cpb);
  // The owned columns stay in shared memory where they fit beside the
  // panel (up to about 1,200 rows on an H100), else in global memory; the
  // panel narrows to two steps where eight columns do not fit.
  int shared_limit = 0;
  STRATA_CUDA_CHECK(cudaDeviceGetAttribute(&shared_limit, cudaDevAttrMaxSharedMemoryPerBlockOptin,
                                           exec.device()));
  // Dynamic shared memory: the panel, rows k and p of the owned columns,
  // and (resident) the owned columns.
  const auto dynamic_bytes = [&](int panel, bool with_columns) {
    return sizeof(double) *
           static_cast<std::size_t>(panel * n + 2 * cpb + (with_columns ? cpb * n : 0));
  };
  const auto fits = [&](int panel, bool with_columns) {
    const std::size_t static_bytes = 2 * (gj_warps + 4 * panel) * sizeof(double);
    return dynamic_bytes(panel, with_columns) + static_bytes <=
           static_cast<std::size_t>(shared_limit);
  };
  const int panel = fits(8, false) ? 8 : 2;
  if (!fits(panel, false)) {
    throw invalid_argument("dense_invert: n = " + std::to_string(n) +
                           " rows do not fit the Gauss-Jordan kernel's panel in " +
                           std::to_string(shared_limit) +
                           " bytes of shared memory; expected at most a few thousand rows");
  }
  const bool resident = fits(panel, true);
  const std::size_t shared_bytes = dynamic_bytes(panel, resident);
  auto* kernel = panel == 8
                     ? (resident ? &gauss_jordan_kernel<true, 8> : &gauss_jordan_kernel<false, 8>)
                     : (resident ? &gauss_jordan_kernel<true, 2> : &gauss_jordan_kernel<false, 2>);
  STRATA_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(shared_bytes)));
  int resident_blocks = 0;
  STRATA_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident_blocks, kernel,
                                                                  gj_threads, shared_bytes));
  if (static_cast<long long>(resident_blocks) * sms < grid) {
    throw cuda_error(
        "dense_invert: " + std::to_string(grid) +
        " blocks of the cooperative Gauss-Jordan kernel cannot all be resident on cuda:" +
        std::to_string(exec.device()));
  }
  const double max_entry = transform_reduce(
      exec, n * n, 0.0, [=] __device__(size_type k) { return a[k] < 0 ? -a[k] : a[k]; },
      ops::Max{});
  cuda_detail::ScratchBuffer panels(exec, sizeof(double) * static_cast<std::size_t>(2 * panel * n));
  cuda_detail::ScratchBuffer pivots(exec, sizeof(index_type) * static_cast<std::size_t>(n + 1));
  index_type* singular_step = pivots.as<index_type>() + n;
  STRATA_CUDA_CHECK(cudaMemsetAsync(singular_step, 0xff, sizeof(index_type), stream));  // -1
  index_type rows = static_cast<index_type>(n), columns_per_block = cpb;
  double* values = a;
  double* panel_columns = panels.as<double>();
  index_type* pivot_rows = pivots.as<index_type>();
  double threshold = singular_tolerance * max_entry;
  void* args[] = {&rows,       &columns_per_block, &values,   &panel_columns,
                  &pivot_rows, &singular_step,     &threshold};
  STRATA_CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(kernel), grid,
                                                gj_threads, args, shared_bytes, stream));
  std::vector<index_type> pivot(static_cast<std::size_t>(n + 1));
  STRATA_CUDA_CHECK(cudaMemcpyAsync(pivot.data(), pivot_rows, sizeof(index_type) * (n + 1),
                                    cudaMemcpyDeviceToHost, stream));
  STRATA_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (pivot[n] >= 0) return pivot[n];
  // Undo the row swaps as column swaps, last first: column j of the result
  // is column source[j] of what the elimination left.
  std::vector<index_type> source(static_cast<std::size_t>(n));
  std::iota(source.begin(), source.end(), index_type{0});
  bool swapped = false;
  for (size_type k = n - 1; k >= 0; --k) {
    if (pivot[k] != k) {
      std::swap(source[k], source[pivot[k]]);
      swapped = true;
    }
  }
  if (!swapped) return -1;
  cuda_detail::ScratchBuffer order(exec, sizeof(index_type) * static_cast<std::size_t>(n));
  cuda_detail::ScratchBuffer result(exec, sizeof(double) * static_cast<std::size_t>(n * n));
  STRATA_CUDA_CHECK(cudaMemcpyAsync(order.data(), source.data(), sizeof(index_type) * n,
                                    cudaMemcpyHostToDevice, stream));
  const index_type* from = order.as<index_type>();
  double* out = result.as<double>();
  parallel_for(exec, n * n, [=] __device__(size_type k) {  // out(:, j) = a(:, source[j])
    const size_type j = k / n, i = k - j * n;
    out[k] = a[static_cast<size_type>(from[j]) * n + i];
  });
  STRATA_CUDA_CHECK(
      cudaMemcpyAsync(a, result.data(), sizeof(double) * n * n, cudaMemcpyDeviceToDevice, stream));
  STRATA_CUDA_CHECK(cudaStreamSynchronize(stream));
  return -1;
}

template <class T>
void dense_matvec(const CudaExec& exec, size_type n, const T* M, const T* x, T* y) {
  if (n == 0) return;
  cuda_detail::activate(exec);
  const auto blocks = static_cast<unsigned>((n + matvec_rows - 1) / matvec_rows);
  dense_matvec_kernel<<<blocks, matvec_rows * matvec_warps, 0, cuda_detail::stream_of(exec)>>>(
      n, M, x, y);
  STRATA_CUDA_CHECK(cudaGetLastError());
}

}  // namespace strata::kernels::amg

#define STRATA_EXEC CudaExec
#include "kernels/amg/coarse_solve_instantiate.inc"
#undef STRATA_EXEC
