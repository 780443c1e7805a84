// Blocked smoothed aggregation (issue 23): the tentative prolongator's
// invariants (BSR b x k, orthonormal, rigid-body modes in its range), the
// smoothed P against a dense reference, PCG iterations on elasticity3d and
// on the shared elasticity matrices, scalar SA against unsmoothed
// aggregation, near-null space validation, errors, and value-only resetup
// against a fresh setup.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "strata/strata.hpp"
#include "sa_test_util.hpp"
#include "test_util.hpp"

namespace strata {
namespace {

using amg::Hierarchy;
using amg::HierarchyParams;
using amg::SmoothedAggregationParams;
using test::bsr_of;
using test::clones;
using test::relative_difference;

std::shared_ptr<const LevelOperator<double>> bsr_level(const CsrMatrix<double>& A, int b) {
  return std::make_shared<const BsrOperator<double>>(share(to_bsr(A, b)));
}

/// Dense column-major copy of a (possibly rectangular) CSR or BSR level
/// operator, on the host.
std::vector<double> dense(const LevelOperator<double>& op) {
  const auto* csr = dynamic_cast<const CsrOperator<double>*>(&op);
  const CsrMatrix<double> A = csr != nullptr ? csr->matrix().clone() : to_csr(bsr_of(op));
  const auto rp = A.row_ptr().to_vector();
  const auto ci = A.col_idx().to_vector();
  const auto v = A.values().to_vector();
  std::vector<double> out(A.rows() * A.cols(), 0.0);
  for (size_type i = 0; i < A.rows(); ++i) {
    for (offset_type e = rp[i]; e < rp[i + 1]; ++e) out[i + ci[e] * A.rows()] += v[e];
  }
  return out;
}

struct Solve {
  int iterations = 0;
  bool converged = false;
  double relative_residual = 0;
};

Solve pcg(const CsrMatrix<double>& A, const Hierarchy<double>& H) {
  CsrOperator<double> op(test::shared(A));
  Vector<double> b(A.executor(), A.rows(), 1.0), x(A.executor(), A.rows(), 0.0);
  KrylovParams params;
  params.relative_tolerance = 1e-8;
  params.max_iterations = 300;
  const auto info = solve(KrylovMethod{Cg{params}}, op, b, x, &H);
  return {info.iterations, info.converged(), test::relative_residual(A, b, x)};
}

// ---------------------------------------------------------- near-null space

TEST(SmoothedAggregation, RigidBodyModesMatchTheGalleryIn3dAndAnnihilateA2dRotation) {
  const auto problem = gallery::elasticity3d(Executor::host(), 2);
  const auto modes = amg::rigid_body_modes(problem.coordinates, 3);
  ASSERT_EQ(modes.size(), 6u);
  for (std::size_t m = 0; m < 6; ++m) {
    EXPECT_EQ(modes[m].to_vector(), problem.rigid_body_modes[m].to_vector()) << "mode " << m;
  }
  // 2D: two nodes at (1, 2) and (3, -1).
  const Vector<double> xy(Array<double>(Executor::host(), {1.0, 2.0, 3.0, -1.0}));
  const auto modes2 = amg::rigid_body_modes(xy, 2);
  ASSERT_EQ(modes2.size(), 3u);
  EXPECT_EQ(modes2[0].to_vector(), (std::vector<double>{1, 0, 1, 0}));
  EXPECT_EQ(modes2[1].to_vector(), (std::vector<double>{0, 1, 0, 1}));
  EXPECT_EQ(modes2[2].to_vector(), (std::vector<double>{-2, 1, 1, 3}));
  EXPECT_THROW(amg::rigid_body_modes(xy, 4), invalid_argument);
  EXPECT_THROW(amg::rigid_body_modes(xy, 3), invalid_argument);  // 4 is no multiple of 3
}

TEST(SmoothedAggregation, NearNullSpaceValidationNamesWhatIsWrong) {
  const auto problem = gallery::elasticity3d(Executor::host(), 4);
  const size_type n = problem.A.rows();
  auto B = clones(problem.rigid_body_modes);
  EXPECT_NO_THROW(amg::validate_near_null_space(B, n, 3));
  auto expect_message = [&](const std::vector<Vector<double>>& modes, size_type rows, int bs,
                            const std::string& part) {
    try {
      amg::validate_near_null_space(modes, rows, bs);
      ADD_FAILURE() << "no error; expected one mentioning '" << part << "'";
    } catch (const invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  };
  expect_message(B, n + 3, 3, "near_null_space[0] has");          // wrong length
  expect_message(B, n, 7, "block_size 7 does not divide");        // block size
  expect_message(B, n, 0, "block_size must be >= 1");
  expect_message({}, n, 3, "no vectors");
  auto dependent = clones(B);
  dependent[4] = B[0].clone();
  axpy(2.0, B[3], dependent[4]);  // a combination of modes 0 and 3
  expect_message(dependent, n, 3, "near_null_space[4] is (numerically) a linear combination");
  auto nan = clones(B);
  nan[2] = B[2].clone();
  nan[2].values().host_view()[5] = std::nan("");
  expect_message(nan, n, 3, "near_null_space[2] holds a value that is not finite");
  auto zero = clones(B);
  zero[1] = Vector<double>(Executor::host(), n, 0.0);
  expect_message(zero, n, 3, "near_null_space[1] is zero");
  // The coarsening checks at setup, with the same messages.
  Hierarchy<double> ok(bsr_level(problem.A, 3),
                       amg::make_smoothed_aggregation_coarsening<double>({}, clones(B)),
                       {.coarse_size = 30});
  EXPECT_GE(ok.num_levels(), 2);
  EXPECT_THROW(Hierarchy<double>(bsr_level(problem.A, 3),
                                 amg::make_smoothed_aggregation_coarsening<double>(
                                     {}, clones(dependent)),
                                 {.coarse_size = 30}),
               invalid_argument);
}

TEST(SmoothedAggregation, ParametersAndLevelKindsAreChecked) {
  const auto problem = gallery::elasticity3d(Executor::host(), 4);
  const HierarchyParams coarsen{.coarse_size = 30};
  auto make = [](SmoothedAggregationParams p) {
    return amg::make_smoothed_aggregation_coarsening<double>(p);
  };
  EXPECT_THROW(make({.block_size = -1}), invalid_argument);
  EXPECT_THROW(make({.strength_threshold = 1.0}), invalid_argument);
  EXPECT_THROW(make({.strength_threshold = std::nan("")}), invalid_argument);
  EXPECT_THROW(make({.prolongator_damping = 2.0}), invalid_argument);
  EXPECT_THROW(make({.prolongator_damping = 0.0}), invalid_argument);
  // A CSR level with block size 3: the message says to convert with to_bsr.
  try {
    Hierarchy<double> H(test::shared(problem.A), make({.block_size = 3}), coarsen);
    ADD_FAILURE() << "a CSR level with block size 3 was accepted";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("to_bsr"), std::string::npos) << e.what();
  }
  // A BSR level whose blocks differ from the block size asked for.
  EXPECT_THROW(Hierarchy<double>(bsr_level(problem.A, 3), make({.block_size = 2}), coarsen),
               invalid_argument);
  // Non-square blocks.
  EXPECT_THROW(Hierarchy<double>(std::make_shared<const BsrOperator<double>>(
                                     share(to_bsr(problem.A, 3, 1))),
                                 make({}), coarsen),
               invalid_argument);
}

// ------------------------------------------------------- the prolongators

/// The tentative prolongator (smooth_prolongator = false) on elasticity3d
/// with its rigid-body modes: BSR 3x6 with one block per block row, then
/// 6x6 below; orthonormal columns; the modes in its range.
TEST(SmoothedAggregation, TentativeProlongatorIsBlockedOrthonormalAndKeepsTheModes) {
  const auto problem = gallery::elasticity3d(Executor::host(), 6);
  Hierarchy<double> H(bsr_level(problem.A, 3),
                      amg::make_smoothed_aggregation_coarsening<double>(
                          {.smooth_prolongator = false}, clones(problem.rigid_body_modes)),
                      {.coarse_size = 12});
  ASSERT_GE(H.num_levels(), 3);
  for (int l = 0; l + 1 < H.num_levels(); ++l) {
    const BsrMatrix<double>& P = bsr_of(H.level_interpolation_operator(l));
    EXPECT_EQ(P.row_block_size(), l == 0 ? 3 : 6) << "level " << l;
    EXPECT_EQ(P.col_block_size(), 6) << "level " << l;
    const auto row_ptr = P.row_ptr().to_vector();
    for (size_type I = 0; I < P.block_rows(); ++I) EXPECT_LE(row_ptr[I + 1] - row_ptr[I], 1);
    const BsrMatrix<double>& Ac = bsr_of(H.level_operator(l + 1));
    EXPECT_EQ(Ac.row_block_size(), 6);
    EXPECT_EQ(Ac.col_block_size(), 6);
  }
  // Level 0: P^T P = I and P P^T B = B for every rigid-body mode.
  const auto& Pop = H.level_interpolation_operator(0);
  const size_type n = Pop.rows(), m = Pop.cols();
  const auto P = dense(Pop);
  for (size_type a = 0; a < m; ++a) {
    for (size_type c = 0; c < m; ++c) {
      double s = 0;
      for (size_type i = 0; i < n; ++i) s += P[i + a * n] * P[i + c * n];
      EXPECT_NEAR(s, a == c ? 1.0 : 0.0, 1e-12) << a << ", " << c;
    }
  }
  for (const auto& mode : problem.rigid_body_modes) {
    const auto v = mode.to_vector();
    std::vector<double> coef(m, 0.0);
    for (size_type c = 0; c < m; ++c) {
      for (size_type i = 0; i < n; ++i) coef[c] += P[i + c * n] * v[i];
    }
    double err = 0, ref = 0;
    for (size_type i = 0; i < n; ++i) {
      double pv = 0;
      for (size_type c = 0; c < m; ++c) pv += P[i + c * n] * coef[c];
      err = std::max(err, std::abs(pv - v[i]));
      ref = std::max(ref, std::abs(v[i]));
    }
    EXPECT_LT(err, 1e-12 * ref);
  }
}

/// A near-null space of full rank globally but rank-deficient on some
/// aggregates (B = {1, step}: the step is constant on the aggregates away
/// from its jump): the dependent columns are completed by orthonormal
/// vectors instead of dropped, so P keeps k = 2 columns per aggregate, with
/// P^T P = I and B in its range.
TEST(SmoothedAggregation, RankDeficientAggregatesAreCompletedNotDropped) {
  const size_type nx = 24;
  const auto A = gallery::poisson2d(Executor::host(), nx, nx);
  std::vector<double> ones(A.rows(), 1.0), step(A.rows(), 0.0);
  for (size_type i = 0; i < A.rows(); ++i) step[i] = i % nx < nx / 2 ? 0.0 : 1.0;
  std::vector<Vector<double>> B;
  B.emplace_back(Array<double>(Executor::host(), ones));
  B.emplace_back(Array<double>(Executor::host(), step));
  Hierarchy<double> H(bsr_level(A, 1),
                      amg::make_smoothed_aggregation_coarsening<double>(
                          {.smooth_prolongator = false}, clones(B)),
                      {.max_levels = 2});
  ASSERT_EQ(H.num_levels(), 2);
  const BsrMatrix<double>& Pb = bsr_of(H.level_interpolation_operator(0));
  EXPECT_EQ(Pb.col_block_size(), 2);
  const size_type n = Pb.rows(), m = Pb.cols();
  const auto P = dense(H.level_interpolation_operator(0));
  int zero_columns = 0;
  for (size_type a = 0; a < m; ++a) {
    double norm = 0;
    for (size_type c = 0; c < m; ++c) {
      double s = 0;
      for (size_type i = 0; i < n; ++i) s += P[i + a * n] * P[i + c * n];
      EXPECT_NEAR(s, a == c ? 1.0 : 0.0, 1e-12) << a << ", " << c;
      if (a == c) norm = s;
    }
    zero_columns += norm == 0;
  }
  EXPECT_EQ(zero_columns, 0);
  for (const auto& v : {ones, step}) {
    double err = 0;
    for (size_type i = 0; i < n; ++i) {
      double pv = 0;
      for (size_type c = 0; c < m; ++c) {
        double coef = 0;
        for (size_type j = 0; j < n; ++j) coef += P[j + c * n] * v[j];
        pv += P[i + c * n] * coef;
      }
      err = std::max(err, std::abs(pv - v[i]));
    }
    EXPECT_LT(err, 1e-12);
  }
  // The smoothed hierarchy on the same B converges.
  Hierarchy<double> S(bsr_level(A, 1), amg::make_smoothed_aggregation_coarsening<double>({}, clones(B)));
  const Solve s = pcg(A, S);
  EXPECT_TRUE(s.converged);
  EXPECT_LE(s.iterations, 25);
}

/// More near-null vectors than an aggregate has unknowns: a 1D Laplacian
/// on 60 points beside a separate pair of points (which MIS(2) makes an
/// aggregate of 2), with 3 polynomial vectors: a clear error, not a P with
/// zero columns.
TEST(SmoothedAggregation, AggregatesSmallerThanTheNearNullSpaceAreAnError) {
  const size_type chain = 60, n = chain + 2;
  std::vector<offset_type> row_ptr{0};
  std::vector<index_type> col;
  std::vector<double> val;
  auto entry = [&](size_type j, double v) {
    col.push_back(index_type(j));
    val.push_back(v);
  };
  for (size_type i = 0; i < n; ++i) {
    const size_type first = i < chain ? 0 : chain, last = i < chain ? chain - 1 : n - 1;
    if (i > first) entry(i - 1, -1.0);
    entry(i, 2.0);
    if (i < last) entry(i + 1, -1.0);
    row_ptr.push_back(offset_type(col.size()));
  }
  const Executor h = Executor::host();
  const CsrMatrix<double> A(n, n, Array<offset_type>(h, row_ptr), Array<index_type>(h, col),
                            Array<double>(h, val));
  std::vector<Vector<double>> B;
  for (int p = 0; p < 3; ++p) {
    std::vector<double> v(n);
    for (size_type i = 0; i < n; ++i) v[i] = std::pow(double(i) / n, p);
    B.emplace_back(Array<double>(h, v));
  }
  try {
    Hierarchy<double> H(test::shared(A),
                        amg::make_smoothed_aggregation_coarsening<double>({}, clones(B)),
                        {.coarse_size = 4});
    ADD_FAILURE() << "3 near-null vectors on an aggregate of 2 points were accepted";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("fewer unknowns than the 3 near-null vectors"),
              std::string::npos)
        << e.what();
  }
}

/// The smoothed P equals (I - omega D^-1 A) P_tent with the block diagonal
/// D of A, computed densely here, and omega rho(D^-1 A) is close to 4/3
/// (rho by dense power iteration).
TEST(SmoothedAggregation, SmoothedProlongatorIsTheDampedBlockJacobiStepOfTheTentativeOne) {
  const auto problem = gallery::elasticity3d(Executor::host(), 3);
  const auto A = dense(CsrOperator<double>(test::shared(problem.A)));
  const size_type n = problem.A.rows();
  auto build = [&](bool smooth) {
    return std::make_unique<Hierarchy<double>>(
        bsr_level(problem.A, 3),
        amg::make_smoothed_aggregation_coarsening<double>({.smooth_prolongator = smooth},
                                                          clones(problem.rigid_body_modes)),
        HierarchyParams{.max_levels = 2});
  };
  const auto Ht = build(false), Hs = build(true);
  const auto T = dense(Ht->level_interpolation_operator(0));
  const auto P = dense(Hs->level_interpolation_operator(0));
  const size_type m = Ht->level_interpolation_operator(0).cols();
  ASSERT_EQ(m, Hs->level_interpolation_operator(0).cols());
  // D^-1 by inverting each 3x3 diagonal block (Cramer's rule).
  std::vector<double> Dinv(n * 3);  // row i: the 3 entries of its block row
  for (size_type I = 0; I < n / 3; ++I) {
    double a[3][3];
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) a[r][c] = A[(3 * I + r) + (3 * I + c) * n];
    const double det = a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) -
                       a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
                       a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 3; ++c) {
        const int r1 = (c + 1) % 3, r2 = (c + 2) % 3, c1 = (r + 1) % 3, c2 = (r + 2) % 3;
        Dinv[(3 * I + r) * 3 + c] = (a[r1][c1] * a[r2][c2] - a[r1][c2] * a[r2][c1]) / det;
      }
    }
  }
  auto apply_dinv_a = [&](const std::vector<double>& x) {
    std::vector<double> ax(n, 0.0), y(n, 0.0);
    for (size_type j = 0; j < n; ++j)
      for (size_type i = 0; i < n; ++i) ax[i] += A[i + j * n] * x[j];
    for (size_type i = 0; i < n; ++i) {
      const size_type I = i / 3;
      for (int c = 0; c < 3; ++c) y[i] += Dinv[i * 3 + c] * ax[3 * I + c];
    }
    return y;
  };
  // X = D^-1 A T column by column; P - T = -omega X fits one omega.
  std::vector<double> X(n * m);
  for (size_type c = 0; c < m; ++c) {
    const auto y = apply_dinv_a(std::vector<double>(T.begin() + c * n, T.begin() + (c + 1) * n));
    std::copy(y.begin(), y.end(), X.begin() + c * n);
  }
  double xx = 0, dx = 0;
  for (size_type t = 0; t < n * m; ++t) {
    xx += X[t] * X[t];
    dx += (P[t] - T[t]) * X[t];
  }
  const double omega = -dx / xx;
  double misfit = 0, scale = 0;
  for (size_type t = 0; t < n * m; ++t) {
    misfit = std::max(misfit, std::abs(P[t] - T[t] + omega * X[t]));
    scale = std::max(scale, std::abs(P[t]));
  }
  EXPECT_LT(misfit, 1e-12 * scale);
  std::vector<double> v(n, 1.0);
  for (size_type i = 0; i < n; ++i) v[i] += 0.1 * std::sin(double(i));
  double rho = 0;
  for (int it = 0; it < 2000; ++it) {
    auto w = apply_dinv_a(v);
    double norm = 0;
    for (double x : w) norm += x * x;
    norm = std::sqrt(norm);
    rho = norm / std::sqrt(std::inner_product(v.begin(), v.end(), v.begin(), 0.0));
    for (size_type i = 0; i < n; ++i) v[i] = w[i] / norm;
  }
  std::printf("  omega %.4f, rho(D^-1 A) %.4f, omega rho %.4f\n", omega, rho, omega * rho);
  EXPECT_GT(omega * rho, 4.0 / 3.0 * 0.999);  // the estimate approaches rho from below
  EXPECT_LT(omega * rho, 4.0 / 3.0 * 1.15);
}

/// A block size without a register path (4: W lives in scratch) gives the
/// same damped block-Jacobi step: P - P_tent = -omega D^-1 A P_tent with
/// one omega, D^-1 from BlockDiagonal (tested on its own).
TEST(SmoothedAggregation, SmoothedProlongatorWithAGenericBlockSize) {
  const CsrMatrix<double> A = gallery::poisson2d(Executor::host(), 8, 8);  // 16 blocks of 4x4
  const BsrMatrix<double> Ab = to_bsr(A, 4);
  const size_type n = A.rows();
  auto build = [&](bool smooth) {
    return std::make_unique<Hierarchy<double>>(
        bsr_level(A, 4), amg::make_smoothed_aggregation_coarsening<double>(
                             {.smooth_prolongator = smooth}),
        HierarchyParams{.max_levels = 2, .coarse_size = 1});
  };
  const auto Ht = build(false), Hs = build(true);
  ASSERT_EQ(Hs->level_interpolation_operator(0).kind(), "BSR 4x4");
  const auto T = dense(Ht->level_interpolation_operator(0));
  const auto P = dense(Hs->level_interpolation_operator(0));
  const size_type m = Ht->level_interpolation_operator(0).cols();
  ASSERT_EQ(m, Hs->level_interpolation_operator(0).cols());
  const auto Ad = dense(CsrOperator<double>(test::shared(A)));
  const auto Dinv = BlockDiagonal<double>::inverse(Ab).values().to_vector();
  std::vector<double> X(n * m, 0.0);
  for (size_type c = 0; c < m; ++c) {
    std::vector<double> ax(n, 0.0);
    for (size_type j = 0; j < n; ++j)
      for (size_type i = 0; i < n; ++i) ax[i] += Ad[i + j * n] * T[j + c * n];
    for (size_type i = 0; i < n; ++i) {
      const size_type I = i / 4, r = i % 4;
      for (int s2 = 0; s2 < 4; ++s2) X[i + c * n] += Dinv[I * 16 + r * 4 + s2] * ax[4 * I + s2];
    }
  }
  double xx = 0, dx = 0;
  for (size_type t = 0; t < n * m; ++t) {
    xx += X[t] * X[t];
    dx += (P[t] - T[t]) * X[t];
  }
  ASSERT_GT(xx, 0.0);
  const double omega = -dx / xx;
  double misfit = 0, scale = 0;
  for (size_type t = 0; t < n * m; ++t) {
    misfit = std::max(misfit, std::abs(P[t] - T[t] + omega * X[t]));
    scale = std::max(scale, std::abs(P[t]));
  }
  EXPECT_GT(omega, 0.0);
  EXPECT_LT(misfit, 1e-12 * scale);
}

// ---------------------------------------------------------- convergence

/// PCG + SA V-cycle on elasticity3d with its rigid-body modes, smoothed by
/// l1-Jacobi (the hierarchy's default) and by Chebyshev, both point-block on
/// the BSR levels: bounded
/// iterations that grow slowly with n, fewer than the unsmoothed blocked
/// aggregation (tentative P only) with the same smoother.
TEST(SmoothedAggregation, Elasticity3dPcgIterationsStayBounded) {
  std::vector<int> l1, chebyshev, unsmoothed;
  for (size_type ne : {8, 12, 16}) {
    const auto problem = gallery::elasticity3d(Executor::host(), ne);
    for (int variant = 0; variant < 3; ++variant) {
      HierarchyParams params;
      if (variant == 1) params.smoother = ChebyshevParams{};
      Hierarchy<double> H(bsr_level(problem.A, 3),
                          amg::make_smoothed_aggregation_coarsening<double>(
                              {.smooth_prolongator = variant != 2},
                              amg::rigid_body_modes(problem.coordinates, 3)),
                          params);
      const Solve s = pcg(problem.A, H);
      const char* name[] = {"SA, l1-Jacobi", "SA, Chebyshev", "UA, l1-Jacobi"};
      std::printf("  elasticity3d %2lld (%6lld rows): %s, %d levels, complexity %.2f, PCG %d\n",
                  (long long)ne, (long long)problem.A.rows(), name[variant], H.num_levels(),
                  H.summary().operator_complexity, s.iterations);
      EXPECT_TRUE(s.converged) << "n = " << ne;
      EXPECT_LT(s.relative_residual, 1.01e-8);
      (variant == 0 ? l1 : variant == 1 ? chebyshev : unsmoothed).push_back(s.iterations);
    }
  }
  for (std::size_t i = 0; i < l1.size(); ++i) {
    EXPECT_LT(l1[i], unsmoothed[i]);
    EXPECT_LE(l1[i], 36);
    EXPECT_LE(chebyshev[i], 18);
  }
  EXPECT_LE(l1[2], 1.2 * l1[0]);
  EXPECT_LE(chebyshev[2], 1.2 * chebyshev[0]);
}

/// Block size 1, no near-null space: scalar SA with B = 1 needs fewer PCG
/// iterations than unsmoothed aggregation on the same V-cycle, and a CSR
/// level works as well as its 1x1 BSR copy.
TEST(SmoothedAggregation, ScalarSmoothedAggregationBeatsUnsmoothedOnPoisson) {
  const auto A = gallery::poisson3d(Executor::host(), 24, 24, 24);
  Hierarchy<double> sa(test::shared(A), amg::make_smoothed_aggregation_coarsening<double>({}));
  Hierarchy<double> sa_bsr(bsr_level(A, 1), amg::make_smoothed_aggregation_coarsening<double>({}));
  Hierarchy<double> ua(test::shared(A), amg::make_aggregation_coarsening<double>({}));
  const Solve s = pcg(A, sa), s1 = pcg(A, sa_bsr), u = pcg(A, ua);
  std::printf("  poisson3d 24: scalar SA %d (%d levels, complexity %.2f), unsmoothed %d\n",
              s.iterations, sa.num_levels(), sa.summary().operator_complexity, u.iterations);
  EXPECT_TRUE(s.converged && u.converged);
  EXPECT_EQ(s.iterations, s1.iterations);
  EXPECT_LT(s.iterations, u.iterations);
  EXPECT_LE(s.iterations, 25);
  EXPECT_NE(sa.summary().coarsening.find("block 1, 1 near-null vectors"), std::string::npos)
      << sa.summary().coarsening;
}

/// A scalar 27-point stencil couples each point to its neighbours at 1/26
/// of the diagonal, below the default theta 0.05: with nothing strong no
/// aggregate would form and the hierarchy would be one level. Such a level
/// is aggregated with theta 0 instead, and the description says so; the
/// elasticity problem (strong couplings) keeps its theta.
TEST(SmoothedAggregation, ThetaAboveEveryCouplingFallsBackToZeroNotToOneLevel) {
  const auto A = gallery::diffusion3d_27pt(Executor::host(), 20, 20, 20);
  Hierarchy<double> sa(test::shared(A), amg::make_smoothed_aggregation_coarsening<double>({}));
  const Solve s = pcg(A, sa);
  std::printf("  diffusion27 20: scalar SA %d levels, complexity %.2f, PCG %d\n", sa.num_levels(),
              sa.summary().operator_complexity, s.iterations);
  EXPECT_GE(sa.num_levels(), 3);
  EXPECT_TRUE(s.converged);
  EXPECT_LE(s.iterations, 20);  // 18; one level would smooth 20 times and take hundreds
  EXPECT_NE(
      sa.summary().coarsening.find("theta 0.05 (0 where no coupling exceeded it, from level 0)"),
      std::string::npos)
      << sa.summary().coarsening;
  // Asked for theta 0 outright: the same hierarchy, no remark.
  Hierarchy<double> zero(test::shared(A), amg::make_smoothed_aggregation_coarsening<double>(
                                              {.strength_threshold = 0.0}));
  EXPECT_EQ(zero.num_levels(), sa.num_levels());
  EXPECT_EQ(pcg(A, zero).iterations, s.iterations);
  EXPECT_EQ(zero.summary().coarsening.find("no coupling exceeded"), std::string::npos);

  const auto problem = gallery::elasticity3d(Executor::host(), 8);
  Hierarchy<double> el(bsr_level(problem.A, 3),
                       amg::make_smoothed_aggregation_coarsening<double>(
                           {}, amg::rigid_body_modes(problem.coordinates, 3)));
  EXPECT_EQ(el.summary().coarsening.find("no coupling exceeded"), std::string::npos)
      << el.summary().coarsening;
}

/// Filtering weak connections (theta = 0.1): a sparser P, still converging.
TEST(SmoothedAggregation, FilteringWeakConnectionsKeepsConvergence) {
  const auto problem = gallery::elasticity3d(Executor::host(), 8, {.poisson_ratio = 0.3});
  auto build = [&](bool filter) {
    return std::make_unique<Hierarchy<double>>(
        bsr_level(problem.A, 3),
        amg::make_smoothed_aggregation_coarsening<double>(
            {.strength_threshold = 0.1, .filter_weak = filter}, clones(problem.rigid_body_modes)));
  };
  const auto plain = build(false), filtered = build(true);
  const Solve sp = pcg(problem.A, *plain), sf = pcg(problem.A, *filtered);
  const size_type nnz_plain = plain->level_interpolation_operator(0).nnz();
  const size_type nnz_filtered = filtered->level_interpolation_operator(0).nnz();
  std::printf("  theta 0.1: unfiltered PCG %d (P nnz %lld), filtered PCG %d (P nnz %lld)\n",
              sp.iterations, (long long)nnz_plain, sf.iterations, (long long)nnz_filtered);
  EXPECT_TRUE(sp.converged && sf.converged);
  EXPECT_LT(nnz_filtered, nnz_plain);
  EXPECT_LE(sf.iterations, 50);
}

// ---------------------------------------------------------- shared data

std::string data(const char* file) { return test::data_dir() + "/" + file; }

std::vector<Vector<double>> columns(const io::DenseBlock& block) {
  std::vector<Vector<double>> out;
  for (size_type c = 0; c < block.cols; ++c) {
    const std::vector<double> column(block.values.begin() + c * block.rows,
                                     block.values.begin() + (c + 1) * block.rows);
    out.emplace_back(Array<double>(Executor::host(), column));
  }
  return out;
}

TEST(SmoothedAggregationData, SharedElasticityMatricesConvergeInAtMost40Iterations) {
  STRATA_REQUIRE_DATA();
  struct File {
    const char* matrix;
    const char* modes;
    int block_size;
    bool add_translations;  // hypre's rbms files hold the rotations only
  };
  for (const File& f : {File{"hypre/beam_hex_dof459_np2_A.mtx",
                             "hypre/beam_hex_dof459_np2_rbms.mtx", 3, true},
                        File{"hypre/beam_tet_dof459_np1_A.mtx",
                             "hypre/beam_tet_dof459_np1_rbms.mtx", 3, true},
                        File{"hypre/elast2d_TEST_ij_A.mtx", "hypre/elast2d_TEST_ij_rbm.mtx", 2,
                             false},
                        File{"pyamg/bar_A.mtx", "pyamg/bar_B.mtx", 3, false}}) {
    const auto A = io::read_matrix_market(data(f.matrix));
    auto B = columns(io::read_matrix_market_dense(data(f.modes)));
    if (f.add_translations) {
      std::vector<Vector<double>> all;
      for (int c = 0; c < f.block_size; ++c) {
        std::vector<double> t(A.rows(), 0.0);
        for (size_type i = c; i < A.rows(); i += f.block_size) t[i] = 1.0;
        all.emplace_back(Array<double>(Executor::host(), t));
      }
      for (auto& v : B) all.push_back(std::move(v));
      B = std::move(all);
    }
    // Chebyshev (degree 2, fourth kind; point-block), GAMG's default
    // smoother: the scalar l1-Jacobi needed more than 40 iterations on some
    // of these.
    Hierarchy<double> H(bsr_level(A, f.block_size),
                        amg::make_smoothed_aggregation_coarsening<double>({}, clones(B)),
                        {.coarse_size = 30, .smoother = ChebyshevParams{}});
    const Solve s = pcg(A, H);
    std::printf("  %s: %lld rows, %zu modes, %d levels, complexity %.2f, PCG %d\n", f.matrix,
                (long long)A.rows(), B.size(), H.num_levels(), H.summary().operator_complexity,
                s.iterations);
    EXPECT_GE(H.num_levels(), 2) << f.matrix;
    EXPECT_TRUE(s.converged) << f.matrix;
    EXPECT_LT(s.relative_residual, 1.01e-8) << f.matrix;
    EXPECT_LE(s.iterations, 40) << f.matrix;
  }
}

// ---------------------------------------------------------- resetup

/// The default resetup keeps P (resetup_keeps_prolongator): after new
/// values every P is unchanged bit for bit, and every coarse operator is
/// R A P of the new values with the kept P (R = P^T).
TEST(SmoothedAggregation, ResetupKeepsTheProlongatorAndRecomputesTheCoarseOperators) {
  const auto problem = gallery::elasticity3d(Executor::host(), 8);
  const auto original = to_bsr(problem.A, 3);
  auto A = share(original.clone());
  Hierarchy<double> H(std::make_shared<const BsrOperator<double>>(A),
                      amg::make_smoothed_aggregation_coarsening<double>(
                          {}, clones(problem.rigid_body_modes)),
                      HierarchyParams{.coarse_size = 30});
  ASSERT_GE(H.num_levels(), 3);
  std::vector<std::vector<double>> P_before;
  for (int l = 0; l + 1 < H.num_levels(); ++l) {
    P_before.push_back(bsr_of(H.level_interpolation_operator(l)).values().to_vector());
  }
  const auto A1_before = bsr_of(H.level_operator(1)).values().to_vector();
  auto changed = original.clone();
  test::permute_and_scale_blocks(changed);
  copy(changed.values(), A->values());
  H.resetup();
  for (int l = 0; l + 1 < H.num_levels(); ++l) {
    SCOPED_TRACE("level " + std::to_string(l));
    const BsrMatrix<double>& P = bsr_of(H.level_interpolation_operator(l));
    EXPECT_EQ(P.values().to_vector(), P_before[static_cast<std::size_t>(l)]);
    const auto expected = galerkin_product(transpose(P), bsr_of(H.level_operator(l)), P);
    EXPECT_EQ(bsr_of(H.level_operator(l + 1)).values().to_vector(),
              expected.values().to_vector());
  }
  EXPECT_GT(relative_difference(bsr_of(H.level_operator(1)).values().to_vector(), A1_before),
            1e-3);  // the coarse operators did change
}

/// The lean resetup data frees each blocked Galerkin product's A P: a
/// resetup multiplies it afresh and gives the coarse operators of the full
/// resetup data bit for bit, with less memory held.
TEST(SmoothedAggregation, LeanResetupGivesTheSameCoarseOperators) {
  const auto problem = gallery::elasticity3d(Executor::host(), 8);
  const auto original = to_bsr(problem.A, 3);
  auto changed = original.clone();
  test::permute_and_scale_blocks(changed);
  std::vector<std::unique_ptr<Hierarchy<double>>> H;
  std::vector<std::shared_ptr<BsrMatrix<double>>> A;
  for (bool lean : {false, true}) {
    A.push_back(share(original.clone()));
    H.push_back(std::make_unique<Hierarchy<double>>(
        std::make_shared<const BsrOperator<double>>(A.back()),
        amg::make_smoothed_aggregation_coarsening<double>({}, clones(problem.rigid_body_modes)),
        HierarchyParams{.coarse_size = 30, .lean_resetup_data = lean}));
  }
  ASSERT_GE(H[0]->num_levels(), 3);
  EXPECT_LT(H[1]->summary().setup_bytes, H[0]->summary().setup_bytes);
  for (int round = 0; round < 2; ++round) {
    for (std::size_t k = 0; k < 2; ++k) {
      copy((round == 0 ? changed : original).values(), A[k]->values());
      H[k]->resetup();
    }
    test::expect_same_hierarchy(*H[1], *H[0], "lean against full, round " + std::to_string(round));
  }
}

/// With resetup_keeps_prolongator = false, new values with the same pattern
/// (test::permute_and_scale_blocks, which keeps the fine level's strength
/// ratios bit for bit): a resetup gives the
/// P and coarse operator that a fresh setup on the new values gives (two
/// levels: below, a fresh setup sees another coarse operator and may choose
/// other aggregates, which a resetup keeps by design); and on every level a
/// resetup back to the first values restores the first hierarchy.
TEST(SmoothedAggregation, ResetupEqualsAFreshSetupAndRoundTrips) {
  for (bool filter : {false, true}) {
    const std::string what = filter ? "filtered" : "unfiltered";
    const auto problem = gallery::elasticity3d(Executor::host(), 8);
    const SmoothedAggregationParams params{.strength_threshold = filter ? 0.1 : 0.05,
                                           .filter_weak = filter,
                                           .resetup_keeps_prolongator = false};
    auto build = [&](std::shared_ptr<const BsrMatrix<double>> M, int max_levels) {
      return std::make_unique<Hierarchy<double>>(
          std::make_shared<const BsrOperator<double>>(std::move(M)),
          amg::make_smoothed_aggregation_coarsening<double>(params,
                                                            clones(problem.rigid_body_modes)),
          HierarchyParams{.max_levels = max_levels, .coarse_size = 30});
    };
    const auto original = to_bsr(problem.A, 3);
    auto changed = original.clone();
    test::permute_and_scale_blocks(changed);
    // Two levels against a fresh setup.
    auto A2 = share(original.clone());
    auto H2 = build(A2, 2);
    const auto P_before = bsr_of(H2->level_interpolation_operator(0)).values().to_vector();
    copy(changed.values(), A2->values());
    H2->resetup();
    EXPECT_GT(relative_difference(bsr_of(H2->level_interpolation_operator(0)).values().to_vector(),
                                  P_before),
              1e-3)
        << what;  // the values did change
    test::expect_same_hierarchy(*H2, *build(share(changed.clone()), 2), "fresh, " + what);
    // Every level: there and back again.
    auto A = share(original.clone());
    auto H = build(A, 25);
    ASSERT_GE(H->num_levels(), 3);
    const auto P1_before = bsr_of(H->level_interpolation_operator(1)).values().to_vector();
    copy(changed.values(), A->values());
    H->resetup();
    EXPECT_GT(relative_difference(bsr_of(H->level_interpolation_operator(1)).values().to_vector(),
                                  P1_before),
              1e-6)
        << what;  // the coarse level's P was refreshed too
    copy(original.values(), A->values());
    H->resetup();
    test::expect_same_hierarchy(*H, *build(share(original.clone()), 25), "round trip, " + what);
  }
}

}  // namespace
}  // namespace strata
