// CUDA instantiation of the triangular-solve kernels, and the device's level
// computation: a dependency-count topological pass (Kahn's algorithm).

#include <cuda/atomic>

#include "backend/cuda/base/parallel.cuh"
#include "kernels/matrix/transpose_kernels.hpp"
#include "kernels/matrix/triangular_kernels.ipp"

namespace strata::kernels::triangular {

namespace {

constexpr int block = 256;

unsigned blocks_for(size_type n) { return static_cast<unsigned>((n + block - 1) / block); }

/// remaining[i] = the dependencies of row i (its entries in S); the rows
/// without any form the first frontier.
__global__ void seed_frontier(size_type rows, const offset_type* s_ptr, index_type* remaining,
                              index_type* frontier, int* frontier_size) {
  const size_type i = static_cast<size_type>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= rows) return;
  const index_type dependencies = static_cast<index_type>(s_ptr[i + 1] - s_ptr[i]);
  remaining[i] = dependencies;
  if (dependencies == 0) frontier[atomicAdd(frontier_size, 1)] = static_cast<index_type>(i);
}

/// The rows of the frontier get level l; each of their dependents (row r of
/// S^T) loses one dependency, and the one that loses its last joins the next
/// frontier. Which thread appends it is a race, so the order inside a
/// frontier varies from run to run; the levels do not.
__global__ void advance_frontier(int count, index_type l, const index_type* frontier,
                                 const offset_type* t_ptr, const index_type* t_col,
                                 index_type* remaining, index_type* level, index_type* next,
                                 int* next_size) {
  const int q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= count) return;
  const index_type r = frontier[q];
  level[r] = l;
  for (offset_type e = t_ptr[r]; e < t_ptr[r + 1]; ++e) {
    const index_type d = t_col[e];
    if (atomicSub(&remaining[d], 1) == 1) next[atomicAdd(next_size, 1)] = d;
  }
}

/// Waits on a flag at most this many times (with a short sleep between):
/// seconds, where the longest legitimate wait is the critical path of the
/// solve (levels times a few microseconds).
constexpr long long max_spins = 1ll << 24;

template <class T>
__global__ void __launch_bounds__(block)
    sync_free_solve(size_type rows, const index_type* order, const offset_type* ptr,
                    const index_type* col, const T* val, const T* inv_diag, const T* b, T* x,
                    int* ready, int epoch, unsigned long long* ticket, int* failed) {
  __shared__ unsigned long long base;
  if (threadIdx.x == 0) base = atomicAdd(ticket, static_cast<unsigned long long>(blockDim.x));
  __syncthreads();
  const size_type k = static_cast<size_type>(base) + threadIdx.x;
  if (k >= rows) return;
  const index_type i = order[k];
  T sum = b[i];
  for (offset_type e = ptr[k]; e < ptr[k + 1]; ++e) {
    const index_type j = col[e];
    cuda::atomic_ref<int, cuda::thread_scope_device> flag(ready[j]);
    cuda::atomic_ref<int, cuda::thread_scope_device> gave_up(*failed);
    long long spins = 0;
    while (flag.load(cuda::memory_order_acquire) != epoch) {
      // After one thread has given up, every waiting thread leaves at once
      // (row i stays unready), so a failure ends the kernel in one bound,
      // not one bound per level.
      if (++spins > max_spins || gave_up.load(cuda::memory_order_relaxed) != 0) {
        gave_up.store(1, cuda::memory_order_relaxed);
        return;
      }
      __nanosleep(64);
    }
    sum -= val[e] * x[j];
  }
  x[i] = inv_diag[k] * sum;
  cuda::atomic_ref<int, cuda::thread_scope_device>(ready[i]).store(epoch,
                                                                   cuda::memory_order_release);
}

}  // namespace

template <class T>
bool solve_sync_free(const CudaExec& exec, size_type rows, const index_type* order,
                     const offset_type* ptr, const index_type* col, const T* val,
                     const T* inv_diag, const T* b, T* x, int* ready, int epoch) {
  if (rows == 0) return true;
  cuda_detail::activate(exec);
  cudaStream_t stream = cuda_detail::stream_of(exec);
  // The ticket (8 bytes) and the failure flag, zeroed for this solve.
  cuda_detail::ScratchBuffer state(exec, 2 * sizeof(unsigned long long));
  STRATA_CUDA_CHECK(cudaMemsetAsync(state.data(), 0, state.bytes(), stream));
  unsigned long long* ticket = state.as<unsigned long long>();
  int* failed = reinterpret_cast<int*>(ticket + 1);
  sync_free_solve<T><<<blocks_for(rows), block, 0, stream>>>(rows, order, ptr, col, val, inv_diag,
                                                             b, x, ready, epoch, ticket, failed);
  STRATA_CUDA_CHECK(cudaGetLastError());
  int status = 0;
  STRATA_CUDA_CHECK(cudaMemcpyAsync(&status, failed, sizeof(int), cudaMemcpyDeviceToHost, stream));
  STRATA_CUDA_CHECK(cudaStreamSynchronize(stream));
  return status == 0;
}

template <class T>
size_type levels(const CudaExec& exec, size_type rows, size_type nnz, const offset_type* s_ptr,
                 const index_type* s_col, const T* s_val, bool /*lower: Kahn needs no order*/,
                 index_type* level) {
  if (rows == 0) return 0;
  cuda_detail::activate(exec);
  cudaStream_t stream = cuda_detail::stream_of(exec);
  // Row r of S^T lists the rows that depend on row r.
  const CsrMatrix<T> St = transpose::transpose_csr(exec, rows, rows, nnz, s_ptr, s_col, s_val);
  const std::size_t bytes = sizeof(index_type) * static_cast<std::size_t>(rows);
  cuda_detail::ScratchBuffer remaining(exec, bytes), current(exec, bytes), next(exec, bytes),
      sizes(exec, 2 * sizeof(int));
  index_type* frontier = current.as<index_type>();
  index_type* following = next.as<index_type>();
  int* size = sizes.as<int>();
  STRATA_CUDA_CHECK(cudaMemsetAsync(size, 0, sizeof(int), stream));
  seed_frontier<<<blocks_for(rows), block, 0, stream>>>(rows, s_ptr, remaining.as<index_type>(),
                                                        frontier, size);
  STRATA_CUDA_CHECK(cudaGetLastError());
  int count = 0;
  STRATA_CUDA_CHECK(cudaMemcpyAsync(&count, size, sizeof(int), cudaMemcpyDeviceToHost, stream));
  STRATA_CUDA_CHECK(cudaStreamSynchronize(stream));
  size_type l = 0;
  size_type placed = 0;
  // One kernel and one read-back per level: the host needs the size of the
  // next frontier to launch it.
  while (count > 0) {
    placed += count;
    STRATA_CUDA_CHECK(cudaMemsetAsync(size + 1, 0, sizeof(int), stream));
    advance_frontier<<<blocks_for(count), block, 0, stream>>>(
        count, static_cast<index_type>(l), frontier, St.row_ptr().data(), St.col_idx().data(),
        remaining.as<index_type>(), level, following, size + 1);
    STRATA_CUDA_CHECK(cudaGetLastError());
    STRATA_CUDA_CHECK(
        cudaMemcpyAsync(&count, size + 1, sizeof(int), cudaMemcpyDeviceToHost, stream));
    STRATA_CUDA_CHECK(cudaStreamSynchronize(stream));
    std::swap(frontier, following);
    ++l;
  }
  // A strict triangle has no cycle, so every row is placed; anything else
  // is a bug here, not bad input.
  if (placed != rows) {
    throw error("triangular levels: the topological pass placed " + std::to_string(placed) +
                " of " + std::to_string(rows) + " rows");
  }
  return l;
}

template bool solve_sync_free<double>(const CudaExec&, size_type, const index_type*,
                                      const offset_type*, const index_type*, const double*,
                                      const double*, const double*, double*, int*, int);

}  // namespace strata::kernels::triangular

#define STRATA_EXEC CudaExec
#include "kernels/matrix/triangular_instantiate.inc"
#undef STRATA_EXEC
