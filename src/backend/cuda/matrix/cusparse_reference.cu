// cuSPARSE's SpMV behind strata::CusparseSpmv (the benchmark's reference).

#include <cusparse.h>

#include <limits>
#include <memory>
#include <string>

#include "backend/cuda/base/cusparse_util.cuh"
#include "core/cusparse_reference.hpp"

namespace strata {

namespace cuda_detail {
void narrow_offsets(const CudaExec& exec, const offset_type* rp, std::int32_t* rp32,
                    size_type n) {
  parallel_for(exec, n,
               [=] __device__(size_type i) { rp32[i] = static_cast<std::int32_t>(rp[i]); });
}
}  // namespace cuda_detail

struct CusparseSpmv::Impl {
  CudaExec exec;
  size_type rows = 0, cols = 0;
  Array<std::int32_t> row_ptr32;
  const CsrMatrix<double>* A = nullptr;
  cusparseSpMatDescr_t matrix = nullptr;
  cusparseDnVecDescr_t x = nullptr, y = nullptr;
  std::unique_ptr<cuda_detail::ScratchBuffer> buffer;
  std::size_t buffer_bytes = 0;
  bool preprocessed = false;

  explicit Impl(const CudaExec& e) : exec(e) {}
  ~Impl() {
    if (x) cusparseDestroyDnVec(x);
    if (y) cusparseDestroyDnVec(y);
    if (matrix) cusparseDestroySpMat(matrix);
  }
};

CusparseSpmv::CusparseSpmv(const CsrMatrix<double>& A) {
  if (!A.executor().is_cuda()) {
    throw location_mismatch("CusparseSpmv: A lives on " + A.executor().name() +
                            "; cuSPARSE needs a device matrix (use A.to(Executor::cuda()))");
  }
  if (A.nnz() > std::numeric_limits<std::int32_t>::max()) {
    throw not_implemented("CusparseSpmv: nnz = " + std::to_string(A.nnz()) +
                          " needs 64-bit indices, which the reference path does not set up");
  }
  const CudaExec exec = A.executor().visit([](const auto& e) -> CudaExec {
    if constexpr (std::is_same_v<std::decay_t<decltype(e)>, CudaExec>) return e;
    else throw location_mismatch("unreachable");
  });
  impl_ = std::make_unique<Impl>(exec);
  impl_->rows = A.rows();
  impl_->cols = A.cols();
  impl_->A = &A;
  impl_->row_ptr32 = Array<std::int32_t>(Executor(exec), A.rows() + 1);
  std::int32_t* rp32 = impl_->row_ptr32.data();
  cuda_detail::narrow_offsets(exec, A.row_ptr().data(), rp32, A.rows() + 1);
  STRATA_CUSPARSE_CHECK(cusparseCreateCsr(
      &impl_->matrix, A.rows(), A.cols(), A.nnz(), rp32, const_cast<index_type*>(A.col_idx().data()),
      const_cast<double*>(A.values().data()), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
      CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
}

CusparseSpmv::~CusparseSpmv() = default;

void CusparseSpmv::apply(double alpha, const Vector<double>& x, double beta, Vector<double>& y) {
  Impl& m = *impl_;
  check_location(Executor(m.exec), x.executor(), "x", "A (CusparseSpmv)");
  check_location(Executor(m.exec), y.executor(), "y", "A (CusparseSpmv)");
  if (x.size() != m.cols || y.size() != m.rows) {
    throw dimension_mismatch("CusparseSpmv::apply: A is " + std::to_string(m.rows) + " x " +
                             std::to_string(m.cols) + ", x has " + std::to_string(x.size()) +
                             " and y " + std::to_string(y.size()) + " entries");
  }
  cusparseHandle_t handle = m.exec.context().cusparse();
  if (!m.x) {
    STRATA_CUSPARSE_CHECK(cusparseCreateDnVec(&m.x, m.cols, const_cast<double*>(x.data()), CUDA_R_64F));
    STRATA_CUSPARSE_CHECK(cusparseCreateDnVec(&m.y, m.rows, y.data(), CUDA_R_64F));
  } else {
    STRATA_CUSPARSE_CHECK(cusparseDnVecSetValues(m.x, const_cast<double*>(x.data())));
    STRATA_CUSPARSE_CHECK(cusparseDnVecSetValues(m.y, y.data()));
  }
  if (!m.buffer) {
    STRATA_CUSPARSE_CHECK(cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha,
                                                  m.matrix, m.x, &beta, m.y, CUDA_R_64F,
                                                  CUSPARSE_SPMV_CSR_ALG1, &m.buffer_bytes));
    m.buffer = std::make_unique<cuda_detail::ScratchBuffer>(m.exec, m.buffer_bytes);
  }
  if (!m.preprocessed) {
    STRATA_CUSPARSE_CHECK(cusparseSpMV_preprocess(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha,
                                                  m.matrix, m.x, &beta, m.y, CUDA_R_64F,
                                                  CUSPARSE_SPMV_CSR_ALG1, m.buffer->data()));
    m.preprocessed = true;
  }
  STRATA_CUSPARSE_CHECK(cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, m.matrix,
                                     m.x, &beta, m.y, CUDA_R_64F, CUSPARSE_SPMV_CSR_ALG1,
                                     m.buffer->data()));
}

std::size_t CusparseSpmv::buffer_bytes() const noexcept { return impl_ ? impl_->buffer_bytes : 0; }

}  // namespace strata
