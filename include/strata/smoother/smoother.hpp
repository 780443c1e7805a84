#pragma once
/// \file
/// Smoothers and simple preconditioners: weighted Jacobi, l1-Jacobi and
/// Chebyshev on D^-1 A, and the Gauss-Seidel family (hybrid l1, multicolor,
/// two-stage; strata/smoother/gauss_seidel.hpp).
///
/// A smoother is a LinearOperator (apply(b, x) is one application from a
/// zero initial guess, x = M^-1 b, which is how a preconditioner is used)
/// with, in addition, smooth(b, x, sweeps): relaxation of an existing x,
/// which is how AMG uses it. Each is built on the level-operator contract
/// (any level kind: CSR, BSR, ...), shares ownership of its operator and
/// lives on its executor.

#include <memory>
#include <string>
#include <variant>

#include "strata/smoother/ilu.hpp"
#include "strata/smoother/gauss_seidel.hpp"
#include "strata/solver/level_operator.hpp"

namespace strata {

template <class T>
class Smoother : public LinearOperator<T> {
 public:
  /// x <- x + M^-1 (b - A x), `sweeps` times (a Chebyshev sweep applies the
  /// whole polynomial).
  virtual void smooth(const Vector<T>& b, Vector<T>& x, int sweeps) const = 0;
  /// One sweep from x0 into x (x must not be x0): x = x0 + M^-1 (b - A x0),
  /// what x = x0 followed by smooth(b, x, 1) gives. Jacobi and l1-Jacobi do
  /// it in one pass over A, which is how the AMG cycle post-smooths straight
  /// from the prolonged iterate.
  virtual void sweep_from(const Vector<T>& b, const Vector<T>& x0, Vector<T>& x) const {
    axpby(T{1}, x0, T{0}, x);
    smooth(b, x, 1);
  }
  /// Post-smoothing of an AMG cycle: `sweeps` sweeps of the adjoint of
  /// smooth()'s sweep (the transpose of M^-1), the first from x0 into x
  /// (x must not be x0). With pre-smoothing by smooth() the V-cycle is then
  /// symmetric for symmetric A. Jacobi-type and Chebyshev sweeps are their
  /// own adjoints, so the default is sweep_from() then smooth(); a forward
  /// Gauss-Seidel sweep runs backward here (hypre's relax 13 down, 14 up).
  virtual void post_smooth(const Vector<T>& b, const Vector<T>& x0, Vector<T>& x,
                           int sweeps) const {
    if (sweeps <= 0) return;
    sweep_from(b, x0, x);
    smooth(b, x, sweeps - 1);
  }
  /// The same smoother on `A`, this smoother's operator rounded to single
  /// precision (LevelOperator::to_single()), with its data (scalings,
  /// inverted blocks, spectral bounds) rounded rather than computed again:
  /// the smoother of the single-precision AMG cycle
  /// (HierarchyParams::cycle_precision). Jacobi, l1-Jacobi and Chebyshev
  /// (scalar and block) have one; the default throws invalid_argument
  /// naming the smoother (the Gauss-Seidel family and ILU, whose sweeps are
  /// instantiated in double only).
  virtual std::unique_ptr<Smoother<float>> to_single(
      std::shared_ptr<const LevelOperator<float>> A) const {
    (void)A;
    throw invalid_argument("smoother " + this->describe() +
                           " has no single-precision form; the single-precision AMG cycle takes "
                           "jacobi, l1jacobi or chebyshev");
  }
};

/// Weighted Jacobi: M^-1 = omega D^-1. Default omega = 1 (plain Jacobi).
///
/// estimate_omega: damped Jacobi with the aggregation paper's weight
/// (equation 5), M^-1 = omega * 4 / (3 rho) D^-1, where rho estimates the
/// spectral radius of D^-1 A by `estimation_steps` (<= 10) Arnoldi steps
/// (the spectral radius of the small Hessenberg matrix; works for
/// nonsymmetric A), so omega = 1 gives exactly 4 / (3 rho). The same
/// operator as ChebyshevParams{.degree = 1, .upper_fraction = 1,
/// .estimation_steps = 5, .symmetric = false}, but a cheaper sweep (one
/// fused update of x instead of Chebyshev's three vectors).
///
/// point_block: on a level with square diagonal blocks (a BSR level,
/// LevelOperator::diagonal_block_size() > 0) D is the block diagonal, each
/// node's b x b block inverted (point-block Jacobi, PETSc's PCPBJACOBI; the
/// blocked GAMG paper's smoother), and the spectral estimate is of D^-1 A
/// with that D. false: the scalar diagonal on every level. Scalar (CSR)
/// levels use the scalar diagonal either way.
struct JacobiParams {
  double omega = 1.0;
  bool estimate_omega = false;
  int estimation_steps = 5;
  bool point_block = true;
};

/// l1-Jacobi: M^-1 = omega D_l1^-1 with (D_l1)_ii = sum_j |a_ij|, the l1 norm
/// of the row. For symmetric positive definite A this smoother converges
/// without a damping factor (D_l1 - A/2 is positive definite), which is why
/// AMG uses it by default (Baker, Falgout, Kolev, Yang 2011).
///
/// point_block: on a level with square diagonal blocks, the block l1-Jacobi
/// of the same paper, D_l1 = the node's diagonal block plus the l1 norms of
/// each row's entries outside it on the diagonal (BlockDiagonalKind::l1;
/// 2 D_l1 - A is SPD for SPD A, so it converges undamped too). false: the
/// scalar D_l1 on every level.
struct L1JacobiParams {
  double omega = 1.0;
  bool point_block = true;
};

/// Chebyshev polynomial smoothing of degree `degree` in D^-1 A, where rho
/// estimates the largest eigenvalue of D^-1 A (Lanczos for symmetric A,
/// Arnoldi otherwise, `estimation_steps` steps) and is scaled by
/// upper_fraction.
///
/// kind = fourth (default): the fourth-kind polynomial of Lottes ("Optimal
/// polynomial smoothers for multigrid V-cycles", 2023), which needs no lower
/// bound: its residual polynomial stays in (-1, 1) on (0, rho], so the
/// preconditioner is positive definite for SPD A and CG can use it. Degree 1
/// is damped Jacobi with omega = 4 / (3 rho), the aggregation paper's weight.
///
/// kind = first: the classical Chebyshev polynomial that is small on
/// [lower_fraction * rho, upper_fraction * rho] (hypre's smoother). It is
/// negative below the interval, so as a stand-alone CG preconditioner it
/// is indefinite; use it as an AMG smoother.
struct ChebyshevParams {
  enum class Kind { first, fourth };
  Kind kind = Kind::fourth;
  int degree = 2;
  double lower_fraction = 0.3;
  /// Above 1: the estimate approaches rho from below.
  double upper_fraction = 1.1;
  /// Krylov steps of the estimate. Below 6 (the default 5) the Ritz values
  /// come from the Gram matrix of the Krylov basis in one synchronisation
  /// (lanczos_max_eigenvalue; on block levels Arnoldi's Gram form, see
  /// point_block) instead of two per step: each setup and each resetup
  /// estimates every level. Five steps took the iterations of ten, within
  /// one either way, on elasticity, jumps3d, Poisson and the shared
  /// matrices (bench/NOTES.md, session 22).
  int estimation_steps = 5;
  /// Treat A as symmetric when estimating rho (Lanczos); otherwise Arnoldi.
  bool symmetric = true;
  /// On a level with square diagonal blocks, D is the block diagonal (each
  /// node's block inverted) and rho estimates the largest eigenvalue of that
  /// D^-1 A (Lanczos in the D inner product from 6 steps, Arnoldi's Gram
  /// form below, or Arnoldi); false: the scalar diagonal on every level.
  bool point_block = true;
};

/// A choice of smoother.
using SmootherParams =
    std::variant<JacobiParams, L1JacobiParams, ChebyshevParams, GaussSeidelParams,
                 MulticolorGaussSeidelParams, TwoStageGaussSeidelParams, IluParams>;

/// "jacobi", "l1jacobi", "chebyshev"; the Gauss-Seidel family by kind and
/// sweep: "gs", "backward_gs", "sgs" (hybrid l1), "multicolor_gs",
/// "multicolor_backward_gs", "multicolor_sgs", "two_stage_gs",
/// "two_stage_backward_gs", "two_stage_sgs"; "ilu0", "iluk", "ilut".
std::string smoother_name(const SmootherParams& params);

/// Builds the smoother for A (on A's executor), sharing ownership of A.
/// Jacobi, l1-Jacobi and Chebyshev on a level with square diagonal blocks
/// use the inverted blocks unless their point_block is false; their
/// describe() then says "block". The
/// spectral estimates of Chebyshev and of Jacobi with estimate_omega take
/// their global sums through `reduction`. Throws invalid_argument naming
/// the first row whose diagonal entry is zero, missing or not finite (the
/// first block row whose diagonal block is missing, not finite or singular),
/// or a parameter out of range.
template <class T>
std::unique_ptr<Smoother<T>> make_smoother(std::shared_ptr<const LevelOperator<T>> A,
                                           const SmootherParams& params,
                                           const Reduction<T>& reduction = Reduction<T>{});

/// The same for a CSR matrix (shared, not copied).
template <class T>
std::unique_ptr<Smoother<T>> make_smoother(std::shared_ptr<const CsrMatrix<T>> A,
                                           const SmootherParams& params,
                                           const Reduction<T>& reduction = Reduction<T>{}) {
  return make_smoother<T>(std::make_shared<const CsrOperator<T>>(std::move(A)), params,
                          reduction);
}

}  // namespace strata
