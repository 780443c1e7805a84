// Jacobi, l1-Jacobi and Chebyshev smoothers, on the level-operator contract:
// they need A's products, its diagonal scalings and (Jacobi) its fused
// sweep, whatever kind of level A is. On a level with square diagonal
// blocks they precondition by the inverted blocks instead (point-block
// smoothing), unless the parameters' point_block is false.

#include <cmath>
#include <string>

#include "core/single_precision.hpp"
#include "core/smoother/gauss_seidel.hpp"
#include "core/smoother/ilu_smoother.hpp"
#include "core/smoother/process_local.hpp"
#include "core/solver/diagonal.hpp"
#include "kernels/matrix/block_diagonal_kernels.hpp"
#include "kernels/smoother/smoother_kernels.hpp"
#include "strata/smoother/smoother.hpp"
#include "strata/solver/spectral.hpp"

namespace strata {

namespace {

template <class T>
void check_operands(const LevelOperator<T>& A, const Vector<T>& b, const Vector<T>& x,
                    const char* who) {
  check_location(A.executor(), b.executor(), "b", who);
  check_location(A.executor(), x.executor(), "x", who);
  if (b.size() != A.rows() || x.size() != A.cols()) {
    throw dimension_mismatch(std::string(who) + ": A is " + std::to_string(A.rows()) + " x " +
                             std::to_string(A.cols()) + ", b has " + std::to_string(b.size()) +
                             " and x has " + std::to_string(x.size()) + " entries");
  }
}

/// What to_single() needs of the operator it is given: this smoother's,
/// rounded (same shape and executor).
template <class T>
void check_single_operator(const LevelOperator<T>& A, const LevelOperator<float>& single,
                           const std::string& who) {
  check_location(A.executor(), single.executor(), "the single-precision operator", who.c_str());
  if (single.rows() != A.rows() || single.cols() != A.cols()) {
    throw dimension_mismatch(who + ": to_single needs this smoother's operator (" +
                             std::to_string(A.rows()) + " x " + std::to_string(A.cols()) +
                             ") in single precision, got " + std::to_string(single.rows()) + " x " +
                             std::to_string(single.cols()));
  }
}

/// Weighted Jacobi and l1-Jacobi: x <- x + d .* (b - A x), d = omega / diag.
template <class T>
class DiagonalSmoother final : public Smoother<T> {
 public:
  DiagonalSmoother(std::shared_ptr<const LevelOperator<T>> A, double omega, DiagonalScaling scaling,
                   std::string name)
      // `name` is copied, not moved: the order in which the arguments are
      // evaluated is unspecified, and a move first left the message nameless.
      : DiagonalSmoother(A, omega, detail::checked_diagonal_scaling(*A, scaling, name.c_str()),
                         name) {}
  /// With the unweighted scaling d computed already.
  DiagonalSmoother(std::shared_ptr<const LevelOperator<T>> A, double omega, Vector<T> d,
                   std::string name)
      : A_(std::move(A)), d_(std::move(d)), t_(A_->executor(), A_->rows()), name_(std::move(name)) {
    require(omega > 0 && std::isfinite(omega),
            name_ + ": omega must be positive, got " + std::to_string(omega));
    if (omega != 1.0) scale(T(omega), d_);
    name_ += "(omega=" + std::to_string(omega) + ")";
  }
  /// Rounded from a smoother of another precision: `weighted` is omega d
  /// and `name` the whole description.
  struct Rounded {};
  DiagonalSmoother(Rounded, std::shared_ptr<const LevelOperator<T>> A, Vector<T> weighted,
                   std::string name)
      : A_(std::move(A)),
        d_(std::move(weighted)),
        t_(A_->executor(), A_->rows()),
        name_(std::move(name)) {}
  size_type rows() const override { return A_->rows(); }
  size_type cols() const override { return A_->cols(); }
  const Executor& executor() const override { return A_->executor(); }
  std::string describe() const override { return name_; }
  const Vector<T>* diagonal_scaling() const override { return &d_; }
  std::unique_ptr<Smoother<float>> to_single(
      std::shared_ptr<const LevelOperator<float>> A) const override {
    check_single_operator(*A_, *A, name_);
    return std::make_unique<DiagonalSmoother<float>>(
        typename DiagonalSmoother<float>::Rounded{}, std::move(A),
        Vector<float>(detail::single_copy(d_.values(), name_)), name_);
  }

  void apply(const Vector<T>& b, Vector<T>& x) const override {
    check_operands(*A_, b, x, name_.c_str());
    pointwise_multiply(d_, b, x);
  }

  void smooth(const Vector<T>& b, Vector<T>& x, int sweeps) const override {
    check_operands(*A_, b, x, name_.c_str());
    for (int s = 0; s < sweeps; ++s) {
      A_->apply(x, t_);
      executor().visit([&](const auto& e) {
        kernels::smoother::jacobi_correct(e, A_->rows(), T{1}, d_.data(), b.data(), t_.data(),
                                          x.data());
      });
    }
  }

  void sweep_from(const Vector<T>& b, const Vector<T>& x0, Vector<T>& x) const override {
    check_operands(*A_, b, x, name_.c_str());
    check_operands(*A_, b, x0, name_.c_str());
    require(x0.data() != x.data() || x.size() == 0,
            name_ + ": sweep_from needs x0 and x in separate storage");
    A_->jacobi_sweep(d_, b, x0, x);
  }

 private:
  std::shared_ptr<const LevelOperator<T>> A_;
  Vector<T> d_;
  mutable Vector<T> t_;  // A x, scratch
  std::string name_;
};

/// Point-block Jacobi and block l1-Jacobi: x <- x + omega D^-1 (b - A x)
/// with D^-1 the inverted diagonal blocks of a block level.
template <class T>
class BlockJacobiSmoother final : public Smoother<T> {
 public:
  BlockJacobiSmoother(std::shared_ptr<const LevelOperator<T>> A, double omega,
                      BlockDiagonal<T> inverse, std::string name)
      : A_(std::move(A)),
        inverse_(std::move(inverse)),
        omega_(T(omega)),
        t_(A_->executor(), A_->rows()),
        name_(std::move(name)) {
    require(omega > 0 && std::isfinite(omega),
            name_ + ": omega must be positive, got " + std::to_string(omega));
    name_ += "(omega=" + std::to_string(omega) + ", " + std::to_string(inverse_.block_size()) +
             "x" + std::to_string(inverse_.block_size()) + " blocks)";
  }
  /// Rounded from a smoother of another precision (`name`: the whole
  /// description).
  struct Rounded {};
  BlockJacobiSmoother(Rounded, std::shared_ptr<const LevelOperator<T>> A, T omega,
                      BlockDiagonal<T> inverse, std::string name)
      : A_(std::move(A)),
        inverse_(std::move(inverse)),
        omega_(omega),
        t_(A_->executor(), A_->rows()),
        name_(std::move(name)) {}
  size_type rows() const override { return A_->rows(); }
  size_type cols() const override { return A_->cols(); }
  const Executor& executor() const override { return A_->executor(); }
  std::string describe() const override { return name_; }
  std::unique_ptr<Smoother<float>> to_single(
      std::shared_ptr<const LevelOperator<float>> A) const override {
    check_single_operator(*A_, *A, name_);
    return std::make_unique<BlockJacobiSmoother<float>>(
        typename BlockJacobiSmoother<float>::Rounded{}, std::move(A), float(omega_),
        inverse_.to_single(), name_);
  }

  void apply(const Vector<T>& b, Vector<T>& x) const override {
    check_operands(*A_, b, x, name_.c_str());
    inverse_.apply(omega_, b, T{0}, x);
  }

  void smooth(const Vector<T>& b, Vector<T>& x, int sweeps) const override {
    check_operands(*A_, b, x, name_.c_str());
    for (int s = 0; s < sweeps; ++s) {
      A_->residual(b, x, t_);
      inverse_.apply(omega_, t_, T{1}, x);
    }
  }

  void sweep_from(const Vector<T>& b, const Vector<T>& x0, Vector<T>& x) const override {
    check_operands(*A_, b, x, name_.c_str());
    check_operands(*A_, b, x0, name_.c_str());
    require(x0.data() != x.data() || x.size() == 0,
            name_ + ": sweep_from needs x0 and x in separate storage");
    A_->block_jacobi_sweep(inverse_, omega_, b, x0, x);
  }

 private:
  std::shared_ptr<const LevelOperator<T>> A_;
  BlockDiagonal<T> inverse_;
  T omega_;
  mutable Vector<T> t_;  // b - A x, scratch
  std::string name_;
};

/// Whether a smoother with `point_block` set uses A's diagonal blocks.
template <class T>
bool uses_blocks(const LevelOperator<T>& A, bool point_block) {
  return point_block && A.diagonal_block_size() > 0;
}

/// Chebyshev smoothing in D^-1 A, first or fourth kind (see ChebyshevParams).
/// Both run the same two fused kernels with different coefficients:
///   r = D^-1 (b - A x), p = c_0 r, x += p;
///   then degree-1 times: r -= D^-1 A p, p = c_keep p + c_new r, x += p.
template <class T>
class ChebyshevSmoother final : public Smoother<T> {
 public:
  ChebyshevSmoother(std::shared_ptr<const LevelOperator<T>> A, const ChebyshevParams& p,
                    const Reduction<T>& reduction)
      : A_(std::move(A)),
        params_(p),
        blocks_(uses_blocks(*A_, p.point_block)),
        r_(A_->executor(), A_->rows()),
        p_(A_->executor(), A_->rows()),
        t_(A_->executor(), A_->rows()) {
    require(p.degree >= 1, "chebyshev: degree must be >= 1, got " + std::to_string(p.degree));
    require(p.upper_fraction > 0,
            "chebyshev: upper_fraction must be > 0, got " + std::to_string(p.upper_fraction));
    if (p.kind == ChebyshevParams::Kind::first) {
      require(p.lower_fraction > 0 && p.lower_fraction < p.upper_fraction,
              "chebyshev: lower_fraction must lie in (0, upper_fraction), got " +
                  std::to_string(p.lower_fraction));
    }
    if (blocks_) {
      inverse_ = A_->block_diagonal(BlockDiagonalKind::plain);
      rho_ = p.symmetric ? lanczos_max_eigenvalue(*A_, inverse_, p.estimation_steps, reduction)
                         : arnoldi_spectral_radius(*A_, inverse_, std::min(p.estimation_steps, 10),
                                                   reduction);
    } else {
      d_ = detail::checked_diagonal_scaling(*A_, DiagonalScaling::inverse_diagonal, "chebyshev");
      rho_ = p.symmetric
                 ? lanczos_max_eigenvalue(*A_, p.estimation_steps, reduction)
                 : arnoldi_spectral_radius(*A_, std::min(p.estimation_steps, 10), reduction);
    }
    require(rho_ > 0 && std::isfinite(rho_),
            "chebyshev: the estimated largest eigenvalue of D^-1 A is " + std::to_string(rho_) +
                "; expected a positive number");
  }
  /// Rounded from a smoother of another precision: its D (scalar `d` or
  /// block `inverse`) and estimate `rho` taken as they are.
  struct Rounded {};
  ChebyshevSmoother(Rounded, std::shared_ptr<const LevelOperator<T>> A, const ChebyshevParams& p,
                    bool blocks, Vector<T> d, BlockDiagonal<T> inverse, double rho)
      : A_(std::move(A)),
        params_(p),
        blocks_(blocks),
        d_(std::move(d)),
        inverse_(std::move(inverse)),
        rho_(rho),
        r_(A_->executor(), A_->rows()),
        p_(A_->executor(), A_->rows()),
        t_(A_->executor(), A_->rows()) {}
  std::unique_ptr<Smoother<float>> to_single(
      std::shared_ptr<const LevelOperator<float>> A) const override {
    check_single_operator(*A_, *A, "chebyshev");
    return std::make_unique<ChebyshevSmoother<float>>(
        typename ChebyshevSmoother<float>::Rounded{}, std::move(A), params_, blocks_,
        blocks_ ? Vector<float>() : Vector<float>(detail::single_copy(d_.values(), "chebyshev")),
        blocks_ ? inverse_.to_single() : BlockDiagonal<float>(), rho_);
  }
  size_type rows() const override { return A_->rows(); }
  size_type cols() const override { return A_->cols(); }
  const Executor& executor() const override { return A_->executor(); }
  std::string describe() const override {
    const std::string blocks = blocks_ ? ", " + std::to_string(inverse_.block_size()) + "x" +
                                             std::to_string(inverse_.block_size()) + " blocks"
                                       : "";
    return std::string(blocks_ ? "block chebyshev(" : "chebyshev(") +
           (params_.kind == ChebyshevParams::Kind::fourth ? "fourth kind" : "first kind") +
           ", degree=" + std::to_string(params_.degree) + ", rho=" + std::to_string(rho_) + blocks +
           ")";
  }
  /// The estimated largest eigenvalue of D^-1 A (before upper_fraction).
  double rho() const noexcept { return rho_; }

  void apply(const Vector<T>& b, Vector<T>& x) const override {
    check_operands(*A_, b, x, "chebyshev");
    sweep(b, x, /*zero_guess=*/true);
  }

  void smooth(const Vector<T>& b, Vector<T>& x, int sweeps) const override {
    check_operands(*A_, b, x, "chebyshev");
    for (int s = 0; s < sweeps; ++s) sweep(b, x, false);
  }

 private:
  void sweep(const Vector<T>& b, Vector<T>& x, bool zero_guess) const {
    const size_type n = A_->rows();
    const double upper = params_.upper_fraction * rho_;
    const bool fourth = params_.kind == ChebyshevParams::Kind::fourth;
    // First kind: Saad, Iterative Methods, Alg. 12.1 on [lower, upper].
    const double lower = params_.lower_fraction * rho_;
    const double theta = 0.5 * (upper + lower), delta = 0.5 * (upper - lower);
    const double sigma = theta / delta;
    double rho_k = 1.0 / sigma;
    const double c0 = fourth ? 4.0 / (3.0 * upper) : 1.0 / theta;
    if (!zero_guess) A_->apply(x, t_);
    executor().visit([&](const auto& e) {
      if (blocks_) {
        kernels::block_diagonal::chebyshev_start(
            e, inverse_.block_rows(), inverse_.block_size(), inverse_.values().data(), T(c0),
            b.data(), zero_guess ? nullptr : t_.data(), r_.data(), p_.data(), x.data());
      } else {
        kernels::smoother::chebyshev_start(e, n, T(c0), d_.data(), b.data(),
                                           zero_guess ? nullptr : t_.data(), r_.data(), p_.data(),
                                           x.data());
      }
    });
    for (int k = 1; k < params_.degree; ++k) {
      double c_keep, c_new;
      if (fourth) {  // Lottes (2023), eq. for the fourth-kind recurrence
        c_keep = (2.0 * k - 1.0) / (2.0 * k + 3.0);
        c_new = (8.0 * k + 4.0) / ((2.0 * k + 3.0) * upper);
      } else {
        const double rho_next = 1.0 / (2.0 * sigma - rho_k);
        c_keep = rho_next * rho_k;
        c_new = 2.0 * rho_next / delta;
        rho_k = rho_next;
      }
      A_->apply(p_, t_);
      executor().visit([&](const auto& e) {
        if (blocks_) {
          kernels::block_diagonal::chebyshev_step(e, inverse_.block_rows(), inverse_.block_size(),
                                                  inverse_.values().data(), T(c_keep), T(c_new),
                                                  t_.data(), r_.data(), p_.data(), x.data());
        } else {
          kernels::smoother::chebyshev_step(e, n, T(c_keep), T(c_new), d_.data(), t_.data(),
                                            r_.data(), p_.data(), x.data());
        }
      });
    }
  }

  std::shared_ptr<const LevelOperator<T>> A_;
  ChebyshevParams params_;
  bool blocks_;  // D is A's block diagonal (inverse_), else scalar (d_)
  Vector<T> d_;
  BlockDiagonal<T> inverse_;
  double rho_ = 0;
  mutable Vector<T> r_, p_, t_;  // scratch: preconditioned residual, direction, A p
};

}  // namespace

std::string smoother_name(const SmootherParams& params) {
  struct Name {
    std::string operator()(const JacobiParams&) const { return "jacobi"; }
    std::string operator()(const L1JacobiParams&) const { return "l1jacobi"; }
    std::string operator()(const ChebyshevParams&) const { return "chebyshev"; }
    std::string operator()(const IluParams& p) const { return detail::ilu_name(p); }
    std::string operator()(const GaussSeidelParams& p) const { return sweep_name("", p.sweep); }
    std::string operator()(const MulticolorGaussSeidelParams& p) const {
      return sweep_name("multicolor_", p.sweep);
    }
    std::string operator()(const TwoStageGaussSeidelParams& p) const {
      return sweep_name("two_stage_", p.sweep);
    }
    static std::string sweep_name(const char* kind, GaussSeidelSweep sweep) {
      switch (sweep) {
        case GaussSeidelSweep::forward:
          return std::string(kind) + "gs";
        case GaussSeidelSweep::backward:
          return std::string(kind) + "backward_gs";
        case GaussSeidelSweep::symmetric:
          return std::string(kind) + "sgs";
      }
      return std::string(kind) + "gs";
    }
  };
  return std::visit(Name{}, params);
}

template <class T>
std::unique_ptr<Smoother<T>> make_smoother(std::shared_ptr<const LevelOperator<T>> A,
                                           const SmootherParams& params,
                                           const Reduction<T>& reduction) {
  require(A != nullptr, "make_smoother: the operator is null");
  struct Make {
    const std::shared_ptr<const LevelOperator<T>>& A;
    const Reduction<T>& reduction;
    std::unique_ptr<Smoother<T>> operator()(const JacobiParams& p) const {
      if (uses_blocks(*A, p.point_block)) return block_jacobi(p);
      if (!p.estimate_omega) {
        return std::make_unique<DiagonalSmoother<T>>(A, p.omega, DiagonalScaling::inverse_diagonal,
                                                     "jacobi");
      }
      require(
          p.estimation_steps >= 1 && p.estimation_steps <= 10,
          "jacobi: estimation_steps must be in [1, 10], got " + std::to_string(p.estimation_steps));
      require(p.omega > 0 && std::isfinite(p.omega),
              "jacobi: omega must be positive, got " + std::to_string(p.omega));
      // omega * 4 / (3 rho(D^-1 A)), rho from the smoother's own D^-1.
      Vector<T> d =
          detail::checked_diagonal_scaling(*A, DiagonalScaling::inverse_diagonal, "jacobi");
      const double rho = arnoldi_spectral_radius(*A, d, p.estimation_steps, reduction);
      require(rho > 0 && std::isfinite(rho), "jacobi: the estimated spectral radius of D^-1 A is " +
                                                 std::to_string(rho) +
                                                 "; expected a positive number");
      return std::make_unique<DiagonalSmoother<T>>(A, p.omega * 4.0 / (3.0 * rho), std::move(d),
                                                   "jacobi");
    }
    std::unique_ptr<Smoother<T>> operator()(const L1JacobiParams& p) const {
      if (uses_blocks(*A, p.point_block)) {
        return std::make_unique<BlockJacobiSmoother<T>>(
            A, p.omega, A->block_diagonal(BlockDiagonalKind::l1), "block l1jacobi");
      }
      return std::make_unique<DiagonalSmoother<T>>(A, p.omega, DiagonalScaling::inverse_l1_norm,
                                                   "l1jacobi");
    }
    /// Point-block Jacobi, with the weight estimated as for the scalar one
    /// but from the block D^-1 A.
    std::unique_ptr<Smoother<T>> block_jacobi(const JacobiParams& p) const {
      BlockDiagonal<T> inverse = A->block_diagonal(BlockDiagonalKind::plain);
      double omega = p.omega;
      if (p.estimate_omega) {
        require(p.estimation_steps >= 1 && p.estimation_steps <= 10,
                "block jacobi: estimation_steps must be in [1, 10], got " +
                    std::to_string(p.estimation_steps));
        require(p.omega > 0 && std::isfinite(p.omega),
                "block jacobi: omega must be positive, got " + std::to_string(p.omega));
        const double rho = arnoldi_spectral_radius(*A, inverse, p.estimation_steps, reduction);
        require(rho > 0 && std::isfinite(rho),
                "block jacobi: the estimated spectral radius of D^-1 A is " + std::to_string(rho) +
                    "; expected a positive number");
        omega = p.omega * 4.0 / (3.0 * rho);
      }
      return std::make_unique<BlockJacobiSmoother<T>>(A, omega, std::move(inverse), "block jacobi");
    }
    std::unique_ptr<Smoother<T>> operator()(const ChebyshevParams& p) const {
      return std::make_unique<ChebyshevSmoother<T>>(A, p, reduction);
    }
    // The Gauss-Seidel family and ILU act on rows in order; on a
    // distributed level each process runs them on its own rows (hybrid).
    std::unique_ptr<Smoother<T>> sequential(const detail::LocalSmootherFactory<T>& make) const {
      if (!A->distributed()) return make(A);
      return detail::make_process_local<T>(A, make);
    }
    std::unique_ptr<Smoother<T>> operator()(const IluParams& p) const {
      return sequential([&](std::shared_ptr<const LevelOperator<T>> level) {
        return detail::make_ilu_smoother(std::move(level), p);
      });
    }
    std::unique_ptr<Smoother<T>> operator()(const GaussSeidelParams& p) const {
      return sequential([&](std::shared_ptr<const LevelOperator<T>> level) {
        return detail::make_gauss_seidel(std::move(level), p);
      });
    }
    std::unique_ptr<Smoother<T>> operator()(const MulticolorGaussSeidelParams& p) const {
      return sequential([&](std::shared_ptr<const LevelOperator<T>> level) {
        return detail::make_gauss_seidel(std::move(level), p);
      });
    }
    std::unique_ptr<Smoother<T>> operator()(const TwoStageGaussSeidelParams& p) const {
      return sequential([&](std::shared_ptr<const LevelOperator<T>> level) {
        return detail::make_gauss_seidel(std::move(level), p);
      });
    }
  };
  return std::visit(Make{A, reduction}, params);
}

template std::unique_ptr<Smoother<double>> make_smoother<double>(
    std::shared_ptr<const LevelOperator<double>>, const SmootherParams&, const Reduction<double>&);

}  // namespace strata
