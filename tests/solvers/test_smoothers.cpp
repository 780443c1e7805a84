// Smoothers and spectral estimates.

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "strata/strata.hpp"
#include "test_util.hpp"

namespace strata {
namespace {

class Smoothers : public test::OnExecutor {};

/// Largest eigenvalue of D^-1 A for the 2D 5-point Laplacian on n x n:
/// (4 + 4 cos(pi/(n+1))) / 4.
double poisson2d_rho(int n) { return 1.0 + std::cos(std::numbers::pi / (n + 1)); }

TEST_P(Smoothers, LanczosAndArnoldiEstimateTheLargestEigenvalue) {
  const int n = 30;
  const auto A = gallery::poisson2d(exec(), n, n);
  const double exact = poisson2d_rho(n);
  const double lanczos = lanczos_max_eigenvalue(CsrOperator<double>(test::shared(A)), 10);
  EXPECT_LE(lanczos, exact * (1 + 1e-12));  // Ritz values approach from below
  EXPECT_GT(lanczos, 0.95 * exact);
  const double arnoldi = arnoldi_spectral_radius(CsrOperator<double>(test::shared(A)), 10);
  EXPECT_LE(arnoldi, exact * 1.02);
  EXPECT_GT(arnoldi, 0.9 * exact);
  EXPECT_THROW(arnoldi_spectral_radius(CsrOperator<double>(test::shared(A)), 11), invalid_argument);
  EXPECT_EQ(lanczos, lanczos_max_eigenvalue(CsrOperator<double>(test::shared(A)), 10)) << "estimates must repeat";
  // Below 6 steps the Gram form (one synchronisation): Ritz values of a
  // smaller Krylov space, so from below and no larger than 6 loop steps'.
  const double five = lanczos_max_eigenvalue(CsrOperator<double>(test::shared(A)), 5);
  const double six = lanczos_max_eigenvalue(CsrOperator<double>(test::shared(A)), 6);
  EXPECT_LE(five, six * (1 + 1e-9));
  EXPECT_GT(five, 0.85 * exact);
  EXPECT_LE(six, lanczos * (1 + 1e-9));
}

TEST_P(Smoothers, ArnoldiOnANonsymmetricMatrix) {
  const auto A = gallery::convdiff3d(exec(), 8, 8, 8);
  const double rho = arnoldi_spectral_radius(CsrOperator<double>(test::shared(A)), 10);
  EXPECT_GT(rho, 0.5);
  EXPECT_LT(rho, 2.0);  // Gershgorin: D^-1 A has row sums of |.| at most 2
}

/// ||x||_A^2
double energy(const CsrMatrix<double>& A, const Vector<double>& x) {
  Vector<double> t(A.executor(), A.rows());
  spmv(A, x, t);
  return dot(x, t);
}

TEST_P(Smoothers, EverySmootherReducesTheErrorInTheEnergyNorm) {
  const auto A = gallery::poisson3d(exec(), 12, 12, 12);
  Vector<double> b(exec(), A.rows(), 0.0);  // error equation: A e = 0
  const std::vector<SmootherParams> all = {
      JacobiParams{.omega = 2.0 / 3.0}, L1JacobiParams{},
      ChebyshevParams{.degree = 2},
      ChebyshevParams{.kind = ChebyshevParams::Kind::first, .degree = 3}};
  for (const auto& p : all) {
    auto S = make_smoother(test::shared(A), p);
    Vector<double> e(Array<double>(exec(), test::random_values(A.rows(), 5)));
    const double before = energy(A, e);
    S->smooth(b, e, 1);
    const double after1 = energy(A, e);
    S->smooth(b, e, 3);
    const double after4 = energy(A, e);
    EXPECT_LT(after1, before) << smoother_name(p);
    EXPECT_LT(after4, 0.5 * after1) << smoother_name(p) << ": a random error is mostly rough";
  }
}

TEST_P(Smoothers, JacobiSweepMatchesTheFormula) {
  const auto A = gallery::poisson2d(exec(), 3, 3);
  auto S = make_smoother(test::shared(A), JacobiParams{.omega = 0.5});
  Vector<double> b(Array<double>(exec(), {1, 2, 3, 4, 5, 6, 7, 8, 9}));
  Vector<double> x(exec(), 9, 1.0);
  S->smooth(b, x, 1);
  // x + 0.5/4 (b - A 1); row sums of A: 2 at corners, 1 at edges, 0 in the middle.
  const std::vector<double> Ax = {2, 1, 2, 1, 0, 1, 2, 1, 2};
  const auto got = x.to_vector();
  for (int i = 0; i < 9; ++i) EXPECT_DOUBLE_EQ(got[i], 1 + 0.125 * ((i + 1) - Ax[i])) << i;
  // As a preconditioner: x = omega D^-1 b.
  S->apply(b, x);
  EXPECT_DOUBLE_EQ(x.to_vector()[8], 0.125 * 9);
}

TEST_P(Smoothers, SweepFromEqualsCopyThenSmooth) {
  // The fused sweep of the AMG cycle (x = x0 + M^-1 (b - A x0) in one pass)
  // against its definition, formed here: r = b - A x0 by plain loops, then
  // x0 + apply(r) (apply starts from zero: another path through each
  // smoother, and for Chebyshev the same polynomial of D^-1 A).
  const auto A = gallery::poisson3d(exec(), 9, 8, 7);
  const Vector<double> b(Array<double>(exec(), test::random_values(A.rows(), 21)));
  const Vector<double> x0(Array<double>(exec(), test::random_values(A.rows(), 22)));
  const std::vector<SmootherParams> all = {JacobiParams{.omega = 2.0 / 3.0}, L1JacobiParams{},
                                           ChebyshevParams{.degree = 2}};
  for (const auto& p : all) {
    auto S = make_smoother(test::shared(A), p);
    const auto h = A.to(Executor::host());
    const auto rp = h.row_ptr().to_vector();
    const auto ci = h.col_idx().to_vector();
    const auto va = h.values().to_vector();
    const auto bv = b.to_vector(), xv = x0.to_vector();
    std::vector<double> r(bv);
    for (size_type i = 0; i < A.rows(); ++i) {
      for (auto k = rp[i]; k < rp[i + 1]; ++k) r[i] -= va[k] * xv[ci[k]];
    }
    Vector<double> z(exec(), A.rows());
    S->apply(Vector<double>(Array<double>(exec(), r)), z);
    std::vector<double> want = z.to_vector();
    for (size_type i = 0; i < A.rows(); ++i) want[i] += xv[i];
    Vector<double> x(exec(), A.rows(), -7.0);
    S->sweep_from(b, x0, x);
    const auto got = x.to_vector();
    for (size_type i = 0; i < A.rows(); ++i) {
      ASSERT_NEAR(got[i], want[i], 1e-12 * (1 + std::abs(want[i]))) << smoother_name(p) << " " << i;
    }
  }
  auto S = make_smoother(test::shared(A), L1JacobiParams{});
  Vector<double> same = x0.clone();
  EXPECT_THROW(S->sweep_from(b, same, same), invalid_argument);
  Vector<double> short_x(exec(), A.rows() - 1, 0.0);
  EXPECT_THROW(S->sweep_from(b, x0, short_x), dimension_mismatch);
}

TEST_P(Smoothers, L1JacobiUsesTheRowNorm) {
  const auto A = gallery::poisson2d(exec(), 3, 3);  // middle row: |4| + 4 |-1| = 8
  auto S = make_smoother(test::shared(A), L1JacobiParams{});
  Vector<double> b(exec(), 9, 1.0), x(exec(), 9, 0.0);
  S->apply(b, x);
  EXPECT_DOUBLE_EQ(x.to_vector()[4], 1.0 / 8);
  EXPECT_DOUBLE_EQ(x.to_vector()[0], 1.0 / 6);  // corner: 4 + 2
}

TEST_P(Smoothers, FourthKindChebyshevIsAPositiveDefinitePreconditioner) {
  const auto A = gallery::poisson2d(exec(), 8, 8);
  for (int degree : {1, 2, 3, 5}) {
    auto M = make_smoother(test::shared(A), ChebyshevParams{.degree = degree});
    // Symmetric and positive: y^T M x == x^T M y and x^T M x > 0.
    for (unsigned seed = 1; seed < 6; ++seed) {
      Vector<double> x(Array<double>(exec(), test::random_values(A.rows(), seed)));
      Vector<double> y(Array<double>(exec(), test::random_values(A.rows(), seed + 100)));
      Vector<double> Mx(exec(), A.rows()), My(exec(), A.rows());
      M->apply(x, Mx);
      M->apply(y, My);
      EXPECT_GT(dot(x, Mx), 0) << "degree " << degree;
      EXPECT_NEAR(dot(y, Mx), dot(x, My), 1e-12 * std::abs(dot(y, Mx)) + 1e-14);
    }
  }
}

TEST_P(Smoothers, ZeroDiagonalIsAClearError) {
  const auto e = exec();
  // Row 2 (1-based) has no diagonal entry.
  const CsrMatrix<double> A(3, 3, Array<offset_type>(e, {0, 1, 2, 3}),
                            Array<index_type>(e, {0, 2, 2}), Array<double>(e, {1, 1, 1}));
  for (const SmootherParams& p : {SmootherParams{JacobiParams{}}, SmootherParams{L1JacobiParams{}},
                                  SmootherParams{ChebyshevParams{}}}) {
    try {
      make_smoother(test::shared(A), p);
      FAIL() << smoother_name(p);
    } catch (const invalid_argument& err) {
      // The smoother's name, the 1-based row, and why.
      const std::string what = err.message();
      const std::string name = smoother_name(p);
      EXPECT_EQ(what.rfind(name + ": row 2 (1-based) of 3 has a zero", 0), 0u) << what;
      EXPECT_NE(what.find("; " + name + " divides by it"), std::string::npos) << what;
    }
  }
  EXPECT_THROW(make_smoother(test::shared(gallery::poisson2d(e, 3, 3)), JacobiParams{.omega = -1}),
               invalid_argument);
  EXPECT_THROW(make_smoother(test::shared(gallery::poisson2d(e, 3, 3)), ChebyshevParams{.degree = 0}),
               invalid_argument);
}

STRATA_INSTANTIATE_ON_EXECUTORS(Smoothers);

}  // namespace
}  // namespace strata
