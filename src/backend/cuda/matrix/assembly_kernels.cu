// CUDA assembly kernels: the shared bodies of assembly_kernels.ipp and a
// radix sort that only visits the key bits in use. A key is
// (local row << col_bits) | col, so for n rows and columns it has about
// 2 log2(n) significant bits: 48 instead of 64 at 10^7 unknowns, which
// saves two of the eight 8-bit passes of CUB's onesweep sort.

#include <cub/device/device_radix_sort.cuh>

#include "backend/cuda/base/parallel.cuh"
#include "kernels/matrix/assembly_kernels.ipp"

namespace strata::kernels::assembly {

template <class Exec>
void sort_entries(const Exec& exec, size_type n, key_type* keys, size_type* perm, int key_bits) {
  parallel_for(exec, n, [=] STRATA_HD(size_type i) { perm[i] = i; });
  if (n < 2) return;
  cuda_detail::activate(exec);
  cudaStream_t stream = cuda_detail::stream_of(exec);
  cuda_detail::ScratchBuffer alt_keys(exec, sizeof(key_type) * static_cast<std::size_t>(n));
  cuda_detail::ScratchBuffer alt_perm(exec, sizeof(size_type) * static_cast<std::size_t>(n));
  cub::DoubleBuffer<key_type> k(keys, alt_keys.as<key_type>());
  cub::DoubleBuffer<size_type> v(perm, alt_perm.as<size_type>());
  const int end_bit = key_bits < 1 ? 1 : (key_bits > 64 ? 64 : key_bits);
  std::size_t bytes = 0;
  STRATA_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, k, v, n, 0, end_bit, stream));
  cuda_detail::ScratchBuffer scratch(exec, bytes);
  STRATA_CUDA_CHECK(
      cub::DeviceRadixSort::SortPairs(scratch.data(), bytes, k, v, n, 0, end_bit, stream));
  if (k.Current() != keys) {
    STRATA_CUDA_CHECK(
        cudaMemcpyAsync(keys, k.Current(), sizeof(key_type) * n, cudaMemcpyDeviceToDevice, stream));
  }
  if (v.Current() != perm) {
    STRATA_CUDA_CHECK(cudaMemcpyAsync(perm, v.Current(), sizeof(size_type) * n,
                                      cudaMemcpyDeviceToDevice, stream));
  }
}

template void sort_entries<CudaExec>(const CudaExec&, size_type, key_type*, size_type*, int);

}  // namespace strata::kernels::assembly

#define STRATA_EXEC CudaExec
#include "kernels/matrix/assembly_instantiate.inc"
#undef STRATA_EXEC
