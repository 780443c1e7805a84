// The Gauss-Seidel smoothers: hybrid l1 Gauss-Seidel (block-local,
// thread-count independent), multicolor Gauss-Seidel on a Jones-Plassmann-
// Luby coloring, and two-stage Gauss-Seidel (Jacobi sweeps for the
// triangular solve). One class runs all three: they differ only in what a
// forward or backward sweep is, and share the sweep order, the adjoint
// post-smoothing and the checks.

#include "core/solver/diagonal.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "core/smoother/gauss_seidel.hpp"
#include "kernels/smoother/gauss_seidel_kernels.hpp"
#include "strata/core/error.hpp"
#include "strata/matrix/transpose.hpp"

namespace strata {

const char* to_string(GaussSeidelSweep sweep) noexcept {
  switch (sweep) {
    case GaussSeidelSweep::forward:
      return "forward";
    case GaussSeidelSweep::backward:
      return "backward";
    case GaussSeidelSweep::symmetric:
      return "symmetric";
  }
  return "unknown";
}

namespace detail {

namespace {

namespace ks = kernels::smoother;

template <class T>
void check_operands(const LevelOperator<T>& A, const Vector<T>& b, const Vector<T>& x,
                    const std::string& who) {
  check_location(A.executor(), b.executor(), "b", who.c_str());
  check_location(A.executor(), x.executor(), "x", who.c_str());
  if (b.size() != A.rows() || x.size() != A.cols()) {
    throw dimension_mismatch(who + ": A is " + std::to_string(A.rows()) + " x " +
                             std::to_string(A.cols()) + ", b has " + std::to_string(b.size()) +
                             " and x has " + std::to_string(x.size()) + " entries");
  }
}

/// The CSR matrix of a square level, or invalid_argument naming the kind.
template <class T>
const CsrMatrix<T>& square_csr(const LevelOperator<T>& A, const std::string& who) {
  const CsrMatrix<T>& M = csr_matrix(A, who.c_str());
  if (M.rows() != M.cols()) {
    throw dimension_mismatch(who + ": A must be square, it is " + std::to_string(M.rows()) +
                             " x " + std::to_string(M.cols()));
  }
  return M;
}

void check_omega(double omega, const std::string& who) {
  require(omega > 0 && omega < 2 && std::isfinite(omega),
          who + ": omega must lie in (0, 2), got " + std::to_string(omega));
}

[[noreturn]] void bad_diagonal(const std::string& who, size_type row, size_type rows) {
  throw invalid_argument(who + ": row " + std::to_string(row + 1) + " (1-based) of " +
                         std::to_string(rows) +
                         " has a zero, missing or non-finite diagonal entry; " + who +
                         " divides by it");
}

/// What a forward and a backward sweep are for one kind of Gauss-Seidel.
template <class T>
class SweepKind {
 public:
  virtual ~SweepKind() = default;
  virtual void sweep(const Vector<T>& b, Vector<T>& x, bool backward) const = 0;
  virtual std::string describe() const = 0;
};

/// Hybrid l1 Gauss-Seidel on blocks of block_rows consecutive rows.
template <class T>
class HybridSweep final : public SweepKind<T> {
 public:
  HybridSweep(const CsrMatrix<T>& A, const GaussSeidelParams& p, const std::string& who)
      : A_(A), block_rows_(p.block_rows), d_(A.executor(), A.rows()), x_old_(A.executor(), A.rows()) {
    require(p.block_rows >= 1,
            who + ": block_rows must be >= 1, got " + std::to_string(p.block_rows));
    const size_type bad = A.executor().visit([&](const auto& e) {
      return ks::hybrid_gs_scaling(e, A.rows(), block_rows_, A.row_ptr().data(),
                                   A.col_idx().data(), A.values().data(), T(p.omega), d_.data());
    });
    if (bad >= 0) bad_diagonal(who, bad, A.rows());
  }
  void sweep(const Vector<T>& b, Vector<T>& x, bool backward) const override {
    // Couplings to other blocks read x from the start of the sweep, so
    // blocks are independent and the result does not depend on the threads.
    axpby(T{1}, x, T{0}, x_old_);
    A_.executor().visit([&](const auto& e) {
      ks::hybrid_gs_sweep(e, A_.rows(), block_rows_, A_.row_ptr().data(), A_.col_idx().data(),
                          A_.values().data(), d_.data(), b.data(), x_old_.data(), x.data(),
                          backward);
    });
  }
  std::string describe() const override {
    return "hybrid l1, " + std::to_string((A_.rows() + block_rows_ - 1) / block_rows_) +
           " blocks of " + std::to_string(block_rows_) + " rows";
  }

 private:
  const CsrMatrix<T>& A_;
  size_type block_rows_;
  Vector<T> d_;               // omega / (a_ii + off-block l1 norm)
  mutable Vector<T> x_old_;  // x at the start of the sweep
};

/// Multicolor Gauss-Seidel: one parallel update per color.
template <class T>
class MulticolorSweep final : public SweepKind<T> {
 public:
  MulticolorSweep(const LevelOperator<T>& level, const CsrMatrix<T>& A,
                  const MulticolorGaussSeidelParams& p, const std::string& who)
      : A_(A),
        d_(checked_diagonal_scaling(level, DiagonalScaling::inverse_diagonal, who.c_str())),
        order_(A.executor(), A.rows()) {
    if (p.omega != 1.0) scale(T(p.omega), d_);
    Array<int> color = color_rows(A, p.seed, colors_);
    Array<int> sorted(A.executor(), A.rows());
    Array<offset_type> start(A.executor(), colors_ + 1);
    A.executor().visit([&](const auto& e) {
      ks::rows_by_color(e, A.rows(), colors_, color.data(), sorted.data(), order_.data(),
                        start.data());
    });
    color_start_ = start.to_vector();
  }
  void sweep(const Vector<T>& b, Vector<T>& x, bool backward) const override {
    for (int s = 0; s < colors_; ++s) {
      const int c = backward ? colors_ - 1 - s : s;
      const size_type count = color_start_[c + 1] - color_start_[c];
      if (count == 0) continue;
      A_.executor().visit([&](const auto& e) {
        ks::multicolor_gs_color(e, count, order_.data() + color_start_[c], A_.row_ptr().data(),
                                A_.col_idx().data(), A_.values().data(), d_.data(), b.data(),
                                x.data());
      });
    }
  }
  std::string describe() const override {
    int used = 0;
    for (int c = 0; c < colors_; ++c) used += color_start_[c + 1] > color_start_[c];
    return "multicolor, " + std::to_string(used) + " colors";
  }

  /// The Jones-Plassmann coloring with Luby's random keys on A's executor.
  static Array<int> color_rows(const CsrMatrix<T>& A, std::uint64_t seed, int& colors) {
    const size_type n = A.rows();
    Array<int> color(A.executor(), n, -1), candidate(A.executor(), n);
    // The graph of A + A^T: a coupling in either direction separates colors.
    const CsrMatrix<T> At = transpose(A);
    size_type left = n;
    // Every round colors at least one row (see coloring_commit), so at most n rounds.
    for (size_type round = 0; left > 0; ++round) {
      if (round > n) {
        throw invalid_argument("multicolor Gauss-Seidel: the coloring made no progress after " +
                               std::to_string(round) + " rounds with " + std::to_string(left) +
                               " rows left; expected at least one row colored each round");
      }
      left = A.executor().visit([&](const auto& e) {
        ks::coloring_candidates(e, n, A.row_ptr().data(), A.col_idx().data(), At.row_ptr().data(),
                                At.col_idx().data(), seed, color.data(), candidate.data());
        return ks::coloring_commit(e, n, A.row_ptr().data(), A.col_idx().data(),
                                   At.row_ptr().data(), At.col_idx().data(), candidate.data(),
                                   color.data());
      });
    }
    colors = A.executor().visit([&](const auto& e) { return ks::color_count(e, n, color.data()); });
    return color;
  }

 private:
  const CsrMatrix<T>& A_;
  Vector<T> d_;  // omega / a_ii
  Array<index_type> order_;
  std::vector<offset_type> color_start_;  // host copy: the colors' ranges of order_
  int colors_ = 0;
};

/// Two-stage Gauss-Seidel: x += omega y, y from inner Jacobi sweeps on
/// (D + L) y = b - A x (backward: D + U).
template <class T>
class TwoStageSweep final : public SweepKind<T> {
 public:
  TwoStageSweep(const LevelOperator<T>& level, const CsrMatrix<T>& A,
                const TwoStageGaussSeidelParams& p, const std::string& who)
      : level_(level),
        A_(A),
        omega_(p.omega),
        inner_(p.inner_sweeps),
        l1_(p.l1),
        dinv_(checked_diagonal_scaling(
            level, p.l1 ? DiagonalScaling::inverse_l1_norm : DiagonalScaling::inverse_diagonal,
            who.c_str())),
        r_(A.executor(), A.rows()),
        y_(A.executor(), A.rows()),
        z_(A.executor(), A.rows()) {
    require(p.inner_sweeps >= 0,
            who + ": inner_sweeps must be >= 0, got " + std::to_string(p.inner_sweeps));
  }
  void sweep(const Vector<T>& b, Vector<T>& x, bool backward) const override {
    level_.residual(b, x, r_);
    const Vector<T>* y = nullptr;
    if (inner_ == 0) {
      pointwise_multiply(dinv_, r_, y_);
      y = &y_;
    }
    for (int k = 0; k < inner_; ++k) {
      Vector<T>& out = (k % 2 == 0) ? y_ : z_;
      A_.executor().visit([&](const auto& e) {
        ks::two_stage_inner(e, A_.rows(), A_.row_ptr().data(), A_.col_idx().data(),
                            A_.values().data(), dinv_.data(), r_.data(),
                            k == 0 ? static_cast<const T*>(nullptr) : y->data(), out.data(),
                            backward);
      });
      y = &out;
    }
    axpy(T(omega_), *y, x);
  }
  std::string describe() const override {
    return "two-stage, " + std::to_string(inner_) + " inner Jacobi sweeps" +
           (l1_ ? ", l1 diagonal" : "");
  }

 private:
  const LevelOperator<T>& level_;
  const CsrMatrix<T>& A_;
  double omega_;
  int inner_;
  bool l1_;
  Vector<T> dinv_;
  mutable Vector<T> r_, y_, z_;  // residual, inner iterates (ping-pong)
};

template <class T>
class GaussSeidelSmoother final : public Smoother<T> {
 public:
  template <class Params>
  GaussSeidelSmoother(std::shared_ptr<const LevelOperator<T>> A, const Params& p,
                      std::string name)
      : A_(std::move(A)), sweep_(p.sweep), name_(std::move(name)) {
    require(A_ != nullptr, name_ + ": the operator is null");
    check_omega(p.omega, name_);
    const CsrMatrix<T>& M = square_csr(*A_, name_);
    if constexpr (std::is_same_v<Params, GaussSeidelParams>) {
      kind_ = std::make_unique<HybridSweep<T>>(M, p, name_);
    } else if constexpr (std::is_same_v<Params, MulticolorGaussSeidelParams>) {
      kind_ = std::make_unique<MulticolorSweep<T>>(*A_, M, p, name_);
    } else {
      kind_ = std::make_unique<TwoStageSweep<T>>(*A_, M, p, name_);
    }
    omega_ = p.omega;
  }
  size_type rows() const override { return A_->rows(); }
  size_type cols() const override { return A_->cols(); }
  const Executor& executor() const override { return A_->executor(); }
  std::string describe() const override {
    return name_ + "(" + kind_->describe() + ", " + to_string(sweep_) +
           ", omega=" + std::to_string(omega_) + ")";
  }

  void apply(const Vector<T>& b, Vector<T>& x) const override {
    check_operands(*A_, b, x, name_);
    x.fill(T{0});
    run(b, x, sweep_);
  }
  void smooth(const Vector<T>& b, Vector<T>& x, int sweeps) const override {
    check_operands(*A_, b, x, name_);
    for (int s = 0; s < sweeps; ++s) run(b, x, sweep_);
  }
  void post_smooth(const Vector<T>& b, const Vector<T>& x0, Vector<T>& x,
                   int sweeps) const override {
    check_operands(*A_, b, x, name_);
    check_operands(*A_, b, x0, name_);
    if (sweeps <= 0) return;
    axpby(T{1}, x0, T{0}, x);
    const GaussSeidelSweep adjoint = sweep_ == GaussSeidelSweep::forward    ? GaussSeidelSweep::backward
                                     : sweep_ == GaussSeidelSweep::backward ? GaussSeidelSweep::forward
                                                                            : sweep_;
    for (int s = 0; s < sweeps; ++s) run(b, x, adjoint);
  }

 private:
  void run(const Vector<T>& b, Vector<T>& x, GaussSeidelSweep sweep) const {
    if (sweep != GaussSeidelSweep::backward) kind_->sweep(b, x, false);
    if (sweep != GaussSeidelSweep::forward) kind_->sweep(b, x, true);
  }

  std::shared_ptr<const LevelOperator<T>> A_;
  GaussSeidelSweep sweep_;
  std::string name_;
  double omega_ = 1;
  std::unique_ptr<SweepKind<T>> kind_;
};

}  // namespace

template <class T>
std::unique_ptr<Smoother<T>> make_gauss_seidel(std::shared_ptr<const LevelOperator<T>> A,
                                               const GaussSeidelParams& params) {
  return std::make_unique<GaussSeidelSmoother<T>>(std::move(A), params,
                                                  smoother_name(SmootherParams(params)));
}
template <class T>
std::unique_ptr<Smoother<T>> make_gauss_seidel(std::shared_ptr<const LevelOperator<T>> A,
                                               const MulticolorGaussSeidelParams& params) {
  return std::make_unique<GaussSeidelSmoother<T>>(std::move(A), params,
                                                  smoother_name(SmootherParams(params)));
}
template <class T>
std::unique_ptr<Smoother<T>> make_gauss_seidel(std::shared_ptr<const LevelOperator<T>> A,
                                               const TwoStageGaussSeidelParams& params) {
  return std::make_unique<GaussSeidelSmoother<T>>(std::move(A), params,
                                                  smoother_name(SmootherParams(params)));
}

template <class T>
std::vector<int> multicolor_coloring(const CsrMatrix<T>& A, std::uint64_t seed, int& colors) {
  return MulticolorSweep<T>::color_rows(A, seed, colors).to_vector();
}

template std::unique_ptr<Smoother<double>> make_gauss_seidel<double>(
    std::shared_ptr<const LevelOperator<double>>, const GaussSeidelParams&);
template std::unique_ptr<Smoother<double>> make_gauss_seidel<double>(
    std::shared_ptr<const LevelOperator<double>>, const MulticolorGaussSeidelParams&);
template std::unique_ptr<Smoother<double>> make_gauss_seidel<double>(
    std::shared_ptr<const LevelOperator<double>>, const TwoStageGaussSeidelParams&);
template std::vector<int> multicolor_coloring<double>(const CsrMatrix<double>&, std::uint64_t,
                                                      int&);

}  // namespace detail
}  // namespace strata
