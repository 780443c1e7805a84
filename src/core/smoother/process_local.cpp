// Hybrid (process-local) Gauss-Seidel and ILU on distributed levels: the
// serial smoother on each process's diagonal block, Jacobi between
// processes (src/core/smoother/process_local.hpp).

#include "core/smoother/process_local.hpp"

#include <cmath>
#include <exception>
#include <string>
#include <vector>

#include "core/distributed/communication.hpp"
#include "strata/distributed/operator.hpp"

namespace strata::detail {

namespace {

/// This process's diagonal block with the l1 norm of each row's
/// off-process entries added to its diagonal entry (away from zero). Setup
/// work, done on the host (a copy each way for a device level). Throws
/// invalid_argument naming the global row whose diagonal entry is missing
/// while the row has off-process entries.
template <class T>
CsrMatrix<T> l1_shifted_diagonal_block(const DistributedCsrMatrix<T>& A) {
  const Executor& exec = A.executor();
  const size_type n = A.local_rows();
  const std::vector<offset_type> ptr = A.diag().row_ptr().to_vector();
  const std::vector<index_type> col = A.diag().col_idx().to_vector();
  std::vector<T> val = A.diag().values().to_vector();
  const std::vector<offset_type> off_ptr = A.offd().row_ptr().to_vector();
  const std::vector<T> off_val = A.offd().values().to_vector();
  for (size_type i = 0; i < n; ++i) {
    T l1{0};
    for (offset_type k = off_ptr[i]; k < off_ptr[i + 1]; ++k) l1 += std::abs(off_val[k]);
    if (l1 == T{0}) continue;
    offset_type d = ptr[i + 1];
    for (offset_type k = ptr[i]; k < ptr[i + 1]; ++k) {
      if (col[k] == i) d = k;
    }
    if (d == ptr[i + 1]) {
      throw invalid_argument("hybrid smoother: row " +
                             std::to_string(A.row_partition().begin() + i) +
                             " has no diagonal entry; expected one in every row");
    }
    val[d] += val[d] < T{0} ? -l1 : l1;
  }
  return CsrMatrix<T>(n, A.local_cols(), Array<offset_type>(exec, ptr),
                      Array<index_type>(exec, col), Array<T>(exec, val));
}

template <class T>
class ProcessLocalSmoother final : public Smoother<T> {
 public:
  ProcessLocalSmoother(std::shared_ptr<const LevelOperator<T>> A,
                       std::unique_ptr<Smoother<T>> local)
      : A_(std::move(A)),
        local_(std::move(local)),
        r_(A_->executor(), A_->rows()),
        dx_(A_->executor(), A_->rows()),
        zero_(A_->executor(), A_->rows(), T{0}) {}

  size_type rows() const override { return A_->rows(); }
  size_type cols() const override { return A_->cols(); }
  const Executor& executor() const override { return A_->executor(); }
  std::string describe() const override {
    return local_->describe() + ", hybrid across processes (l1 off-process)";
  }

  /// x = M^-1 b: the local smoother from zero on each process's rows.
  void apply(const Vector<T>& b, Vector<T>& x) const override { local_->apply(b, x); }

  void smooth(const Vector<T>& b, Vector<T>& x, int sweeps) const override {
    for (int s = 0; s < sweeps; ++s) {
      A_->residual(b, x, r_);
      local_->apply(r_, dx_);
      axpy(T{1}, dx_, x);
    }
  }

  /// The adjoint sweeps (a forward local sweep runs backward here), so
  /// that the V-cycle stays symmetric as it does on one process.
  void post_smooth(const Vector<T>& b, const Vector<T>& x0, Vector<T>& x,
                   int sweeps) const override {
    if (sweeps <= 0) return;
    axpby(T{1}, x0, T{0}, x);
    for (int s = 0; s < sweeps; ++s) {
      A_->residual(b, x, r_);
      local_->post_smooth(r_, zero_, dx_, 1);
      axpy(T{1}, dx_, x);
    }
  }

 private:
  std::shared_ptr<const LevelOperator<T>> A_;
  std::unique_ptr<Smoother<T>> local_;
  mutable Vector<T> r_, dx_;
  Vector<T> zero_;
};

}  // namespace

template <class T>
std::unique_ptr<Smoother<T>> make_process_local(std::shared_ptr<const LevelOperator<T>> A,
                                                const LocalSmootherFactory<T>& make_local) {
  const auto* distributed = dynamic_cast<const DistributedOperator<T>*>(A.get());
  require(distributed != nullptr,
          "hybrid smoother: the level is " + A->kind() + "; expected a distributed CSR level");
  const DistributedCsrMatrix<T>& matrix = distributed->matrix();
  std::unique_ptr<Smoother<T>> local;
  std::exception_ptr failure;
  try {
    local = make_local(std::make_shared<const CsrOperator<T>>(l1_shifted_diagonal_block(matrix)));
  } catch (...) {
    failure = std::current_exception();
  }
  agree_on_failure(matrix.communicator(), failure, "hybrid smoother");
  return std::make_unique<ProcessLocalSmoother<T>>(std::move(A), std::move(local));
}

template std::unique_ptr<Smoother<double>> make_process_local<double>(
    std::shared_ptr<const LevelOperator<double>>, const LocalSmootherFactory<double>&);

}  // namespace strata::detail
