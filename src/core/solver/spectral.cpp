// Largest-eigenvalue estimates of D^-1 A (Lanczos, Arnoldi).

#include "strata/solver/spectral.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/solver/solver_kernels.hpp"

namespace strata {

namespace {

/// A start vector from a counter-based hash of the index (splitmix64), so the
/// estimate repeats run after run and is the same on host and device.
Vector<double> start_vector(const Executor& exec, size_type n) {
  std::vector<double> v(static_cast<std::size_t>(n));
  for (size_type i = 0; i < n; ++i) {
    std::uint64_t z = static_cast<std::uint64_t>(i) + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    v[i] = 0.5 + static_cast<double>(z >> 11) * 0x1.0p-53;  // in [0.5, 1.5): no zero entries
  }
  return Vector<double>(Array<double>(exec, v));
}

/// d_i = 1 / a_ii on A's executor; throws when a diagonal is zero or missing.
template <class T>
Vector<T> inverse_diagonal(const CsrMatrix<T>& A, const char* caller) {
  if (A.rows() != A.cols()) {
    throw dimension_mismatch(std::string(caller) + ": A must be square, it is " +
                             std::to_string(A.rows()) + " x " + std::to_string(A.cols()));
  }
  Vector<T> d(A.executor(), A.rows());
  const size_type bad = A.executor().visit([&](const auto& e) {
    return kernels::solver::diagonal_scaling(e, A.rows(), A.row_ptr().data(), A.col_idx().data(),
                                             A.values().data(),
                                             kernels::solver::Scaling::inverse_diagonal, d.data());
  });
  if (bad >= 0) {
    throw invalid_argument(std::string(caller) + ": row " + std::to_string(bad) +
                           " has a zero, missing or non-finite diagonal entry");
  }
  return d;
}

/// Number of eigenvalues of the symmetric tridiagonal (alpha, beta) below x
/// (Sturm sequence).
int eigenvalues_below(const std::vector<double>& alpha, const std::vector<double>& beta,
                      double x) {
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

}  // namespace

template <class T>
double lanczos_max_eigenvalue(const CsrMatrix<T>& A, int steps) {
  require(steps >= 1, "lanczos_max_eigenvalue: steps must be >= 1, got " + std::to_string(steps));
  const Executor& exec = A.executor();
  const size_type n = A.rows();
  Vector<T> d = inverse_diagonal(A, "lanczos_max_eigenvalue");
  if (n == 0) return 0.0;
  // D^-1/2: the similarity that makes D^-1 A symmetric needs a_ii > 0.
  const auto dh = d.to_vector();
  for (size_type i = 0; i < n; ++i) {
    if (!(dh[i] > 0)) {
      throw invalid_argument("lanczos_max_eigenvalue: row " + std::to_string(i) +
                             " has a diagonal entry <= 0; Lanczos on D^-1 A needs a positive "
                             "diagonal (use arnoldi_spectral_radius)");
    }
  }
  std::vector<double> sqrt_d(dh.size());
  for (std::size_t i = 0; i < dh.size(); ++i) sqrt_d[i] = std::sqrt(dh[i]);
  Vector<T> s(Array<T>(exec, sqrt_d));
  Vector<T> v = start_vector(exec, n), v_old(exec, n, 0.0), w(exec, n), t(exec, n);
  scale(1.0 / norm2(v), v);
  std::vector<double> alpha, beta;
  double beta_prev = 0.0;
  for (int j = 0; j < steps && j < n; ++j) {
    pointwise_multiply(s, v, t);  // w = S A S v with S = D^-1/2
    spmv(A, t, w);
    pointwise_multiply(s, w, w);
    const double a = dot(w, v);
    axpy(-a, v, w);
    if (j > 0) axpy(-beta_prev, v_old, w);
    alpha.push_back(a);
    const double b = norm2(w);
    if (!std::isfinite(a) || !std::isfinite(b)) {
      throw invalid_argument("lanczos_max_eigenvalue: the matrix produced NaN or Inf");
    }
    if (b <= 1e-14 * std::abs(a) || j + 1 == steps) break;  // invariant subspace found
    beta.push_back(b);
    beta_prev = b;
    std::swap(v_old, v);  // v_old <- v, v <- w / b
    axpby(1.0 / b, w, 0.0, v);
  }
  // Largest eigenvalue of the tridiagonal matrix by bisection inside the
  // Gershgorin interval.
  double lo = 0, hi = 0;
  for (std::size_t i = 0; i < alpha.size(); ++i) {
    const double r = (i > 0 ? std::abs(beta[i - 1]) : 0.0) +
                     (i < beta.size() ? std::abs(beta[i]) : 0.0);
    lo = std::min(lo, alpha[i] - r);
    hi = std::max(hi, alpha[i] + r);
  }
  const int k = static_cast<int>(alpha.size());
  for (int it = 0; it < 200 && hi - lo > 1e-14 * std::max(1.0, std::abs(hi)); ++it) {
    const double mid = 0.5 * (lo + hi);
    if (eigenvalues_below(alpha, beta, mid) < k) lo = mid;
    else hi = mid;
  }
  return hi;
}

template <class T>
double arnoldi_spectral_radius(const CsrMatrix<T>& A, int steps) {
  require(steps >= 1 && steps <= 10,
          "arnoldi_spectral_radius: steps must be in [1, 10], got " + std::to_string(steps));
  const Executor& exec = A.executor();
  const size_type n = A.rows();
  Vector<T> d = inverse_diagonal(A, "arnoldi_spectral_radius");
  if (n == 0) return 0.0;
  const int m = static_cast<int>(std::min<size_type>(steps, n));
  std::vector<Vector<T>> V;
  V.push_back(start_vector(exec, n));
  scale(1.0 / norm2(V[0]), V[0]);
  std::vector<std::vector<double>> H(m + 1, std::vector<double>(m, 0.0));
  Vector<T> w(exec, n);
  int k = 0;
  for (; k < m; ++k) {
    spmv(A, V[k], w);
    pointwise_multiply(d, w, w);
    for (int i = 0; i <= k; ++i) {  // modified Gram-Schmidt
      H[i][k] = dot(w, V[i]);
      axpy(-H[i][k], V[i], w);
    }
    H[k + 1][k] = norm2(w);
    if (!std::isfinite(H[k + 1][k])) {
      throw invalid_argument("arnoldi_spectral_radius: the matrix produced NaN or Inf");
    }
    if (H[k + 1][k] <= 1e-14) {
      ++k;
      break;
    }
    Vector<T> next(exec, n);
    axpby(1.0 / H[k + 1][k], w, 0.0, next);
    V.push_back(std::move(next));
  }
  // Spectral radius of the k x k Hessenberg matrix: the growth rate of
  // ||H^j x|| (power iteration with log-accumulated norms), which also
  // settles for a dominant complex pair.
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

template double lanczos_max_eigenvalue<double>(const CsrMatrix<double>&, int);
template double arnoldi_spectral_radius<double>(const CsrMatrix<double>&, int);

}  // namespace strata
