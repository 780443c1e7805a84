#pragma once
/// \file
/// Krylov methods: CG, BiCGSTAB, GMRES(m), FGMRES(m) and flexible CG.
///
/// Every method solves A x = b from the x it is given, with an optional
/// preconditioner M (applied on the right for GMRES, FGMRES and BiCGSTAB, as
/// z = M r in CG and FCG). CG, BiCGSTAB and GMRES need a preconditioner that is
/// a fixed linear map (LinearOperator::is_fixed(), invalid_argument
/// otherwise); FGMRES and FCG also take one that changes between
/// applications (a K-cycle, an inner iteration). Convergence is judged on the unpreconditioned residual:
///
///     ||b - A x||_2 <= max(relative_tolerance * ||b||_2, absolute_tolerance)
///
/// (relative to ||b|| by default; `relative_to = initial_residual` measures it
/// against ||b - A x0|| instead). The tolerance is met only by the true
/// residual: when the residual a method tracks (its recurrence, or GMRES's
/// Arnoldi estimate) meets it, the method computes b - A x (one more
/// product, its norm through the Reduction); if that misses the target, it
/// goes on from the true residual (residual replacement in CG, FCG and
/// BiCGSTAB, a restart in GMRES and FGMRES), and ends with
/// `converged_recurrence_only` when a replacement did not at least halve the
/// true residual of the previous one. A solve also stops when the residual
/// grows past divergence_tolerance times its start (`diverged`) or does not
/// fall over a window of iterations (`stagnated`): see KrylovParams.
/// Not converging is a result, not an error:
/// the returned SolveInfo says what happened. Bad arguments (sizes,
/// locations, negative tolerances) throw.

#include <string>
#include <variant>
#include <vector>

#include "strata/solver/operator.hpp"

namespace strata {

enum class SolveStatus {
  converged,
  /// max_iterations reached before the tolerance.
  max_iterations,
  /// A quantity the method divides by vanished; SolveInfo::message names it.
  breakdown,
  /// A NaN or Inf appeared (in the operator, the preconditioner or the data).
  non_finite,
  /// CG found p^T A p <= 0 (operator not positive definite) or r^T z < 0
  /// (preconditioner not positive definite).
  indefinite,
  /// The tracked residual met the tolerance but ||b - A x|| did not, and
  /// going on from the true residual did not fix it: a tolerance below the
  /// attainable accuracy (about machine epsilon times ||A|| ||x||; the
  /// 7-point jumps3d at 256^3 with its 10^6 contrast stalls near 5e-7 of
  /// ||b||), a singular or nearly singular system, b outside the range of
  /// A, an operator that changed.
  converged_recurrence_only,
  /// The tracked residual grew past divergence_tolerance times its start.
  diverged,
  /// The residual did not fall by the factor stagnation_factor over
  /// stagnation_window iterations.
  stagnated,
};

/// "converged", "max_iterations", "breakdown", "non_finite", "indefinite",
/// "converged_recurrence_only", "diverged", "stagnated".
const char* to_string(SolveStatus status) noexcept;

/// What a solve did.
struct SolveInfo {
  SolveStatus status = SolveStatus::max_iterations;
  int iterations = 0;
  /// ||b - A x0||.
  double initial_residual_norm = 0;
  /// The residual norm the method tracked at the end (recurrence or
  /// Arnoldi estimate).
  double residual_norm = 0;
  /// ||b||, or ||r0|| with relative_to = initial_residual: the reference.
  double reference_norm = 0;
  /// residual_norm / reference_norm.
  double relative_residual = 0;
  /// ||b - A x|| of the returned x, computed by the solve (for `converged`
  /// it is what met the tolerance).
  double true_residual_norm = 0;
  /// true_residual_norm / reference_norm.
  double true_relative_residual = 0;
  /// How often the method went on from the true residual after its tracked
  /// one met the tolerance (residual replacements or GMRES restarts).
  int residual_replacements = 0;
  /// Tracked residual norm after each iteration, starting with iteration 0.
  std::vector<double> residual_history;
  /// Human-readable detail for every status but converged and max_iterations.
  std::string message;
  bool converged() const noexcept { return status == SolveStatus::converged; }
};

/// Stopping and reporting parameters shared by all methods.
struct KrylovParams {
  enum class RelativeTo { rhs, initial_residual };
  /// Stop when ||r|| <= relative_tolerance * reference (default reference ||b||).
  double relative_tolerance = 1e-8;
  /// Also stop when ||r|| <= absolute_tolerance.
  double absolute_tolerance = 0.0;
  /// A cap for slow but steady solves (unpreconditioned GMRES(30) on
  /// 7-point 128^3 needs more than 1000); hopeless ones end sooner through
  /// divergence_tolerance and the stagnation window.
  int max_iterations = 5000;
  RelativeTo relative_to = RelativeTo::rhs;
  bool record_history = true;
  /// Stop with `diverged` when the tracked residual exceeds
  /// divergence_tolerance * max(reference, ||r0||); 0 switches it off, else
  /// >= 1. The default 1e5 is PETSc's dtol: far above the transient growth
  /// of CG or BiCGSTAB residuals on hard but solvable problems (a few orders
  /// of magnitude at most), while a method that does not fit the matrix (CG
  /// on a nonsymmetric one) passes it within tens of iterations.
  double divergence_tolerance = 1e5;
  /// Stop with `stagnated` when the smallest residual of the last
  /// stagnation_window iterations is not below stagnation_factor times the
  /// smallest one before them (||r0|| included); 0 switches it off. The
  /// default (500 iterations, 0.99) asks for 1% progress per 500
  /// iterations: a method converging steadily at any rate that reaches 1e-8
  /// within 500,000 iterations is never stopped, and CG's residual may rise
  /// for a few hundred iterations before it falls (Jacobi-CG on
  /// suitesparse/1138_bus: 1.5 orders of magnitude above ||r0|| for 300
  /// iterations, converged at 1044). A residual that sits on the floor of a
  /// singular system is stopped after 500 iterations instead of running to
  /// max_iterations.
  int stagnation_window = 500;
  /// See stagnation_window; in (0, 1].
  double stagnation_factor = 0.99;
  /// Called after every iteration with (iteration, residual norm): progress
  /// output, logging. May be empty.
  std::function<void(int, double)> monitor;
};

struct Cg {
  KrylovParams params;
};
struct Bicgstab {
  KrylovParams params;
};
/// GMRES(m) and FGMRES(m) orthogonalise the Arnoldi basis by classical
/// Gram-Schmidt applied twice (CGS2): as accurate as modified Gram-Schmidt,
/// but each projection against the whole basis is one pass and one
/// reduction (three per step instead of j + 2), which is what a GPU needs.
struct Gmres {
  KrylovParams params;
  /// Krylov vectors kept before a restart (m of GMRES(m)).
  int restart = 30;
};
struct Fgmres {
  KrylovParams params;
  int restart = 30;
};
/// Flexible CG (Notay, "Flexible conjugate gradients", SIAM J. Sci. Comput.
/// 22, 2000): CG whose new direction is made A-orthogonal explicitly to the
/// last `truncation` directions, with alpha = p^T r / p^T A p, so that it
/// stays a descent method for a preconditioner that changes between
/// applications (a K-cycle). For symmetric positive definite A and a
/// positive preconditioner. With a fixed preconditioner it equals PCG in
/// exact arithmetic (the Polak-Ribiere form of beta).
struct Fcg {
  KrylovParams params;
  /// Previous directions each new one is A-orthogonalised against (>= 1).
  int truncation = 1;
};

/// A choice of method; the compiler checks that each is handled.
using KrylovMethod = std::variant<Cg, Bicgstab, Gmres, Fgmres, Fcg>;

/// "cg", "bicgstab", "gmres", "fgmres", "fcg".
std::string method_name(const KrylovMethod& method);

/// Solves A x = b with `method`, preconditioned by M (nullptr: none). x holds
/// the initial guess on entry and the result on exit. All operands live on
/// A's executor. Every dot product and norm goes through `reduction`
/// (across processes with MPI). Nothing is kept after the call.
template <class T>
SolveInfo solve(const KrylovMethod& method, const LinearOperator<T>& A, const Vector<T>& b,
                Vector<T>& x, const LinearOperator<T>* M = nullptr,
                const Reduction<T>& reduction = Reduction<T>{});

/// The stationary (Richardson) iteration x <- x + M (b - A x) with the
/// stopping test, history, monitor and statuses of the Krylov methods
/// (stand-alone AMG: amg::Hierarchy::solve). M may change between
/// applications (a K-cycle): each step uses the new correction as it is.
template <class T>
SolveInfo solve_stationary(const KrylovParams& params, const LinearOperator<T>& A,
                           const Vector<T>& b, Vector<T>& x, const LinearOperator<T>& M,
                           const Reduction<T>& reduction = Reduction<T>{});

}  // namespace strata
