// CUDA instantiation of the CSR transpose (transpose_kernels.ipp).
#include "backend/cuda/base/parallel.cuh"
#include "kernels/matrix/transpose_kernels.ipp"

namespace strata::kernels::transpose {

template CsrMatrix<float> transpose_csr(const CudaExec&, size_type, size_type, size_type,
                                        const offset_type*, const index_type*, const float*);
template CsrMatrix<double> transpose_csr(const CudaExec&, size_type, size_type, size_type,
                                         const offset_type*, const index_type*, const double*);

}  // namespace strata::kernels::transpose
