// CUDA instantiation of the solver kernels, and a diagonal scaling that
// gives each row a group of lanes.
#include <cmath>
#include <limits>

#include "backend/cuda/base/parallel.cuh"
#include "kernels/solver/solver_kernels.ipp"

namespace strata::kernels::solver {

namespace {

constexpr int kBlock = 256;

/// d[row] for `Scaling` (l1: the l1 row norm, root: the square root), a
/// group of G lanes per row; *bad = the least unusable row (atomicMin).
template <int G, class T>
__global__ void __launch_bounds__(kBlock)
    diagonal_scaling_kernel(size_type rows, const offset_type* __restrict__ row_ptr,
                            const index_type* __restrict__ col_idx, const T* __restrict__ values,
                            bool l1, bool root, T* __restrict__ d, unsigned long long* bad) {
  const size_type row = (static_cast<size_type>(blockIdx.x) * blockDim.x + threadIdx.x) / G;
  const int lane = static_cast<int>(threadIdx.x % G);
  // Groups are aligned in their warp, so a whole group leaves together.
  if (row >= rows) return;
  const unsigned mask = G == 32 ? 0xFFFFFFFFu : (((1u << G) - 1u) << ((threadIdx.x % 32) / G * G));
  T diag{0}, norm{0};
  for (offset_type k = row_ptr[row] + lane; k < row_ptr[row + 1]; k += G) {
    const T v = values[k];
    if (col_idx[k] == row) diag += v;
    norm += v < T{0} ? -v : v;
  }
#pragma unroll
  for (int offset = G / 2; offset > 0; offset /= 2) {
    diag += __shfl_xor_sync(mask, diag, offset, G);
    norm += __shfl_xor_sync(mask, norm, offset, G);
  }
  if (lane != 0) return;
  const T scale = l1 ? norm : diag;
  const bool usable = (root ? diag > T{0} : diag != T{0}) && diag - diag == T{0};
  const T inverse = usable ? T{1} / scale : T{0};
  d[row] = root ? sqrt(inverse) : inverse;
  if (!usable) atomicMin(bad, static_cast<unsigned long long>(row));
}

template <int G, class T>
void launch_diagonal_scaling(const CudaExec& exec, size_type rows, const offset_type* row_ptr,
                             const index_type* col_idx, const T* values, bool l1, bool root, T* d,
                             unsigned long long* bad) {
  const auto blocks = static_cast<unsigned>((rows * G + kBlock - 1) / kBlock);
  diagonal_scaling_kernel<G, T><<<blocks, kBlock, 0, cuda_detail::stream_of(exec)>>>(
      rows, row_ptr, col_idx, values, l1, root, d, bad);
  STRATA_CUDA_CHECK(cudaGetLastError());
}

}  // namespace

template <class T>
size_type diagonal_scaling(const CudaExec& exec, size_type rows, const offset_type* row_ptr,
                           const index_type* col_idx, const T* values, Scaling scaling, T* d) {
  if (rows == 0) return -1;
  cuda_detail::activate(exec);
  cudaStream_t stream = cuda_detail::stream_of(exec);
  offset_type extent[2];
  STRATA_CUDA_CHECK(
      cudaMemcpyAsync(&extent[0], row_ptr, sizeof(offset_type), cudaMemcpyDeviceToHost, stream));
  STRATA_CUDA_CHECK(cudaMemcpyAsync(&extent[1], row_ptr + rows, sizeof(offset_type),
                                    cudaMemcpyDeviceToHost, stream));
  unsigned long long first = std::numeric_limits<unsigned long long>::max();
  const unsigned long long none = first;
  cuda_detail::ScratchBuffer bad_buffer(exec, sizeof first);
  auto* bad = bad_buffer.as<unsigned long long>();
  STRATA_CUDA_CHECK(cudaMemcpyAsync(bad, &first, sizeof first, cudaMemcpyHostToDevice, stream));
  STRATA_CUDA_CHECK(cudaStreamSynchronize(stream));
  const double mean = double(extent[1] - extent[0]) / double(rows);
  const bool l1 = scaling == Scaling::inverse_l1_norm;
  const bool root = scaling == Scaling::inverse_sqrt_diagonal;
  if (mean <= 4) {
    launch_diagonal_scaling<4>(exec, rows, row_ptr, col_idx, values, l1, root, d, bad);
  } else if (mean <= 8) {
    launch_diagonal_scaling<8>(exec, rows, row_ptr, col_idx, values, l1, root, d, bad);
  } else if (mean <= 16) {
    launch_diagonal_scaling<16>(exec, rows, row_ptr, col_idx, values, l1, root, d, bad);
  } else {
    launch_diagonal_scaling<32>(exec, rows, row_ptr, col_idx, values, l1, root, d, bad);
  }
  STRATA_CUDA_CHECK(cudaMemcpyAsync(&first, bad, sizeof first, cudaMemcpyDeviceToHost, stream));
  STRATA_CUDA_CHECK(cudaStreamSynchronize(stream));
  return first == none ? -1 : static_cast<size_type>(first);
}

template size_type diagonal_scaling<float>(const CudaExec&, size_type, const offset_type*,
                                           const index_type*, const float*, Scaling, float*);
template size_type diagonal_scaling<double>(const CudaExec&, size_type, const offset_type*,
                                            const index_type*, const double*, Scaling, double*);

}  // namespace strata::kernels::solver

#define STRATA_EXEC CudaExec
#include "kernels/solver/solver_instantiate.inc"
#undef STRATA_EXEC
