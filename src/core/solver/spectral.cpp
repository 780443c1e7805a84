// Largest-eigenvalue estimates of D^-1 A (Lanczos, Arnoldi).

#include "strata/solver/spectral.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/solver/diagonal.hpp"
#include "kernels/solver/solver_kernels.hpp"

namespace strata {

namespace {

/// A start vector from a counter-based hash of the global row index
/// (splitmix64): `first` is the global index of the first of the `n` rows
/// (LevelOperator::global_row_begin()), so the estimate repeats run after
/// run, is the same on host and device, and does not depend on how a
/// distributed operator's rows are split over processes. Generated on
/// `exec` (in [0.5, 1.5): no zero entries): a host loop and a copy would
/// cost more than the whole estimate on a large device matrix.
Vector<double> start_vector(const Executor& exec, size_type n, size_type first) {
  Vector<double> v(exec, n);
  exec.visit([&](const auto& e) { kernels::solver::hashed_start_vector(e, n, first, v.data()); });
  return v;
}

/// The rows of A over all processes. Every process must take the same
/// number of steps, and return early together, or the reductions of the
/// others would wait forever: a distributed operator may have no rows here
/// and many elsewhere. The count is summed as a T, exact for any size the
/// value type can count (2^53 rows in double).
template <class T>
size_type global_rows(const LevelOperator<T>& A, const Reduction<T>& reduction) {
  return static_cast<size_type>(reduction.global(static_cast<T>(A.rows())));
}

/// Number of eigenvalues of the symmetric tridiagonal (alpha, beta) below x
/// (Sturm sequence).
int eigenvalues_below(const std::vector<double>& alpha, const std::vector<double>& beta, double x) {
  int count = 0;
  double q = 1.0;
  for (std::size_t i = 0; i < alpha.size(); ++i) {
    const double b2 = i == 0 ? 0.0 : beta[i - 1] * beta[i - 1];
    q = alpha[i] - x - (i == 0 ? 0.0 : b2 / q);
    if (q == 0.0) q = 1e-300;
    if (q < 0) ++count;
  }
  return count;
}

/// Spectral radius of the leading k x k block of H: the growth rate of
/// ||H^j x|| (power iteration with log-accumulated norms), which also
/// settles for a dominant complex pair.
double hessenberg_spectral_radius(const std::vector<std::vector<double>>& H, int k) {
  std::vector<double> x(k, 1.0), y(k);
  double log_growth = 0;
  const int burn_in = 200, measured = 2000;
  for (int it = 0; it < burn_in + measured; ++it) {
    for (int i = 0; i < k; ++i) {
      double s = 0;
      for (int j = 0; j < k; ++j) s += H[i][j] * x[j];
      y[i] = s;
    }
    double norm = 0;
    for (double v : y) norm += v * v;
    norm = std::sqrt(norm);
    if (norm == 0) return 0.0;
    for (int i = 0; i < k; ++i) x[i] = y[i] / norm;
    if (it >= burn_in) log_growth += std::log(norm);
  }
  return std::exp(log_growth / measured);
}

/// The Ritz values of m <= max_gram - 1 Arnoldi steps without the Arnoldi
/// loop: the Krylov vectors K_j = (D^-1 A)^j v (m products, no
/// synchronisation), their Gram matrix in one pass, and the Rayleigh-Ritz
/// matrix L^-1 B^T C L^-T of B = [K_0 .. K_m-1], C = D^-1 A B = [K_1 .. K_m],
/// B^T B = L L^T (columns scaled to unit norm first). That is the Arnoldi
/// Hessenberg matrix up to an orthogonal similarity, so the same estimate,
/// from one synchronisation and m + 2 vector passes instead of O(m^2).
/// Where the basis is numerically dependent (a tiny Cholesky pivot) the
/// Krylov space is cut there, as Arnoldi stops at an invariant subspace.
/// Returns -1 when not even one column survives (the caller falls back).
/// `next(v, out)` computes out = D^-1 A v (the scalar or the block D), or
/// any operator similar to it (Lanczos' D^-1/2 A D^-1/2); `who` names the
/// caller in errors.
template <class T, class Next>
double gram_ritz_spectral_radius(const LevelOperator<T>& A, const Next& next, int m,
                                 const Reduction<T>& reduction, const char* who) {
  const Executor& exec = A.executor();
  const size_type n = A.rows();
  std::vector<Vector<T>> K;
  K.push_back(start_vector(exec, n, A.global_row_begin()));
  for (int j = 1; j <= m; ++j) {
    K.emplace_back(exec, n);
    next(K[j - 1], K[j]);
  }
  const int size = m + 1;
  std::vector<const T*> pointers;
  for (const auto& v : K) pointers.push_back(v.data());
  std::vector<T> gram(static_cast<std::size_t>(size * size));
  exec.visit([&](const auto& e) {
    kernels::solver::block_gram(e, n, size, pointers.data(), gram.data());
  });
  reduction.combine(gram);
  const auto G = [&](int i, int j) { return double(gram[i * size + j]); };
  for (int i = 0; i < size; ++i) {
    if (!std::isfinite(G(i, i))) {
      throw invalid_argument(std::string(who) + ": the matrix produced NaN or Inf");
    }
  }
  std::vector<double> scale(size);
  for (int i = 0; i < size; ++i) scale[i] = G(i, i) > 0 ? 1.0 / std::sqrt(G(i, i)) : 0.0;
  // Cholesky of the scaled B^T B, cut at the first pivot that is not clearly positive.
  std::vector<std::vector<double>> L(m, std::vector<double>(m, 0.0));
  int k = 0;
  for (; k < m; ++k) {
    if (scale[k] == 0) break;
    double pivot = 1.0;  // the scaled diagonal
    for (int l = 0; l < k; ++l) pivot -= L[k][l] * L[k][l];
    if (!(pivot > 1e-10)) break;
    L[k][k] = std::sqrt(pivot);
    for (int i = k + 1; i < m; ++i) {
      double v = G(i, k) * scale[i] * scale[k];
      for (int l = 0; l < k; ++l) v -= L[i][l] * L[k][l];
      L[i][k] = v / L[k][k];
    }
  }
  if (k == 0) return -1.0;
  // M = scaled B^T C (k x k): M[i][j] = K_i^T K_j+1 s_i s_j.
  std::vector<std::vector<double>> M(k, std::vector<double>(k));
  for (int i = 0; i < k; ++i) {
    for (int j = 0; j < k; ++j) M[i][j] = G(i, j + 1) * scale[i] * scale[j];
  }
  // H = L^-1 M L^-T: forward substitution on the columns, then on the rows.
  for (int j = 0; j < k; ++j) {  // M <- L^-1 M
    for (int i = 0; i < k; ++i) {
      double v = M[i][j];
      for (int l = 0; l < i; ++l) v -= L[i][l] * M[l][j];
      M[i][j] = v / L[i][i];
    }
  }
  for (int i = 0; i < k; ++i) {  // M <- M L^-T
    for (int j = 0; j < k; ++j) {
      double v = M[i][j];
      for (int l = 0; l < j; ++l) v -= M[i][l] * L[j][l];
      M[i][j] = v / L[j][j];
    }
  }
  return hessenberg_spectral_radius(M, k);
}

/// One classical Gram-Schmidt projection of w against the `size` basis
/// vectors: h = V^T w (global sums), w -= V h; returns the global ||w||^2
/// after the update. h[size] is the global ||w||^2 before it (the kernel
/// returns it beside the dots).
template <class T>
double project(const Executor& exec, const Reduction<T>& reduction, size_type n, int size,
               const std::vector<const T*>& basis, Vector<T>& w, std::vector<T>& h) {
  exec.visit([&](const auto& e) {
    kernels::solver::block_dot(e, n, size, basis.data(), w.data(), h.data());
  });
  reduction.combine(Span<T>(h.data(), static_cast<std::size_t>(size) + 1));
  const T local = exec.visit([&](const auto& e) {
    return kernels::solver::block_update_norm2(e, n, size, basis.data(), h.data(), w.data());
  });
  return reduction.global(local);
}

/// Arnoldi for the spectral radius of D^-1 A, `next(v, out)` computing
/// out = D^-1 A v; m = min(steps, n) >= 1 steps.
template <class T, class Next>
double arnoldi_radius(const LevelOperator<T>& A, const Next& next, int m,
                      const Reduction<T>& reduction) {
  const Executor& exec = A.executor();
  const size_type n = A.rows();
  if (m < kernels::solver::max_gram) {
    const double rho = gram_ritz_spectral_radius(A, next, m, reduction, "arnoldi_spectral_radius");
    if (rho >= 0) return rho;
  }
  // Classical Gram-Schmidt: the projections on the whole basis in one pass
  // (one synchronisation) and the update with the new norm in a second,
  // instead of a dot and an axpy per basis vector; projected again only
  // when the first pass cancelled w almost entirely (orthogonality would
  // suffer; an estimate of the spectral radius needs no more).
  std::vector<Vector<T>> V;
  V.push_back(start_vector(exec, n, A.global_row_begin()));
  scale(1.0 / reduction.norm2(V[0]), V[0]);
  std::vector<const T*> basis{V[0].data()};
  std::vector<std::vector<double>> H(m + 1, std::vector<double>(m, 0.0));
  Vector<T> w(exec, n);
  std::vector<T> h(kernels::solver::max_block + 1), h2(kernels::solver::max_block + 1);
  int k = 0;
  for (; k < m; ++k) {
    next(V[k], w);
    const int size = k + 1;
    double norm_squared = project(exec, reduction, n, size, basis, w, h);
    for (int i = 0; i < size; ++i) H[i][k] = h[i];
    if (norm_squared < 1e-6 * h[size]) {  // lost more than 99.9% of ||w||: again
      norm_squared = project(exec, reduction, n, size, basis, w, h2);
      for (int i = 0; i < size; ++i) H[i][k] += h2[i];
    }
    H[k + 1][k] = std::sqrt(norm_squared);
    if (!std::isfinite(H[k + 1][k])) {
      throw invalid_argument("arnoldi_spectral_radius: the matrix produced NaN or Inf");
    }
    if (H[k + 1][k] <= 1e-14 || k + 1 == m) {
      ++k;
      break;
    }
    Vector<T> next(exec, n);
    axpby(T(1.0 / H[k + 1][k]), w, T{0}, next);
    V.push_back(std::move(next));
    basis.push_back(V.back().data());
  }
  return hessenberg_spectral_radius(H, k);
}

template <class T>
void check_block_inverse(const LevelOperator<T>& A, const BlockDiagonal<T>& inverse,
                         const char* who) {
  check_location(A.executor(), inverse.executor(), "inverse", who);
  if (A.rows() != A.cols() || inverse.rows() != A.rows()) {
    throw dimension_mismatch(std::string(who) + ": A is " + std::to_string(A.rows()) + " x " +
                             std::to_string(A.cols()) + ", the inverted diagonal blocks have " +
                             std::to_string(inverse.rows()) + " rows");
  }
}

/// The largest eigenvalue of the symmetric tridiagonal (alpha, beta), by
/// bisection inside its Gershgorin interval.
double largest_tridiagonal_eigenvalue(const std::vector<double>& alpha,
                                      const std::vector<double>& beta) {
  double lo = 0, hi = 0;
  for (std::size_t i = 0; i < alpha.size(); ++i) {
    const double r =
        (i > 0 ? std::abs(beta[i - 1]) : 0.0) + (i < beta.size() ? std::abs(beta[i]) : 0.0);
    lo = std::min(lo, alpha[i] - r);
    hi = std::max(hi, alpha[i] + r);
  }
  const int k = static_cast<int>(alpha.size());
  for (int it = 0; it < 200 && hi - lo > 1e-14 * std::max(1.0, std::abs(hi)); ++it) {
    const double mid = 0.5 * (lo + hi);
    if (eigenvalues_below(alpha, beta, mid) < k)
      lo = mid;
    else
      hi = mid;
  }
  return hi;
}

}  // namespace

template <class T>
double lanczos_max_eigenvalue(const LevelOperator<T>& A, int steps, const Reduction<T>& reduction) {
  require(steps >= 1, "lanczos_max_eigenvalue: steps must be >= 1, got " + std::to_string(steps));
  const Executor& exec = A.executor();
  const size_type n = A.rows();
  // S = D^-1/2, the similarity that makes D^-1 A symmetric; it needs a_ii > 0.
  Vector<T> s = detail::checked_diagonal_scaling(
      A, DiagonalScaling::inverse_sqrt_diagonal, "lanczos_max_eigenvalue",
      " (Lanczos on D^-1 A needs a positive diagonal; use arnoldi_spectral_radius)");
  const size_type global_n = global_rows(A, reduction);
  if (global_n == 0) return 0.0;
  if (steps < kernels::solver::max_gram) {
    // The same Ritz values from the Gram matrix of the Krylov basis of
    // S A S: one synchronisation instead of two per step (the Chebyshev
    // smoothers' estimate on every level of every setup and resetup).
    Vector<T> t(exec, n);
    const auto next = [&](const Vector<T>& v, Vector<T>& out) {
      pointwise_multiply(s, v, t);
      A.apply(t, out);
      pointwise_multiply(s, out, out);
    };
    const int m = static_cast<int>(std::min<size_type>(steps, global_n));
    const double rho = gram_ritz_spectral_radius(A, next, m, reduction, "lanczos_max_eigenvalue");
    if (rho >= 0) return rho;
  }
  Vector<T> v = start_vector(exec, n, A.global_row_begin()), v_old(exec, n, 0.0), w(exec, n),
            t(exec, n);
  scale(1.0 / reduction.norm2(v), v);
  std::vector<double> alpha, beta;
  double beta_prev = 0.0;
  for (int j = 0; j < steps && j < global_n; ++j) {
    pointwise_multiply(s, v, t);  // w = S A S v with S = D^-1/2
    A.apply(t, w);
    pointwise_multiply(s, w, w);
    const double a = reduction.dot(w, v);
    axpy(-a, v, w);
    if (j > 0) axpy(-beta_prev, v_old, w);
    alpha.push_back(a);
    const double b = reduction.norm2(w);
    if (!std::isfinite(a) || !std::isfinite(b)) {
      throw invalid_argument("lanczos_max_eigenvalue: the matrix produced NaN or Inf");
    }
    if (b <= 1e-14 * std::abs(a) || j + 1 == steps) break;  // invariant subspace found
    beta.push_back(b);
    beta_prev = b;
    std::swap(v_old, v);  // v_old <- v, v <- w / b
    axpby(1.0 / b, w, 0.0, v);
  }
  return largest_tridiagonal_eigenvalue(alpha, beta);
}

template <class T>
double lanczos_max_eigenvalue(const LevelOperator<T>& A, const BlockDiagonal<T>& inverse, int steps,
                              const Reduction<T>& reduction) {
  require(steps >= 1, "lanczos_max_eigenvalue: steps must be >= 1, got " + std::to_string(steps));
  check_block_inverse(A, inverse, "lanczos_max_eigenvalue");
  // Lanczos in the D inner product waits twice a step; below the Gram
  // form's limit Arnoldi's Gram form waits once for the whole estimate.
  if (steps < kernels::solver::max_gram) return arnoldi_spectral_radius(A, inverse, steps, reduction);
  const Executor& exec = A.executor();
  const size_type n = A.rows();
  const size_type global_n = global_rows(A, reduction);
  if (global_n == 0) return 0.0;
  const auto not_spd = [] {
    return invalid_argument(
        "lanczos_max_eigenvalue: the inverted diagonal blocks are not positive definite (Lanczos "
        "in the D inner product needs SPD blocks; use arnoldi_spectral_radius)");
  };
  // y_j = D v_j beside the D-orthonormal Lanczos vector v_j (see the
  // header): ys[j % 2] holds y_j, ys[(j + 1) % 2] y_j-1 and then y_j+1.
  Vector<T> ys[2] = {start_vector(exec, n, A.global_row_begin()), Vector<T>(exec, n, 0.0)};
  Vector<T> v(exec, n), w(exec, n);
  inverse.apply(ys[0], v);
  const double norm2 = reduction.dot(ys[0], v);
  if (!(norm2 > 0)) throw not_spd();
  scale(1.0 / std::sqrt(norm2), ys[0]);
  scale(1.0 / std::sqrt(norm2), v);
  std::vector<double> alpha, beta;
  double beta_prev = 0.0;
  for (int j = 0; j < steps && j < global_n; ++j) {
    Vector<T>& y = ys[j % 2];
    Vector<T>& y_other = ys[(j + 1) % 2];
    A.apply(v, w);  // w = D (D^-1 A v), in the "residual" space
    const double a = reduction.dot(w, v);
    axpy(-a, y, w);
    if (j > 0) axpy(-beta_prev, y_other, w);
    alpha.push_back(a);
    inverse.apply(w, v);  // v = D^-1 (D w) = w, the next direction before scaling
    const double b2 = reduction.dot(w, v);
    if (!std::isfinite(a) || !std::isfinite(b2)) {
      throw invalid_argument("lanczos_max_eigenvalue: the matrix produced NaN or Inf");
    }
    if (b2 < 0) throw not_spd();
    const double b = std::sqrt(b2);
    if (b <= 1e-14 * std::abs(a) || j + 1 == steps) break;  // invariant subspace found
    beta.push_back(b);
    beta_prev = b;
    axpby(1.0 / b, w, 0.0, y_other);  // y_j+1 takes y_j-1's place
    scale(1.0 / b, v);
  }
  return largest_tridiagonal_eigenvalue(alpha, beta);
}

template <class T>
double arnoldi_spectral_radius(const LevelOperator<T>& A, int steps,
                               const Reduction<T>& reduction) {
  require(steps >= 1 && steps <= 10,
          "arnoldi_spectral_radius: steps must be in [1, 10], got " + std::to_string(steps));
  return arnoldi_spectral_radius(
      A,
      detail::checked_diagonal_scaling(A, DiagonalScaling::inverse_diagonal,
                                       "arnoldi_spectral_radius"),
      steps, reduction);
}

template <class T>
double arnoldi_spectral_radius(const LevelOperator<T>& A, const Vector<T>& d, int steps,
                               const Reduction<T>& reduction) {
  require(steps >= 1 && steps <= 10,
          "arnoldi_spectral_radius: steps must be in [1, 10], got " + std::to_string(steps));
  const Executor& exec = A.executor();
  const size_type n = A.rows();
  check_location(exec, d.executor(), "inverse_diagonal", "A");
  if (d.size() != n) {
    throw dimension_mismatch("arnoldi_spectral_radius: the inverse diagonal has " +
                             std::to_string(d.size()) + " entries, A has " + std::to_string(n) +
                             " rows");
  }
  const size_type global_n = global_rows(A, reduction);
  if (global_n == 0) return 0.0;
  const auto next = [&](const Vector<T>& v, Vector<T>& out) {
    A.apply(v, out);
    pointwise_multiply(d, out, out);
  };
  return arnoldi_radius(A, next, static_cast<int>(std::min<size_type>(steps, global_n)), reduction);
}

template <class T>
double arnoldi_spectral_radius(const LevelOperator<T>& A, const BlockDiagonal<T>& inverse,
                               int steps, const Reduction<T>& reduction) {
  require(steps >= 1 && steps <= 10,
          "arnoldi_spectral_radius: steps must be in [1, 10], got " + std::to_string(steps));
  check_block_inverse(A, inverse, "arnoldi_spectral_radius");
  const size_type n = A.rows();
  const size_type global_n = global_rows(A, reduction);
  if (global_n == 0) return 0.0;
  Vector<T> t(A.executor(), n);
  const auto next = [&](const Vector<T>& v, Vector<T>& out) {
    A.apply(v, t);
    inverse.apply(t, out);
  };
  return arnoldi_radius(A, next, static_cast<int>(std::min<size_type>(steps, global_n)), reduction);
}

template double lanczos_max_eigenvalue<double>(const LevelOperator<double>&, int,
                                               const Reduction<double>&);
template double arnoldi_spectral_radius<double>(const LevelOperator<double>&, int,
                                                const Reduction<double>&);
template double arnoldi_spectral_radius<double>(const LevelOperator<double>&, const Vector<double>&,
                                                int, const Reduction<double>&);
template double lanczos_max_eigenvalue<double>(const LevelOperator<double>&,
                                               const BlockDiagonal<double>&, int,
                                               const Reduction<double>&);
template double arnoldi_spectral_radius<double>(const LevelOperator<double>&,
                                                const BlockDiagonal<double>&, int,
                                                const Reduction<double>&);

}  // namespace strata
