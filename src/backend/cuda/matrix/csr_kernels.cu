// CUDA CSR kernels.
//
// SpMV for matrices from PDEs (short rows, a few to a few dozen nonzeros)
// is limited by memory bandwidth. A thread per row reads values and column
// indices with a stride of the row length (uncoalesced); a warp per row
// leaves most lanes idle. "CSR-stream" (Greathouse & Daga, SC'14) avoids
// both: a block takes a contiguous run of rows, all its threads read the run's
// nonzeros as one contiguous, fully coalesced range and stage the products
// a_ij * x_j in shared memory, and then one or a few threads per row sum
// them. The row boundaries come from row_ptr, read once per block. Blocks
// whose rows do not fit in shared memory, and matrices with long rows, use
// a warp per row instead.

#include <algorithm>

#include "backend/cuda/base/parallel.cuh"
#include "kernels/matrix/csr_kernels.hpp"
#include "kernels/matrix/csr_validate.ipp"

namespace strata::kernels::csr {

namespace {

constexpr int warp_size = 32;

// Epilogues: what a row's sum (A x)_i becomes in y_i. The kernels are
// written once for all of them, so that a fused operation costs no extra
// pass over the vectors.

/// y = alpha A x + beta z (z may be y; beta == 0 ignores z).
template <class T>
struct Axpby {
  T alpha, beta;
  const T* z;
  __device__ __forceinline__ T operator()(size_type row, T sum) const {
    return beta == T{0} ? alpha * sum : alpha * sum + beta * z[row];
  }
};

/// One Jacobi sweep from x into y: y = x + d .* (b - A x).
template <class T>
struct JacobiSweep {
  const T* d;
  const T* b;
  const T* x;
  __device__ __forceinline__ T operator()(size_type row, T sum) const {
    return x[row] + d[row] * (b[row] - sum);
  }
};

/// A warp per row, `warps` rows in flight per block; each row's partial sums
/// are combined by a fixed shuffle tree (deterministic). Returns this
/// thread's share of x^T y (rows whose y it wrote).
template <bool DOT, class T, class Epi>
__device__ T spmv_warp_rows(size_type first_row, int nrows, const offset_type* row_start,
                            const index_type* __restrict__ col_idx, const T* __restrict__ values,
                            const T* __restrict__ x, T* __restrict__ y, const Epi& epi) {
  const int lane = threadIdx.x % warp_size;
  const int warps = blockDim.x / warp_size;
  T dot{0};
  for (int r = threadIdx.x / warp_size; r < nrows; r += warps) {
    T sum{0};
    for (offset_type k = row_start[r] + lane; k < row_start[r + 1]; k += warp_size) {
      sum += values[k] * __ldg(x + col_idx[k]);
    }
    for (int offset = warp_size / 2; offset > 0; offset /= 2) {
      sum += __shfl_down_sync(0xffffffffu, sum, offset);
    }
    if (lane == 0) {
      const T yi = epi(first_row + r, sum);
      y[first_row + r] = yi;
      if constexpr (DOT) dot += x[first_row + r] * yi;
    }
  }
  return dot;
}

/// partial[blockIdx.x] = sum over the block of `contribution` (fixed tree).
template <int BLOCK, class T>
__device__ void block_partial_sum(T contribution, T* partial) {
  using BlockReduce = cub::BlockReduce<T, BLOCK>;
  __shared__ typename BlockReduce::TempStorage storage;
  const T total = BlockReduce(storage).Sum(contribution);
  if (threadIdx.x == 0) partial[blockIdx.x] = total;
}

/// CSR-stream: BLOCK threads, ROWS rows per block, BLOCK / ROWS threads per
/// row in the reduction phase. `capacity` products fit in dynamic shared memory.
/// With DOT, each block also writes its share of x^T y to dot_partial (the
/// fused SpMV + dot of CG; x and y are then indexed alike, A is square).
template <int BLOCK, int ROWS, bool DOT, class T, class Epi>
__global__ void __launch_bounds__(BLOCK)
    spmv_stream_kernel(size_type rows, const offset_type* __restrict__ row_ptr,
                       const index_type* __restrict__ col_idx, const T* __restrict__ values,
                       const T* __restrict__ x, T* __restrict__ y, Epi epi, int capacity,
                       T* __restrict__ dot_partial) {
  constexpr int lanes_per_row = BLOCK / ROWS;
  static_assert(BLOCK % ROWS == 0 && lanes_per_row <= warp_size);
  extern __shared__ unsigned char shared_raw[];
  T* products = reinterpret_cast<T*>(shared_raw);
  __shared__ offset_type row_start[ROWS + 1];

  const size_type first_row = static_cast<size_type>(blockIdx.x) * ROWS;
  const int nrows = static_cast<int>(rows - first_row < ROWS ? rows - first_row : size_type{ROWS});
  for (int t = threadIdx.x; t <= nrows; t += BLOCK) row_start[t] = row_ptr[first_row + t];
  __syncthreads();

  const offset_type begin = row_start[0];
  const offset_type count = row_start[nrows] - begin;
  if (count > capacity) {  // uniform across the block: the rows do not fit
    const T dot = spmv_warp_rows<DOT>(first_row, nrows, row_start, col_idx, values, x, y, epi);
    if constexpr (DOT) block_partial_sum<BLOCK>(dot, dot_partial);
    return;
  }
  // Four independent gathers in flight per thread, the last round predicated
  // rather than serial; values and column indices are read once, so they
  // bypass (evict-first) the L2 that keeps x.
  constexpr int unroll = 4;
  const index_type* ci = col_idx + begin;
  const T* va = values + begin;
  for (int k = threadIdx.x; k < count; k += unroll * BLOCK) {
    index_type c[unroll];
    T v[unroll];
#pragma unroll
    for (int u = 0; u < unroll; ++u) {
      const int i = k + u * BLOCK;
      c[u] = i < count ? __ldcs(ci + i) : 0;
      v[u] = i < count ? __ldcs(va + i) : T{0};
    }
#pragma unroll
    for (int u = 0; u < unroll; ++u) {
      const int i = k + u * BLOCK;
      if (i < count) products[i] = v[u] * __ldg(x + c[u]);
    }
  }
  __syncthreads();

  const int r = threadIdx.x / lanes_per_row;
  const int lane = threadIdx.x % lanes_per_row;
  T sum{0};
  if (r < nrows) {
    const int row_end = static_cast<int>(row_start[r + 1] - begin);
    for (int k = static_cast<int>(row_start[r] - begin) + lane; k < row_end; k += lanes_per_row) {
      sum += products[k];
    }
  }
  if constexpr (lanes_per_row > 1) {
    for (int offset = lanes_per_row / 2; offset > 0; offset /= 2) {
      sum += __shfl_down_sync(0xffffffffu, sum, offset, lanes_per_row);
    }
  }
  T dot{0};
  if (r < nrows && lane == 0) {
    const T yi = epi(first_row + r, sum);
    y[first_row + r] = yi;
    if constexpr (DOT) dot = x[first_row + r] * yi;
  }
  if constexpr (DOT) block_partial_sum<BLOCK>(dot, dot_partial);
}

/// A warp per row for matrices whose rows are long.
template <int BLOCK, bool DOT, class T, class Epi>
__global__ void __launch_bounds__(BLOCK)
    spmv_vector_kernel(size_type rows, const offset_type* __restrict__ row_ptr,
                       const index_type* __restrict__ col_idx, const T* __restrict__ values,
                       const T* __restrict__ x, T* __restrict__ y, Epi epi,
                       T* __restrict__ dot_partial) {
  constexpr int ROWS = BLOCK / warp_size;
  __shared__ offset_type row_start[ROWS + 1];
  const size_type first_row = static_cast<size_type>(blockIdx.x) * ROWS;
  const int nrows = static_cast<int>(rows - first_row < ROWS ? rows - first_row : size_type{ROWS});
  for (int t = threadIdx.x; t <= nrows; t += BLOCK) row_start[t] = row_ptr[first_row + t];
  __syncthreads();
  const T dot = spmv_warp_rows<DOT>(first_row, nrows, row_start, col_idx, values, x, y, epi);
  if constexpr (DOT) block_partial_sum<BLOCK>(dot, dot_partial);
}

template <int BLOCK, int ROWS, bool DOT, class T, class Epi>
size_type launch_stream(cudaStream_t stream, size_type rows, double mean_row,
                        const offset_type* rp, const index_type* ci, const T* v, const T* x, T* y,
                        const Epi& epi, T* dot_partial) {
  // Room for rows 1.5x longer than the mean (plus slack), within the 48 KB
  // every block may use without opting in.
  const int max_capacity = static_cast<int>((48 * 1024 - sizeof(offset_type) * (ROWS + 1)) /
                                            sizeof(T));
  const int capacity = std::min<int>(max_capacity, static_cast<int>(ROWS * (mean_row * 1.5 + 4)));
  const size_type blocks = (rows + ROWS - 1) / ROWS;
  spmv_stream_kernel<BLOCK, ROWS, DOT, T, Epi>
      <<<static_cast<unsigned>(blocks), BLOCK, capacity * sizeof(T), stream>>>(
          rows, rp, ci, v, x, y, epi, capacity, dot_partial);
  STRATA_CUDA_CHECK(cudaGetLastError());
  return blocks;
}

/// Picks the kernel by row length. Measured on the H200 (bench/NOTES.md,
/// "SpMV on coarse AMG levels"): the stream kernel's shared staging area
/// comes out of the same on-chip memory as the L1 cache. A stencil's
/// gathers of x are coalesced and need little L1, so it does best with many
/// rows per block; a coarse Galerkin operator's gathers scatter and reuse x
/// through L1, so it wants smaller blocks of staging (2x faster at 30
/// entries a row). Rows of nearly equal length (max_row <= 1.25 x mean)
/// mark the stencil.
template <bool DOT, class T, class Epi>
size_type launch_spmv(cudaStream_t stream, size_type rows, size_type nnz, size_type max_row,
                      const offset_type* row_ptr, const index_type* col_idx, const T* values,
                      const T* x, T* y, const Epi& epi, T* dot_partial) {
  const double mean_row = static_cast<double>(nnz) / static_cast<double>(rows);
  const bool uniform_rows = static_cast<double>(max_row) <= 1.25 * mean_row;
  if (mean_row <= 12) {
    return launch_stream<256, 256, DOT>(stream, rows, mean_row, row_ptr, col_idx, values, x, y,
                                        epi, dot_partial);
  }
  if (mean_row <= 40 && uniform_rows) {
    return launch_stream<256, 64, DOT>(stream, rows, mean_row, row_ptr, col_idx, values, x, y,
                                        epi, dot_partial);
  }
  if (mean_row <= 40) {
    return launch_stream<256, 32, DOT>(stream, rows, mean_row, row_ptr, col_idx, values, x, y,
                                        epi, dot_partial);
  }
  if (mean_row <= 100) {
    return launch_stream<256, 16, DOT>(stream, rows, mean_row, row_ptr, col_idx, values, x, y,
                                        epi, dot_partial);
  }
  constexpr int block = 256;
  const size_type blocks = (rows + block / warp_size - 1) / (block / warp_size);
  spmv_vector_kernel<block, DOT, T, Epi><<<static_cast<unsigned>(blocks), block, 0, stream>>>(
      rows, row_ptr, col_idx, values, x, y, epi, dot_partial);
  STRATA_CUDA_CHECK(cudaGetLastError());
  return blocks;
}

}  // namespace

template <class Exec, class T>
void spmv(const Exec& exec, size_type rows, size_type nnz, size_type max_row,
          const offset_type* row_ptr, const index_type* col_idx, const T* values, T alpha,
          const T* x, T beta, const T* z, T* y) {
  if (rows == 0) return;
  cuda_detail::activate(exec);
  launch_spmv<false>(cuda_detail::stream_of(exec), rows, nnz, max_row, row_ptr, col_idx, values,
                     x, y, Axpby<T>{alpha, beta, z}, static_cast<T*>(nullptr));
}

template <class Exec, class T>
void jacobi_sweep(const Exec& exec, size_type rows, size_type nnz, size_type max_row,
                  const offset_type* row_ptr, const index_type* col_idx, const T* values,
                  const T* d, const T* b, const T* x, T* y) {
  if (rows == 0) return;
  cuda_detail::activate(exec);
  launch_spmv<false>(cuda_detail::stream_of(exec), rows, nnz, max_row, row_ptr, col_idx, values,
                     x, y, JacobiSweep<T>{d, b, x}, static_cast<T*>(nullptr));
}

template <class Exec, class T>
T spmv_dot(const Exec& exec, size_type rows, size_type nnz, size_type max_row,
           const offset_type* row_ptr, const index_type* col_idx, const T* values, const T* x,
           T* y) {
  if (rows == 0) return T{0};
  cuda_detail::activate(exec);
  cudaStream_t stream = cuda_detail::stream_of(exec);
  // One partial per block (at most rows / 8 blocks), then one block sums them
  // in a fixed order: the result repeats bit for bit.
  const size_type max_blocks = rows / 8 + 1;
  cuda_detail::ScratchBuffer partial(exec, sizeof(T) * static_cast<std::size_t>(max_blocks + 1));
  T* p = partial.as<T>();
  const size_type blocks = launch_spmv<true>(stream, rows, nnz, max_row, row_ptr, col_idx, values,
                                             x, y, Axpby<T>{T{1}, T{0}, y}, p);
  cuda_detail::reduce_final_kernel<<<1, cuda_detail::reduce_block, 0, stream>>>(
      static_cast<int>(blocks), T{0}, ops::Plus{}, p, p + max_blocks);
  STRATA_CUDA_CHECK(cudaGetLastError());
  T result;
  STRATA_CUDA_CHECK(
      cudaMemcpyAsync(&result, p + max_blocks, sizeof(T), cudaMemcpyDeviceToHost, stream));
  STRATA_CUDA_CHECK(cudaStreamSynchronize(stream));
  return result;
}

}  // namespace strata::kernels::csr

#define STRATA_EXEC CudaExec
#include "kernels/matrix/csr_instantiate.inc"
#undef STRATA_EXEC
