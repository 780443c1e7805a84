// CUDA instantiation of the aggregation kernels (aggregation_kernels.ipp),
// plus the radix sort over the key bits in use (the Galerkin keys
// I * n_c + J need about 2 log2(n_c) bits, not 64: fewer radix passes).
#include "backend/cuda/base/parallel.cuh"
#include "kernels/amg/aggregation_kernels.ipp"

namespace strata::kernels::aggregation {

void sort_by_key_bits(const CudaExec& exec, std::uint64_t* keys, offset_type* values, size_type n,
                      int bits) {
  if (n < 2) return;
  cuda_detail::activate(exec);
  cudaStream_t stream = cuda_detail::stream_of(exec);
  cuda_detail::ScratchBuffer alt_keys(exec, sizeof(std::uint64_t) * static_cast<std::size_t>(n));
  cuda_detail::ScratchBuffer alt_values(exec, sizeof(offset_type) * static_cast<std::size_t>(n));
  cub::DoubleBuffer<std::uint64_t> k(keys, alt_keys.as<std::uint64_t>());
  cub::DoubleBuffer<offset_type> v(values, alt_values.as<offset_type>());
  std::size_t bytes = 0;
  STRATA_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, k, v, n, 0, bits, stream));
  cuda_detail::ScratchBuffer scratch(exec, bytes);
  STRATA_CUDA_CHECK(
      cub::DeviceRadixSort::SortPairs(scratch.data(), bytes, k, v, n, 0, bits, stream));
  if (k.Current() != keys) {
    STRATA_CUDA_CHECK(cudaMemcpyAsync(keys, k.Current(), sizeof(std::uint64_t) * n,
                                      cudaMemcpyDeviceToDevice, stream));
  }
  if (v.Current() != values) {
    STRATA_CUDA_CHECK(cudaMemcpyAsync(values, v.Current(), sizeof(offset_type) * n,
                                      cudaMemcpyDeviceToDevice, stream));
  }
}

}  // namespace strata::kernels::aggregation

#define STRATA_EXEC CudaExec
#include "kernels/amg/aggregation_instantiate.inc"
#undef STRATA_EXEC
