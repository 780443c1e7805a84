// CG, BiCGSTAB, GMRES(m), FGMRES(m), flexible CG and the stationary
// iteration, written once against LinearOperator, the vector operations and
// a Reduction: they run wherever the vectors live, and with MPI only the
// Reduction changes.

#include "strata/solver/krylov.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <tuple>
#include <cmath>
#include <string>
#include <vector>

#include "kernels/solver/solver_kernels.hpp"
#include "strata/core/span.hpp"
#include "strata/solver/level_operator.hpp"

namespace strata {

const char* to_string(SolveStatus status) noexcept {
  switch (status) {
    case SolveStatus::converged: return "converged";
    case SolveStatus::max_iterations: return "max_iterations";
    case SolveStatus::breakdown: return "breakdown";
    case SolveStatus::non_finite: return "non_finite";
    case SolveStatus::indefinite: return "indefinite";
    case SolveStatus::converged_recurrence_only: return "converged_recurrence_only";
    case SolveStatus::diverged: return "diverged";
    case SolveStatus::stagnated: return "stagnated";
  }
  return "unknown";
}

std::string method_name(const KrylovMethod& method) {
  struct Name {
    std::string operator()(const Cg&) const { return "cg"; }
    std::string operator()(const Bicgstab&) const { return "bicgstab"; }
    std::string operator()(const Gmres&) const { return "gmres"; }
    std::string operator()(const Fgmres&) const { return "fgmres"; }
    std::string operator()(const Fcg&) const { return "fcg"; }
  };
  return std::visit(Name{}, method);
}

namespace {

/// Global reductions through the Reduction, and the bookkeeping every
/// method shares: the target, the history, the monitor, the status, and the
/// stopping tests on the tracked residual (tolerance, divergence,
/// stagnation) with the confirmation of the tolerance by the true residual.
template <class T>
class Progress {
 public:
  Progress(const KrylovParams& p, const Reduction<T>& reduction) : p_(p), reduction_(reduction) {}

  T dot(const Vector<T>& x, const Vector<T>& y) const { return reduction_.dot(x, y); }
  T norm(const Vector<T>& x) const { return reduction_.norm2(x); }
  T combine(T v) const { return reduction_.global(v); }
  /// Replaces local partial sums by the global ones, in place.
  void combine(Span<T> v) const { reduction_.combine(v); }
  std::pair<T, T> combine(std::pair<T, T> v) const { return reduction_.global(v); }

  /// Starts with ||b|| and ||r0|| (a true residual); returns true when r0
  /// already meets the target.
  bool start(double b_norm, double r0_norm) {
    info.initial_residual_norm = r0_norm;
    info.reference_norm =
        p_.relative_to == KrylovParams::RelativeTo::rhs ? b_norm : r0_norm;
    target_ = std::max(p_.relative_tolerance * info.reference_norm, p_.absolute_tolerance);
    divergence_limit_ = p_.divergence_tolerance * std::max(info.reference_norm, r0_norm);
    record(r0_norm);
    norms_.push_back(r0_norm);
    set_true(r0_norm);
    if (!std::isfinite(r0_norm)) return finish(SolveStatus::non_finite, "the initial residual is not finite");
    if (r0_norm <= target_) return finish(SolveStatus::converged);
    // max_iterations = 0: no iteration at all, the initial residual is the answer.
    return p_.max_iterations == 0 && finish(SolveStatus::max_iterations);
  }

  /// After an iteration, with the residual norm the method tracks. Returns
  /// true when the method should stop iterating: either a final status is
  /// set, or the tracked residual met the target (tolerance_met()), and the
  /// method must call confirm() with ||b - A x||.
  bool step(double residual_norm) {
    ++info.iterations;
    true_is_current_ = false;
    record(residual_norm);
    norms_.push_back(residual_norm);
    if (p_.monitor) p_.monitor(info.iterations, residual_norm);
    if (!std::isfinite(residual_norm)) {
      return finish(SolveStatus::non_finite, "the residual norm became " +
                                                 std::to_string(residual_norm) +
                                                 " at iteration " + std::to_string(info.iterations));
    }
    if (residual_norm <= target_) {
      tolerance_met_ = true;
      return true;
    }
    if (p_.divergence_tolerance > 0 && residual_norm > divergence_limit_) {
      return finish(SolveStatus::diverged,
                    "the residual norm " + number(residual_norm) + " at iteration " +
                        std::to_string(info.iterations) + " exceeds divergence_tolerance " +
                        number(p_.divergence_tolerance) + " x " +
                        number(divergence_limit_ / p_.divergence_tolerance) +
                        " (the larger of the reference and ||r0||)");
    }
    if (info.iterations >= p_.max_iterations) return finish(SolveStatus::max_iterations);
    if (stagnant()) {
      return finish(SolveStatus::stagnated,
                    "the residual norm fell by less than stagnation_factor " +
                        number(p_.stagnation_factor) + " over the last " +
                        std::to_string(p_.stagnation_window) + " iterations (smallest " +
                        number(window_minimum()) + ", before them " + number(earlier_minimum()) +
                        ")");
    }
    return false;
  }

  /// step() stopped because the tracked residual met the target.
  bool tolerance_met() const noexcept { return tolerance_met_; }

  /// With ||b - A x|| of the current x. Returns true when the solve ends:
  /// converged (the true residual meets the target), or
  /// converged_recurrence_only (it does not, and going on from it after the
  /// previous confirmation did not at least halve it), or max_iterations.
  /// False: the method must go on from the true residual, which it holds in
  /// place of its tracked one (the stagnation window restarts there).
  bool confirm(double true_norm) {
    tolerance_met_ = false;
    set_true(true_norm);
    if (!std::isfinite(true_norm)) {
      return finish(SolveStatus::non_finite, "the true residual ||b - A x|| is " +
                                                 number(true_norm) + " at iteration " +
                                                 std::to_string(info.iterations));
    }
    if (true_norm <= target_) return finish(SolveStatus::converged);
    const std::string what = "the tracked residual " + number(info.residual_norm) +
                             " met the target " + number(target_) + " at iteration " +
                             std::to_string(info.iterations) + " but ||b - A x|| = " +
                             number(true_norm);
    if (last_failed_true_ >= 0 && true_norm > 0.5 * last_failed_true_) {
      return finish(SolveStatus::converged_recurrence_only,
                    what + "; going on from the true residual did not reduce it (from " +
                        number(last_failed_true_) +
                        "): the tolerance may lie below the accuracy attainable in double "
                        "precision for this matrix (about machine epsilon times ||A|| ||x||, "
                        "large for strongly varying coefficients), or A may be singular with b "
                        "outside its range");
    }
    last_failed_true_ = true_norm;
    if (info.iterations >= p_.max_iterations) {
      return finish(SolveStatus::max_iterations, what + " when max_iterations was reached");
    }
    ++info.residual_replacements;
    norms_.back() = true_norm;
    window_start_ = norms_.size() - 1;
    info.residual_norm = true_norm;
    info.relative_residual = relative(true_norm);
    return false;
  }

  bool finish(SolveStatus status, std::string message = {}) {
    info.status = status;
    info.message = std::move(message);
    return true;
  }

  /// A scalar that must be finite and nonzero; false (and a status) otherwise.
  bool usable(double value, const char* name) {
    if (!std::isfinite(value)) {
      finish(SolveStatus::non_finite, std::string(name) + " is " + std::to_string(value) +
                                          " at iteration " + std::to_string(info.iterations + 1));
      return false;
    }
    if (value == 0.0) {
      finish(SolveStatus::breakdown, std::string(name) + " vanished at iteration " +
                                         std::to_string(info.iterations + 1));
      return false;
    }
    return true;
  }

  /// True when info.true_residual_norm belongs to the current x.
  bool true_is_current() const noexcept { return true_is_current_; }
  void set_true(double true_norm) {
    info.true_residual_norm = true_norm;
    info.true_relative_residual = relative(true_norm);
    true_is_current_ = true;
  }

  double target() const noexcept { return target_; }
  const KrylovParams& params() const noexcept { return p_; }

  SolveInfo info;

 private:
  static std::string number(double v) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.3e", v);
    return buffer;
  }
  double relative(double r) const {
    return info.reference_norm > 0 ? r / info.reference_norm : r;
  }
  void record(double r) {
    info.residual_norm = r;
    info.relative_residual = relative(r);
    if (p_.record_history) info.residual_history.push_back(r);
  }
  /// The smallest norm of the last stagnation_window iterations.
  double window_minimum() const {
    const auto w = static_cast<std::size_t>(p_.stagnation_window);
    return *std::min_element(norms_.end() - w, norms_.end());
  }
  /// The smallest norm since the window start, before the last window.
  double earlier_minimum() const {
    const auto w = static_cast<std::size_t>(p_.stagnation_window);
    return *std::min_element(norms_.begin() + window_start_, norms_.end() - w);
  }
  bool stagnant() const {
    const auto w = static_cast<std::size_t>(p_.stagnation_window);
    if (w == 0 || norms_.size() - window_start_ <= w) return false;
    return window_minimum() > p_.stagnation_factor * earlier_minimum();
  }

  const KrylovParams& p_;
  const Reduction<T>& reduction_;
  double target_ = 0;
  double divergence_limit_ = 0;
  /// The norm at start and after each iteration (replaced by the true one
  /// where the method went on from it): the stagnation test's memory.
  std::vector<double> norms_;
  std::size_t window_start_ = 0;
  bool tolerance_met_ = false;
  bool true_is_current_ = false;
  double last_failed_true_ = -1;
};

/// r = b - A x
template <class T>
void residual(const LinearOperator<T>& A, const Vector<T>& b, const Vector<T>& x, Vector<T>& r) {
  A.apply(x, r);
  axpby(T{1}, b, T{-1}, r);
}

/// After step() stopped: true when the solve ends. When the tracked residual
/// met the target, r becomes b - A x and confirm() decides; false means the
/// method goes on from that r.
template <class T>
bool ends(Progress<T>& pr, const LinearOperator<T>& A, const Vector<T>& b, const Vector<T>& x,
          Vector<T>& r) {
  if (!pr.tolerance_met()) return true;
  residual(A, b, x, r);
  return pr.confirm(pr.norm(r));
}

template <class T>
SolveInfo run_cg(Progress<T>& pr, const LinearOperator<T>& A, const Vector<T>& b,
                 Vector<T>& x, const LinearOperator<T>* M) {
  const Executor& exec = A.executor();
  const size_type n = A.rows();
  Vector<T> r(exec, n), p(exec, n), q(exec, n);
  const Vector<T>* d = M ? M->diagonal_scaling() : nullptr;
  Vector<T> z_storage = M ? Vector<T>(exec, n) : Vector<T>();
  Vector<T>& z = M ? z_storage : r;  // without a preconditioner z is r itself
  residual(A, b, x, r);
  if (pr.start(pr.norm(b), pr.norm(r))) return pr.info;

  T rz;
  // z = M r, rz = r^T z, p = z: the start, and the restart from a replaced
  // residual. False (and a status) when r^T z is unusable.
  const auto begin_directions = [&] {
    if (!M) rz = pr.dot(r, r);
    else if (d) rz = pr.combine(pointwise_multiply_dot(*d, r, z));
    else {
      rz = pr.combine(M->apply_dot(r, z));  // fused where M can (PFMG's float cycle)
    }
    if (!pr.usable(rz, "r^T z")) return false;
    if (rz < 0) {
      pr.finish(SolveStatus::indefinite, "r^T M r = " + std::to_string(rz) +
                                             " < 0: the preconditioner is not positive definite");
      return false;
    }
    copy(z.values(), p.values());
    return true;
  };
  if (!begin_directions()) return pr.info;
  for (;;) {
    const T pq = pr.combine(A.apply_dot(p, q));
    if (!pr.usable(pq, "p^T A p")) return pr.info;
    if (pq < 0) {
      pr.finish(SolveStatus::indefinite,
                "p^T A p = " + std::to_string(pq) + " < 0 at iteration " +
                    std::to_string(pr.info.iterations + 1) + ": A is not positive definite");
      return pr.info;
    }
    const T alpha = rz / pq;
    T rr, rz_new;
    if (d) {
      std::tie(rr, rz_new) = pr.combine(exec.visit([&](const auto& e) {
        return kernels::solver::cg_update_diagonal(e, n, alpha, p.data(), q.data(), d->data(),
                                                   x.data(), r.data(), z.data());
      }));
    } else {
      rr = pr.combine(exec.visit([&](const auto& e) {
        return kernels::solver::cg_update(e, n, alpha, p.data(), q.data(), x.data(), r.data());
      }));
      rz_new = rr;
    }
    if (pr.step(std::sqrt(rr))) {
      if (ends(pr, A, b, x, r) || !begin_directions()) return pr.info;
      continue;
    }
    if (M && !d) rz_new = pr.combine(M->apply_dot(r, z));
    if (!pr.usable(rz_new, "r^T z")) return pr.info;
    if (rz_new < 0) {
      pr.finish(SolveStatus::indefinite, "r^T M r = " + std::to_string(rz_new) +
                                             " < 0: the preconditioner is not positive definite");
      return pr.info;
    }
    axpby(T{1}, z, rz_new / rz, p);  // p = z + beta p
    rz = rz_new;
  }
}

template <class T>
SolveInfo run_bicgstab(Progress<T>& pr, const LinearOperator<T>& A,
                       const Vector<T>& b, Vector<T>& x, const LinearOperator<T>* M) {
  const Executor& exec = A.executor();
  const size_type n = A.rows();
  Vector<T> r(exec, n), r_hat(exec, n), p(exec, n, T{0}), v(exec, n, T{0}), s(exec, n),
      t(exec, n);
  Vector<T> p_hat_storage = M ? Vector<T>(exec, n) : Vector<T>();
  Vector<T> s_hat_storage = M ? Vector<T>(exec, n) : Vector<T>();
  Vector<T>& p_hat = M ? p_hat_storage : p;
  Vector<T>& s_hat = M ? s_hat_storage : s;
  residual(A, b, x, r);
  if (pr.start(pr.norm(b), pr.norm(r))) return pr.info;
  T rho_old = 1, alpha = 1, omega = 1;
  bool fresh = true;  // the first step from r (the start or a replaced residual)
  copy(r.values(), r_hat.values());
  // Goes on from a replaced residual r: a new shadow residual and directions.
  const auto restart = [&] {
    copy(r.values(), r_hat.values());
    fresh = true;
  };
  for (;;) {
    const T rho = pr.dot(r_hat, r);
    if (!pr.usable(rho, "rho = r0_hat^T r")) return pr.info;
    if (fresh) {
      copy(r.values(), p.values());
      fresh = false;
    } else {
      axpy(-omega, v, p);                                 // p = p - omega v
      axpby(T{1}, r, (rho / rho_old) * (alpha / omega), p);  // p = r + beta p
    }
    if (M) M->apply(p, p_hat);
    A.apply(p_hat, v);
    const T r_hat_v = pr.dot(r_hat, v);
    if (!pr.usable(r_hat_v, "r0_hat^T v")) return pr.info;
    alpha = rho / r_hat_v;
    axpbyz(T{1}, r, -alpha, v, s);  // s = r - alpha v
    const T s_norm = pr.norm(s);
    if (std::isfinite(s_norm) && s_norm <= pr.target()) {  // converged at the half step
      axpy(alpha, p_hat, x);
      pr.step(s_norm);
      if (ends(pr, A, b, x, r)) return pr.info;
      restart();
      continue;
    }
    if (M) M->apply(s, s_hat);
    A.apply(s_hat, t);
    const auto [tt, ts] = pr.combine(dot2(t, t, s));
    if (!pr.usable(tt, "t^T t")) return pr.info;
    omega = ts / tt;
    axpy(alpha, p_hat, x);
    axpy(omega, s_hat, x);
    axpbyz(T{1}, s, -omega, t, r);  // r = s - omega t
    if (pr.step(pr.norm(r))) {
      if (ends(pr, A, b, x, r)) return pr.info;
      restart();
      continue;
    }
    if (!pr.usable(omega, "omega = t^T s / t^T t")) return pr.info;
    rho_old = rho;
  }
}

/// `count` vectors, at most one per unknown of the whole (global) problem
/// and at least one.
template <class T>
int capped_to_unknowns(Progress<T>& pr, int count, size_type local_rows) {
  const double unknowns = double(pr.combine(T(local_rows)));
  return static_cast<int>(std::max(1.0, std::min(double(count), unknowns)));
}

/// Flexible CG (Notay 2000) with truncation m: z = M r; p = z minus its
/// A-projections on the last m directions; alpha = p^T r / p^T A p. The
/// directions and their images q = A p are kept in a ring of m + 1 slots.
template <class T>
SolveInfo run_fcg(Progress<T>& pr, int truncation, const LinearOperator<T>& A,
                  const Vector<T>& b, Vector<T>& x, const LinearOperator<T>* M) {
  const Executor& exec = A.executor();
  const size_type n = A.rows();
  truncation = capped_to_unknowns(pr, truncation, n);  // as GMRES's restart
  const int slots = truncation + 1;
  std::vector<Vector<T>> P, Q;
  std::vector<T> pq(static_cast<std::size_t>(slots), T{0});  // p_j^T A p_j
  for (int j = 0; j < slots; ++j) {
    P.emplace_back(exec, n);
    Q.emplace_back(exec, n);
  }
  Vector<T> r(exec, n);
  Vector<T> z_storage = M ? Vector<T>(exec, n) : Vector<T>();
  Vector<T>& z = M ? z_storage : r;
  residual(A, b, x, r);
  if (pr.start(pr.norm(b), pr.norm(r))) return pr.info;
  int first = 0;  // the first direction since the start or a replaced residual
  for (int k = 0;; ++k) {
    if (M) M->apply(r, z);
    Vector<T>& p = P[k % slots];
    Vector<T>& q = Q[k % slots];
    copy(z.values(), p.values());
    for (int j = std::max(first, k - truncation); j < k; ++j) {  // A-orthogonalise
      const T beta = pr.dot(z, Q[j % slots]) / pq[j % slots];
      axpy(-beta, P[j % slots], p);
    }
    const T pAp = pr.combine(A.apply_dot(p, q));
    if (!pr.usable(pAp, "p^T A p")) return pr.info;
    if (pAp < 0) {
      pr.finish(SolveStatus::indefinite,
                "p^T A p = " + std::to_string(pAp) + " < 0 at iteration " +
                    std::to_string(pr.info.iterations + 1) +
                    ": A or the preconditioner is not positive definite");
      return pr.info;
    }
    pq[k % slots] = pAp;
    const T alpha = pr.dot(p, r) / pAp;
    const T rr = pr.combine(exec.visit([&](const auto& e) {
      return kernels::solver::cg_update(e, n, alpha, p.data(), q.data(), x.data(), r.data());
    }));
    if (pr.step(std::sqrt(rr))) {
      if (ends(pr, A, b, x, r)) return pr.info;
      first = k + 1;  // earlier directions belong to the drifted recurrence
    }
  }
}

/// GMRES(m) with right preconditioning; `flexible` keeps Z = M V (FGMRES),
/// which allows a preconditioner that changes between applications.
///
/// The Arnoldi step orthogonalises by classical Gram-Schmidt applied twice
/// (CGS2): h1 = V^T w, w -= V h1, h2 = V^T w, w -= V h2, h = h1 + h2. CGS2
/// keeps the basis orthogonal to working accuracy, as modified Gram-Schmidt
/// does, but its projections against all j + 1 vectors are one multi-dot
/// each: three passes over the basis and three synchronisations per step
/// (the second correction is fused with the next projection, the last one
/// with the norm), where MGS needs j + 1 dots, j + 1 axpys and j + 2
/// synchronisations.
template <class T>
SolveInfo run_gmres(Progress<T>& pr, int restart, bool flexible,
                    const LinearOperator<T>& A, const Vector<T>& b, Vector<T>& x,
                    const LinearOperator<T>* M) {
  const Executor& exec = A.executor();
  const size_type n = A.rows();
  // More Krylov vectors than unknowns (over all processes) is never useful:
  // the space is exhausted first. The cap keeps restart from sizing memory.
  const int m = capped_to_unknowns(pr, restart, n);
  std::vector<Vector<T>> V, Z;
  V.reserve(m + 1);
  for (int j = 0; j <= m; ++j) V.emplace_back(exec, n);
  if (flexible && M) {
    for (int j = 0; j < m; ++j) Z.emplace_back(exec, n);
  }
  Vector<T> w(exec, n), z(exec, n);
  std::vector<std::vector<double>> H(m + 1, std::vector<double>(m, 0.0));
  std::vector<double> cs(m), sn(m), g(m + 1), y(m);
  // Projections of the two Gram-Schmidt passes and the final sums (each k
  // entries and w^T w); the coefficients of the solution update.
  std::vector<T> h1(m + 1), h2(m + 1), last(m + 1), coefficients(m);

  residual(A, b, x, V[0]);
  double beta = pr.norm(V[0]);
  if (pr.start(pr.norm(b), beta)) return pr.info;
  for (;;) {  // restart cycles
    scale(T(1.0 / beta), V[0]);
    std::fill(g.begin(), g.end(), 0.0);
    g[0] = beta;
    int k = 0;  // Krylov vectors used in this cycle
    bool stop = false;
    for (int j = 0; j < m; ++j) {
      const Vector<T>* direction = &V[j];
      if (M) {
        Vector<T>& zj = flexible ? Z[j] : z;
        M->apply(V[j], zj);
        direction = &zj;
      }
      // The new direction is built in place in V[j + 1].
      Vector<T>& v = V[j + 1];
      A.apply(*direction, v);
      const Span<const Vector<T>> basis(V.data(), static_cast<std::size_t>(j + 1));
      const auto sums = [&](std::vector<T>& s) { return Span<T>(s.data(), j + 2); };
      const auto coeffs = [&](std::vector<T>& s) { return Span<const T>(s.data(), j + 1); };
      multi_dot(basis, v, sums(h1));  // classical Gram-Schmidt, twice
      pr.combine(sums(h1));
      multi_axpy_dot(coeffs(h1), basis, v, sums(h2));
      pr.combine(sums(h2));
      multi_axpy_dot(coeffs(h2), basis, v, sums(last));
      pr.combine(sums(last));
      for (int i = 0; i <= j; ++i) H[i][j] = double(h1[i]) + double(h2[i]);
      H[j + 1][j] = std::sqrt(double(last[j + 1]));
      for (int i = 0; i < j; ++i) {  // earlier Givens rotations
        const double h = cs[i] * H[i][j] + sn[i] * H[i + 1][j];
        H[i + 1][j] = -sn[i] * H[i][j] + cs[i] * H[i + 1][j];
        H[i][j] = h;
      }
      const double denom = std::hypot(H[j][j], H[j + 1][j]);
      if (!std::isfinite(denom)) {
        pr.finish(SolveStatus::non_finite, "the Arnoldi process produced NaN or Inf at iteration " +
                                               std::to_string(pr.info.iterations + 1));
        return pr.info;
      }
      if (denom == 0.0) {
        pr.finish(SolveStatus::breakdown, "the Hessenberg column vanished at iteration " +
                                              std::to_string(pr.info.iterations + 1) +
                                              " (A applied to the preconditioned direction is 0)");
        return pr.info;
      }
      const double h_next = H[j + 1][j];
      cs[j] = H[j][j] / denom;
      sn[j] = H[j + 1][j] / denom;
      H[j][j] = denom;
      H[j + 1][j] = 0.0;
      g[j + 1] = -sn[j] * g[j];
      g[j] = cs[j] * g[j];
      k = j + 1;
      stop = pr.step(std::abs(g[j + 1]));
      // A zero new direction means the exact solution lies in the space
      // (a "happy" breakdown): finish the cycle; the update is exact.
      if (stop || h_next == 0.0) break;
      scale(T(1.0 / h_next), v);
    }
    // y = H^-1 g (upper triangular), then x += (Z or M V) y.
    for (int i = k - 1; i >= 0; --i) {
      double s = g[i];
      for (int l = i + 1; l < k; ++l) s -= H[i][l] * y[l];
      y[i] = s / H[i][i];
    }
    // multi_axpy subtracts, so it takes -y.
    for (int i = 0; i < k; ++i) coefficients[i] = T(-y[i]);
    const Span<const T> minus_y(coefficients.data(), static_cast<std::size_t>(k));
    if (flexible && M) {
      multi_axpy(minus_y, Span<const Vector<T>>(Z.data(), k), x);
    } else {
      w.fill(T{0});
      multi_axpy(minus_y, Span<const Vector<T>>(V.data(), k), w);
      if (M) {
        M->apply(w, z);
        axpy(T{1}, z, x);
      } else {
        axpy(T{1}, w, x);
      }
    }
    if (stop && !pr.tolerance_met()) return pr.info;
    residual(A, b, x, V[0]);  // the true residual starts the next cycle
    beta = pr.norm(V[0]);
    if (stop) {  // the Arnoldi estimate met the target: confirm it
      if (pr.confirm(beta)) return pr.info;
      continue;
    }
    pr.set_true(beta);
    if (!std::isfinite(beta)) {
      pr.finish(SolveStatus::non_finite, "the residual is not finite at restart");
      return pr.info;
    }
    if (beta <= pr.target()) {  // a happy breakdown, or drift in our favour
      pr.confirm(beta);
      return pr.info;
    }
  }
}

template <class T>
void check_arguments(const LinearOperator<T>& A, const Vector<T>& b, const Vector<T>& x,
                     const LinearOperator<T>* M, const KrylovParams& p, const std::string& name) {
  if (A.rows() != A.cols()) {
    throw dimension_mismatch(name + ": the operator must be square, it is " +
                             std::to_string(A.rows()) + " x " + std::to_string(A.cols()));
  }
  if (b.size() != A.rows() || x.size() != A.cols()) {
    throw dimension_mismatch(name + ": A is " + std::to_string(A.rows()) + " x " +
                             std::to_string(A.cols()) + " but b has " + std::to_string(b.size()) +
                             " and x has " + std::to_string(x.size()) + " entries");
  }
  check_location(A.executor(), b.executor(), "b", "the operator A");
  check_location(A.executor(), x.executor(), "x", "the operator A");
  if (M) {
    check_location(A.executor(), M->executor(), "the preconditioner", "the operator A");
    if (M->rows() != A.rows() || M->cols() != A.cols()) {
      throw dimension_mismatch(name + ": the preconditioner is " + std::to_string(M->rows()) +
                               " x " + std::to_string(M->cols()) + ", A is " +
                               std::to_string(A.rows()) + " x " + std::to_string(A.cols()));
    }
  }
  require(p.relative_tolerance >= 0 && std::isfinite(p.relative_tolerance),
          name + ": relative_tolerance must be >= 0, got " + std::to_string(p.relative_tolerance));
  require(p.absolute_tolerance >= 0 && std::isfinite(p.absolute_tolerance),
          name + ": absolute_tolerance must be >= 0, got " + std::to_string(p.absolute_tolerance));
  require(p.max_iterations >= 0,
          name + ": max_iterations must be >= 0, got " + std::to_string(p.max_iterations));
  require(p.divergence_tolerance == 0 ||
              (p.divergence_tolerance >= 1 && std::isfinite(p.divergence_tolerance)),
          name + ": divergence_tolerance must be 0 (off) or a finite number >= 1, got " +
              std::to_string(p.divergence_tolerance));
  require(p.stagnation_window >= 0,
          name + ": stagnation_window must be >= 0 (0: off), got " +
              std::to_string(p.stagnation_window));
  require(p.stagnation_factor > 0 && p.stagnation_factor <= 1,
          name + ": stagnation_factor must be in (0, 1], got " +
              std::to_string(p.stagnation_factor));
}

/// Sets info's true residual from ||b - A x|| unless the method already
/// computed it for this x (one product, its norm through the Reduction).
template <class T>
SolveInfo with_true_residual(SolveInfo info, bool current, const LinearOperator<T>& A,
                             const Vector<T>& b, const Vector<T>& x, const Reduction<T>& inner) {
  if (current) return info;
  Vector<T> r(A.executor(), A.rows());
  residual(A, b, x, r);
  info.true_residual_norm = inner.norm2(r);
  info.true_relative_residual = info.reference_norm > 0
                                    ? info.true_residual_norm / info.reference_norm
                                    : info.true_residual_norm;
  return info;
}

}  // namespace

template <class T>
SolveInfo solve(const KrylovMethod& method, const LinearOperator<T>& A, const Vector<T>& b,
                Vector<T>& x, const LinearOperator<T>* M, const Reduction<T>& inner) {
  struct Run {
    const LinearOperator<T>& A;
    const Vector<T>& b;
    Vector<T>& x;
    const LinearOperator<T>* M;
    const Reduction<T>& inner;

    SolveInfo operator()(const Cg& m) const {
      check_arguments(A, b, x, M, m.params, "cg");
      require_fixed("cg");
      Progress<T> pr(m.params, inner);
      return finished(pr, run_cg(pr, A, b, x, M));
    }
    SolveInfo operator()(const Bicgstab& m) const {
      check_arguments(A, b, x, M, m.params, "bicgstab");
      require_fixed("bicgstab");
      Progress<T> pr(m.params, inner);
      return finished(pr, run_bicgstab(pr, A, b, x, M));
    }
    SolveInfo operator()(const Gmres& m) const {
      check_arguments(A, b, x, M, m.params, "gmres");
      require(m.restart >= 1, "gmres: restart must be >= 1, got " + std::to_string(m.restart));
      require_fixed("gmres");
      Progress<T> pr(m.params, inner);
      return finished(pr, run_gmres(pr, m.restart, false, A, b, x, M));
    }
    SolveInfo operator()(const Fgmres& m) const {
      check_arguments(A, b, x, M, m.params, "fgmres");
      require(m.restart >= 1, "fgmres: restart must be >= 1, got " + std::to_string(m.restart));
      Progress<T> pr(m.params, inner);
      return finished(pr, run_gmres(pr, m.restart, true, A, b, x, M));
    }
    SolveInfo operator()(const Fcg& m) const {
      check_arguments(A, b, x, M, m.params, "fcg");
      require(m.truncation >= 1,
              "fcg: truncation must be >= 1, got " + std::to_string(m.truncation));
      Progress<T> pr(m.params, inner);
      return finished(pr, run_fcg(pr, m.truncation, A, b, x, M));
    }
    SolveInfo finished(const Progress<T>& pr, SolveInfo info) const {
      return with_true_residual(std::move(info), pr.true_is_current(), A, b, x, inner);
    }
    void require_fixed(const char* name) const {
      if (M && !M->is_fixed()) {
        throw invalid_argument(std::string(name) + ": the preconditioner (" + M->describe() +
                               ") changes between applications; use fgmres or fcg");
      }
    }
  };
  return std::visit(Run{A, b, x, M, inner}, method);
}

template <class T>
SolveInfo solve_stationary(const KrylovParams& params, const LinearOperator<T>& A,
                           const Vector<T>& b, Vector<T>& x, const LinearOperator<T>& M,
                           const Reduction<T>& reduction) {
  check_arguments(A, b, x, &M, params, "stationary iteration");
  Progress<T> pr(params, reduction);
  const Executor& exec = A.executor();
  Vector<T> r(exec, A.rows()), e(exec, A.rows());
  // An assembled operator forms b - A x in one pass.
  const auto* level = dynamic_cast<const LevelOperator<T>*>(&A);
  const auto update_residual = [&] {
    if (level) level->residual(b, x, r);
    else residual(A, b, x, r);
  };
  update_residual();
  if (pr.start(pr.norm(b), pr.norm(r))) return pr.info;
  while (true) {
    M.apply(r, e);  // e = M (b - A x)
    axpy(T{1}, e, x);
    update_residual();
    const double r_norm = pr.norm(r);
    if (pr.step(r_norm)) {
      // The tracked residual is the true one: confirming costs nothing.
      if (pr.tolerance_met()) pr.confirm(r_norm);
      else pr.set_true(r_norm);
      return pr.info;
    }
  }
}

template SolveInfo solve<double>(const KrylovMethod&, const LinearOperator<double>&,
                                 const Vector<double>&, Vector<double>&,
                                 const LinearOperator<double>*, const Reduction<double>&);
template SolveInfo solve_stationary<double>(const KrylovParams&, const LinearOperator<double>&,
                                            const Vector<double>&, Vector<double>&,
                                            const LinearOperator<double>&,
                                            const Reduction<double>&);

}  // namespace strata
