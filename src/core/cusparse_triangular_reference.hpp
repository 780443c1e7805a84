#pragma once
/// \file
/// cuSPARSE's sparse triangular solve (cusparseSpSV) on a Strata matrix: the
/// reference point TriangularSolver is measured against
/// (bench/triangular.cpp, the device tests). Not used by the solvers and not
/// part of the installed API: an internal header that tests and benchmarks
/// reach through ${PROJECT_SOURCE_DIR}/src. Defined in
/// backend/cuda/matrix/cusparse_triangular_reference.cu, or in
/// core/cusparse_triangular_reference_stub.cpp without CUDA.

#include <cstddef>
#include <memory>

#include "strata/matrix/csr.hpp"
#include "strata/matrix/triangular.hpp"

namespace strata {

/// x = T^-1 b for the triangle T of A through cusparseSpSV_analysis (in the
/// constructor) and cusparseSpSV_solve (CUSPARSE_SPSV_ALG_DEFAULT), with the
/// fill mode and diagonal type set as attributes of the matrix, so entries
/// of the other triangle are ignored, as in TriangularSolver.
class CusparseSpsv {
 public:
  /// A must live on a CUDA executor (location_mismatch otherwise), be
  /// square with ascending columns in every row (ILU factors are), and have
  /// fewer than 2^31 entries; throws not_compiled in a build without CUDA.
  /// A must outlive this object (cuSPARSE keeps its arrays).
  CusparseSpsv(const CsrMatrix<double>& A, Triangle triangle, bool unit_diagonal);
  ~CusparseSpsv();
  CusparseSpsv(const CusparseSpsv&) = delete;
  CusparseSpsv& operator=(const CusparseSpsv&) = delete;

  /// x = T^-1 b (b and x on A's device, separate vectors).
  void solve(const Vector<double>& b, Vector<double>& x);
  /// Scratch memory cuSPARSE asked for, in bytes.
  std::size_t buffer_bytes() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace strata
