// Host instantiation of the CSR transpose (transpose_kernels.ipp).
#include "kernels/matrix/transpose_kernels.ipp"

#include "backend/host/base/parallel.hpp"

namespace strata::kernels::transpose {

template CsrMatrix<float> transpose_csr(const HostExec&, size_type, size_type, size_type,
                                        const offset_type*, const index_type*, const float*);
template CsrMatrix<double> transpose_csr(const HostExec&, size_type, size_type, size_type,
                                         const offset_type*, const index_type*, const double*);

}  // namespace strata::kernels::transpose
