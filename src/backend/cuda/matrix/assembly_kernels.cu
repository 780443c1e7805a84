// CUDA assembly kernels: the shared bodies of assembly_kernels.ipp, and
// sort_entries as a radix sort over the key bits in use. A key is
// (local row << col_bits) | col, so for n rows and columns it has about
// 2 log2(n) significant bits.

#include "backend/cuda/base/parallel.cuh"
#include "kernels/matrix/assembly_kernels.ipp"

namespace strata::kernels::assembly {

template <class Exec>
void sort_entries(const Exec& exec, size_type n, key_type* keys, size_type* perm, int key_bits) {
  parallel_for(exec, n, [=] STRATA_HD(size_type i) { perm[i] = i; });
  stable_sort_by_key(exec, keys, perm, n, key_bits);
}

}  // namespace strata::kernels::assembly

#define STRATA_EXEC CudaExec
#include "kernels/matrix/assembly_instantiate.inc"
#undef STRATA_EXEC
