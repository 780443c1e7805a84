// CUDA instantiation of the gallery generators (gallery_kernels.ipp).
#include "backend/cuda/base/parallel.cuh"
#include "kernels/gallery/gallery_kernels.ipp"

namespace strata::kernels::gallery {

template CsrMatrix<double> poisson2d(const CudaExec&, size_type, size_type);
template CsrMatrix<double> poisson2d_9pt(const CudaExec&, size_type, size_type);
template CsrMatrix<double> poisson3d(const CudaExec&, size_type, size_type, size_type);
template CsrMatrix<double> diffusion3d_27pt(const CudaExec&, size_type, size_type, size_type);
template CsrMatrix<double> anisotropic2d(const CudaExec&, size_type, size_type, const Stencil2d&);
template CsrMatrix<double> jumps3d(const CudaExec&, size_type, size_type, size_type, double, int);
template CsrMatrix<double> convdiff3d(const CudaExec&, size_type, size_type, size_type,
                                      const Stencil7&);
template CsrMatrix<double> elasticity3d(const CudaExec&, size_type, const HexStiffness&);
template void elasticity_coordinates(const CudaExec&, size_type, double*);
template void rigid_body_modes(const CudaExec&, size_type, const double*, ModePointers);

}  // namespace strata::kernels::gallery
