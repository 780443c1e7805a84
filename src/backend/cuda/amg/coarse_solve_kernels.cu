// CUDA coarse-level kernels: the inverse by cuSOLVER (Cholesky for a
// symmetric positive definite matrix, else LU, then triangular solves
// against the identity), all on the device, and a dense mat-vec shaped for
// a few thousand rows.

#include <cusolverDn.h>

#include <cmath>
#include <string>

#include "backend/cuda/base/parallel.cuh"
#include "kernels/amg/coarse_solve_kernels.ipp"

namespace strata::kernels::amg {

namespace detail {
void set_identity(const CudaExec& exec, size_type n, double* b) {
  parallel_for(exec, n * n, [=] __device__(size_type k) { b[k] = (k % (n + 1) == 0) ? 1.0 : 0.0; });
}
}  // namespace detail

namespace {
void check_cusolver(cusolverStatus_t status, const char* call) {
  if (status != CUSOLVER_STATUS_SUCCESS) {
    throw cuda_error(std::string("cuSOLVER call ") + call + " failed with status " +
                     std::to_string(static_cast<int>(status)));
  }
}
#define STRATA_CUSOLVER_CHECK(call) check_cusolver((call), #call)

/// The first k in [0, n) with |d_k| <= threshold, d_k = diag[k * (n + 1)]
/// (a pivot or Cholesky diagonal), or -1.
size_type first_small_diagonal(const CudaExec& exec, size_type n, const double* diag,
                               double threshold) {
  return transform_reduce(
      exec, n, size_type{-1},
      [=] __device__(size_type k) -> size_type {
        const double d = diag[k * (n + 1)];
        return (d < 0 ? -d : d) <= threshold ? k : size_type{-1};
      },
      [] __device__(size_type x, size_type y) -> size_type {
        return x < 0 ? y : (y < 0 ? x : (x < y ? x : y));
      });
}

int read_info(const CudaExec& exec, const int* info) {
  int host = 0;
  STRATA_CUDA_CHECK(cudaMemcpyAsync(&host, info, sizeof(int), cudaMemcpyDeviceToHost,
                                    cuda_detail::stream_of(exec)));
  STRATA_CUDA_CHECK(cudaStreamSynchronize(cuda_detail::stream_of(exec)));
  return host;
}

/// Cholesky of a copy of the (numerically) symmetric `a`, read from its lower
/// triangle, then A^-1 into `a` by solving against the identity (potrs: two
/// triangular solves with n right-hand sides, faster than potri's
/// triangular inverse on the H200: 1.0 against 1.6 ms at n = 1048). False
/// (a untouched) when the matrix is not positive definite or its Cholesky
/// diagonal is small: the LU path then decides and reports.
bool cholesky_invert(const CudaExec& exec, cusolverDnHandle_t handle, size_type n, double* a,
                     double max_entry, double singular_tolerance) {
  const int m = static_cast<int>(n);
  cuda_detail::ScratchBuffer copy(exec, sizeof(double) * static_cast<std::size_t>(n * n));
  cuda_detail::ScratchBuffer info(exec, sizeof(int));
  double* c = copy.as<double>();
  STRATA_CUDA_CHECK(cudaMemcpyAsync(c, a, sizeof(double) * n * n, cudaMemcpyDeviceToDevice,
                                    cuda_detail::stream_of(exec)));
  int work_size = 0;
  STRATA_CUSOLVER_CHECK(
      cusolverDnDpotrf_bufferSize(handle, CUBLAS_FILL_MODE_LOWER, m, c, m, &work_size));
  cuda_detail::ScratchBuffer work(exec, sizeof(double) * static_cast<std::size_t>(work_size));
  STRATA_CUSOLVER_CHECK(cusolverDnDpotrf(handle, CUBLAS_FILL_MODE_LOWER, m, c, m,
                                         work.as<double>(), work_size, info.as<int>()));
  if (read_info(exec, info.as<int>()) != 0) return false;
  // l_kk^2 plays the part of an LU pivot.
  if (first_small_diagonal(exec, n, c, std::sqrt(singular_tolerance * max_entry)) >= 0) {
    return false;
  }
  detail::set_identity(exec, n, a);
  STRATA_CUSOLVER_CHECK(
      cusolverDnDpotrs(handle, CUBLAS_FILL_MODE_LOWER, m, m, c, m, a, m, info.as<int>()));
  return true;
}

constexpr int matvec_rows = 32;  // rows per block: one per lane
constexpr int matvec_warps = 8;  // column slices per block

__global__ void __launch_bounds__(matvec_rows* matvec_warps)
    dense_matvec_kernel(size_type n, const double* __restrict__ M, const double* __restrict__ x,
                        double* __restrict__ y) {
  __shared__ double partial[matvec_warps][matvec_rows];
  const int lane = static_cast<int>(threadIdx.x % matvec_rows);
  const int warp = static_cast<int>(threadIdx.x / matvec_rows);
  const size_type i = static_cast<size_type>(blockIdx.x) * matvec_rows + lane;
  double sum = 0;
  if (i < n) {
    // Lanes read 32 consecutive rows of one column: coalesced.
    for (size_type j = warp; j < n; j += matvec_warps) sum += M[j * n + i] * x[j];
  }
  partial[warp][lane] = sum;
  __syncthreads();
  if (warp == 0 && i < n) {
    double total = 0;
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
  const double max_entry = transform_reduce(
      exec, n * n, 0.0, [=] __device__(size_type k) { return a[k] < 0 ? -a[k] : a[k]; },
      ops::Max{});
  cusolverDnHandle_t handle = exec.context().cusolver();
  // A Galerkin product sums a_IJ and a_JI in different orders, so a
  // symmetric coarse matrix is symmetric only to rounding: within 1e-12 of
  // its largest entry it takes Cholesky on its lower triangle (an inverse
  // exact to that relative accuracy), otherwise LU.
  const double asymmetry = transform_reduce(
      exec, n * n, 0.0,
      [=] __device__(size_type k) {
        const size_type i = k % n, j = k / n;
        const double d = a[k] - a[i * n + j];
        return d < 0 ? -d : d;
      },
      ops::Max{});
  if (asymmetry <= 1e-12 * max_entry &&
      cholesky_invert(exec, handle, n, a, max_entry, singular_tolerance)) {
    return -1;
  }

  int work_size = 0;
  const int m = static_cast<int>(n);
  STRATA_CUSOLVER_CHECK(cusolverDnDgetrf_bufferSize(handle, m, m, a, m, &work_size));
  cuda_detail::ScratchBuffer work(exec, sizeof(double) * static_cast<std::size_t>(work_size));
  cuda_detail::ScratchBuffer pivots(exec, sizeof(int) * static_cast<std::size_t>(n));
  cuda_detail::ScratchBuffer info(exec, sizeof(int));
  cuda_detail::ScratchBuffer identity(exec, sizeof(double) * static_cast<std::size_t>(n * n));
  STRATA_CUSOLVER_CHECK(cusolverDnDgetrf(handle, m, m, a, m, work.as<double>(), pivots.as<int>(),
                                         info.as<int>()));
  // Smallest |u_kk|: singular to working precision when below the tolerance.
  const size_type smallest = first_small_diagonal(exec, n, a, singular_tolerance * max_entry);
  if (smallest >= 0) return smallest;
  detail::set_identity(exec, n, identity.as<double>());
  STRATA_CUSOLVER_CHECK(cusolverDnDgetrs(handle, CUBLAS_OP_N, m, m, a, m, pivots.as<int>(),
                                         identity.as<double>(), m, info.as<int>()));
  STRATA_CUDA_CHECK(cudaMemcpyAsync(a, identity.data(), sizeof(double) * n * n,
                                    cudaMemcpyDeviceToDevice, stream));
  STRATA_CUDA_CHECK(cudaStreamSynchronize(stream));
  return -1;
}

template <class T>
void dense_matvec(const CudaExec& exec, size_type n, const T* M, const T* x, T* y) {
  static_assert(std::is_same_v<T, double>, "the CUDA coarse solver is instantiated for double");
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
