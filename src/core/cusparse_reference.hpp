#pragma once
/// \file
/// cuSPARSE's CSR SpMV on a Strata matrix: the reference point our own SpMV
/// is measured against (`strata spmv`, the benchmarks). Not used by the
/// solvers, and not part of the installed API: an internal header that the
/// program, the tests and the benchmarks reach through the include path
/// ${PROJECT_SOURCE_DIR}/src. The definitions are in the library
/// (backend/cuda/matrix/cusparse_reference.cu, or core/cusparse_reference_stub.cpp
/// without CUDA), beside the pool and streams they use.

#include <cstddef>
#include <memory>

#include "strata/matrix/csr.hpp"

namespace strata {

/// y = alpha*A*x + beta*y through cusparseSpMV (CUSPARSE_SPMV_CSR_ALG1).
/// Row offsets are converted once to 32-bit when nnz < 2^31, which is how
/// cuSPARSE is usually called and how its published bandwidth was measured.
class CusparseSpmv {
 public:
  /// A must live on a CUDA executor (location_mismatch otherwise); throws
  /// not_compiled in a build without CUDA.
  explicit CusparseSpmv(const CsrMatrix<double>& A);
  ~CusparseSpmv();
  CusparseSpmv(const CusparseSpmv&) = delete;
  CusparseSpmv& operator=(const CusparseSpmv&) = delete;

  void apply(double alpha, const Vector<double>& x, double beta, Vector<double>& y);
  /// Scratch memory cuSPARSE asked for, in bytes.
  std::size_t buffer_bytes() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace strata
