// cuSPARSE's SpSV behind strata::CusparseSpsv (the triangular solve's
// reference in the benchmark and the device tests).

#include <cusparse.h>

#include <cstdint>
#include <limits>
#include <memory>
#include <string>

#include "backend/cuda/base/cusparse_util.cuh"
#include "core/cusparse_triangular_reference.hpp"

namespace strata {

struct CusparseSpsv::Impl {
  CudaExec exec;
  size_type rows = 0;
  Array<std::int32_t> row_ptr32;
  Array<double> b_scratch, x_scratch;  // the vectors of the analysis call
  cusparseSpMatDescr_t matrix = nullptr;
  cusparseDnVecDescr_t b = nullptr, x = nullptr;
  cusparseSpSVDescr_t spsv = nullptr;
  std::unique_ptr<cuda_detail::ScratchBuffer> buffer;
  std::size_t buffer_bytes = 0;

  explicit Impl(const CudaExec& e) : exec(e) {}
  ~Impl() {
    if (spsv) cusparseSpSV_destroyDescr(spsv);
    if (b) cusparseDestroyDnVec(b);
    if (x) cusparseDestroyDnVec(x);
    if (matrix) cusparseDestroySpMat(matrix);
  }
};

CusparseSpsv::CusparseSpsv(const CsrMatrix<double>& A, Triangle triangle, bool unit_diagonal) {
  if (!A.executor().is_cuda()) {
    throw location_mismatch("CusparseSpsv: A lives on " + A.executor().name() +
                            "; cuSPARSE needs a device matrix (use A.to(Executor::cuda()))");
  }
  if (A.rows() != A.cols()) {
    throw dimension_mismatch("CusparseSpsv: A must be square, it is " + std::to_string(A.rows()) +
                             " x " + std::to_string(A.cols()));
  }
  if (A.nnz() > std::numeric_limits<std::int32_t>::max()) {
    throw not_implemented("CusparseSpsv: nnz = " + std::to_string(A.nnz()) +
                          " needs 64-bit indices, which the reference path does not set up");
  }
  const CudaExec exec = A.executor().visit([](const auto& e) -> CudaExec {
    if constexpr (std::is_same_v<std::decay_t<decltype(e)>, CudaExec>) return e;
    else throw location_mismatch("unreachable");
  });
  impl_ = std::make_unique<Impl>(exec);
  Impl& m = *impl_;
  m.rows = A.rows();
  m.row_ptr32 = Array<std::int32_t>(Executor(exec), A.rows() + 1);
  cuda_detail::narrow_offsets(exec, A.row_ptr().data(), m.row_ptr32.data(), A.rows() + 1);
  m.b_scratch = Array<double>(Executor(exec), A.rows(), 0.0);
  m.x_scratch = Array<double>(Executor(exec), A.rows(), 0.0);
  STRATA_CUSPARSE_CHECK(cusparseCreateCsr(
      &m.matrix, A.rows(), A.cols(), A.nnz(), m.row_ptr32.data(),
      const_cast<index_type*>(A.col_idx().data()), const_cast<double*>(A.values().data()),
      CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  cusparseFillMode_t fill =
      triangle == Triangle::lower ? CUSPARSE_FILL_MODE_LOWER : CUSPARSE_FILL_MODE_UPPER;
  cusparseDiagType_t diag = unit_diagonal ? CUSPARSE_DIAG_TYPE_UNIT : CUSPARSE_DIAG_TYPE_NON_UNIT;
  STRATA_CUSPARSE_CHECK(
      cusparseSpMatSetAttribute(m.matrix, CUSPARSE_SPMAT_FILL_MODE, &fill, sizeof fill));
  STRATA_CUSPARSE_CHECK(
      cusparseSpMatSetAttribute(m.matrix, CUSPARSE_SPMAT_DIAG_TYPE, &diag, sizeof diag));
  STRATA_CUSPARSE_CHECK(cusparseCreateDnVec(&m.b, m.rows, m.b_scratch.data(), CUDA_R_64F));
  STRATA_CUSPARSE_CHECK(cusparseCreateDnVec(&m.x, m.rows, m.x_scratch.data(), CUDA_R_64F));
  STRATA_CUSPARSE_CHECK(cusparseSpSV_createDescr(&m.spsv));
  cusparseHandle_t handle = exec.context().cusparse();
  const double one = 1.0;
  STRATA_CUSPARSE_CHECK(cusparseSpSV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
                                                m.matrix, m.b, m.x, CUDA_R_64F,
                                                CUSPARSE_SPSV_ALG_DEFAULT, m.spsv,
                                                &m.buffer_bytes));
  m.buffer = std::make_unique<cuda_detail::ScratchBuffer>(exec, m.buffer_bytes);
  STRATA_CUSPARSE_CHECK(cusparseSpSV_analysis(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
                                              m.matrix, m.b, m.x, CUDA_R_64F,
                                              CUSPARSE_SPSV_ALG_DEFAULT, m.spsv,
                                              m.buffer->data()));
}

CusparseSpsv::~CusparseSpsv() = default;

void CusparseSpsv::solve(const Vector<double>& b, Vector<double>& x) {
  Impl& m = *impl_;
  check_location(Executor(m.exec), b.executor(), "b", "A (CusparseSpsv)");
  check_location(Executor(m.exec), x.executor(), "x", "A (CusparseSpsv)");
  if (b.size() != m.rows || x.size() != m.rows) {
    throw dimension_mismatch("CusparseSpsv::solve: A is " + std::to_string(m.rows) + " x " +
                             std::to_string(m.rows) + ", b has " + std::to_string(b.size()) +
                             " and x " + std::to_string(x.size()) + " entries");
  }
  STRATA_CUSPARSE_CHECK(cusparseDnVecSetValues(m.b, const_cast<double*>(b.data())));
  STRATA_CUSPARSE_CHECK(cusparseDnVecSetValues(m.x, x.data()));
  const double one = 1.0;
  STRATA_CUSPARSE_CHECK(cusparseSpSV_solve(m.exec.context().cusparse(),
                                           CUSPARSE_OPERATION_NON_TRANSPOSE, &one, m.matrix, m.b,
                                           m.x, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, m.spsv));
}

std::size_t CusparseSpsv::buffer_bytes() const noexcept { return impl_ ? impl_->buffer_bytes : 0; }

}  // namespace strata
