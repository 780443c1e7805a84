// CUDA coarse-level kernels: the inverse by cuSOLVER's LU (getrf) and
// triangular solves against the identity (getrs), all on the device.

#include <cusolverDn.h>

#include <string>

#include "backend/cuda/base/parallel.cuh"
#include "kernels/amg/coarse_solve_kernels.ipp"

namespace strata::kernels::amg {

namespace {
void check_cusolver(cusolverStatus_t status, const char* call) {
  if (status != CUSOLVER_STATUS_SUCCESS) {
    throw cuda_error(std::string("cuSOLVER call ") + call + " failed with status " +
                     std::to_string(static_cast<int>(status)));
  }
}
#define STRATA_CUSOLVER_CHECK(call) check_cusolver((call), #call)
}  // namespace

namespace detail {
void set_identity(const CudaExec& exec, size_type n, double* b) {
  parallel_for(exec, n * n, [=] __device__(size_type k) { b[k] = (k % (n + 1) == 0) ? 1.0 : 0.0; });
}
}  // namespace detail

template <class Exec, class T>
size_type dense_invert(const Exec& exec, size_type n, T* a, T singular_tolerance) {
  static_assert(std::is_same_v<T, double>, "the CUDA coarse solver is instantiated for double");
  if (n == 0) return -1;
  cuda_detail::activate(exec);
  cudaStream_t stream = cuda_detail::stream_of(exec);
  const double max_entry = transform_reduce(
      exec, n * n, 0.0, [=] __device__(size_type k) { return a[k] < 0 ? -a[k] : a[k]; },
      ops::Max{});
  cusolverDnHandle_t handle = nullptr;
  STRATA_CUSOLVER_CHECK(cusolverDnCreate(&handle));
  struct HandleGuard {
    cusolverDnHandle_t h;
    ~HandleGuard() { cusolverDnDestroy(h); }
  } guard{handle};
  STRATA_CUSOLVER_CHECK(cusolverDnSetStream(handle, stream));
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
  const double* lu = a;
  const size_type smallest = transform_reduce(
      exec, n, size_type{-1},
      [=] __device__(size_type k) -> size_type {
        const double u = lu[k * (n + 1)];
        return (u < 0 ? -u : u) <= singular_tolerance * max_entry ? k : size_type{-1};
      },
      [] __device__(size_type x, size_type y) -> size_type {
        return x < 0 ? y : (y < 0 ? x : (x < y ? x : y));
      });
  if (smallest >= 0) return smallest;
  detail::set_identity(exec, n, identity.as<double>());
  STRATA_CUSOLVER_CHECK(cusolverDnDgetrs(handle, CUBLAS_OP_N, m, m, a, m, pivots.as<int>(),
                                         identity.as<double>(), m, info.as<int>()));
  STRATA_CUDA_CHECK(cudaMemcpyAsync(a, identity.data(), sizeof(double) * n * n,
                                    cudaMemcpyDeviceToDevice, stream));
  STRATA_CUDA_CHECK(cudaStreamSynchronize(stream));
  return -1;
}

template void csr_to_dense<CudaExec, double>(const CudaExec&, size_type, const offset_type*,
                                             const index_type*, const double*, double*);
template size_type dense_invert<CudaExec, double>(const CudaExec&, size_type, double*, double);
template void dense_matvec<CudaExec, double>(const CudaExec&, size_type, const double*,
                                             const double*, double*);

}  // namespace strata::kernels::amg
