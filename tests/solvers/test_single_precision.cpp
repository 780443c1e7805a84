// The single-precision AMG cycle (HierarchyParams::cycle_precision): every
// family of hierarchy cycled in float under a Krylov method in double still
// reaches 1e-8 in the true residual, in about the iterations of the double
// cycle; the scaling of the residual keeps any magnitude of b in float's
// range; what has no single-precision form says so at setup.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "sa_test_util.hpp"
#include "strata/amg/aggregation.hpp"
#include "strata/amg/classical.hpp"
#include "strata/amg/smoothed_aggregation.hpp"
#include "strata/gallery/gallery.hpp"
#include "test_util.hpp"

namespace strata {
namespace {

using amg::CyclePrecision;
using amg::Hierarchy;
using amg::HierarchyParams;

struct Solve {
  int iterations = 0;
  bool converged = false;
  double relative_residual = 0;
};

/// CG (or FCG for a K-cycle) to 1e-8 on A x = ones, preconditioned by H.
Solve krylov(const CsrMatrix<double>& A, const Hierarchy<double>& H) {
  CsrOperator<double> op(test::shared(A));
  Vector<double> b(A.executor(), A.rows(), 1.0), x(A.executor(), A.rows(), 0.0);
  KrylovParams p;
  p.relative_tolerance = 1e-8;
  p.max_iterations = 200;
  const auto info = H.is_fixed() ? solve(KrylovMethod{Cg{p}}, op, b, x, &H)
                                 : solve(KrylovMethod{Fcg{p}}, op, b, x, &H);
  return {info.iterations, info.converged(), test::relative_residual(A, b, x)};
}

/// A with every value times `factor` (same pattern, same executor).
CsrMatrix<double> scaled(const CsrMatrix<double>& A, double factor) {
  std::vector<double> v = A.values().to_vector();
  for (double& x : v) x *= factor;
  return CsrMatrix<double>(A.rows(), A.cols(), A.row_ptr().clone(), A.col_idx().clone(),
                           Array<double>(A.executor(), v));
}

HierarchyParams single(HierarchyParams p) {
  p.cycle_precision = CyclePrecision::single;
  return p;
}

class SinglePrecisionCycle : public test::OnExecutor {};

/// The same hierarchy cycled in double and in single precision: both
/// converge to 1e-8 in the true residual (the Krylov method is in double),
/// the single one in at most `extra` more iterations, and one application
/// of each agrees to float's accuracy.
template <class Make>
void expect_single_like_double(const CsrMatrix<double>& A, Make make, const char* what,
                               int extra = 1) {
  const Hierarchy<double> full = make(CyclePrecision::full);
  const Hierarchy<double> single = make(CyclePrecision::single);
  ASSERT_EQ(full.num_levels(), single.num_levels()) << what;
  EXPECT_NE(single.describe().find("single-precision cycle"), std::string::npos)
      << single.describe();
  EXPECT_TRUE(single.summary().setup_stage_seconds.count("single precision")) << what;
  const Solve d = krylov(A, full), s = krylov(A, single);
  std::printf("[ single   ] %s: %d iterations in double, %d with the single-precision cycle\n",
              what, d.iterations, s.iterations);
  EXPECT_TRUE(d.converged) << what;
  EXPECT_TRUE(s.converged) << what;
  EXPECT_LT(s.relative_residual, 1e-8) << what;
  EXPECT_LE(s.iterations, d.iterations + extra) << what;
  Vector<double> b(Array<double>(A.executor(), test::random_values(A.rows(), 11)));
  Vector<double> xd(A.executor(), A.rows()), xs(A.executor(), A.rows());
  full.apply(b, xd);
  single.apply(b, xs);
  EXPECT_LT(test::relative_difference(xs.to_vector(), xd.to_vector()), 1e-4) << what;
}

TEST_P(SinglePrecisionCycle, ClassicalVCycleConvergesLikeDouble) {
  const auto A = gallery::poisson3d(exec(), 24, 24, 24);
  expect_single_like_double(
      A,
      [&](CyclePrecision precision) {
        HierarchyParams p{.coarse_size = 100, .smoother = L1JacobiParams{}};
        p.cycle_precision = precision;
        return Hierarchy<double>(test::shared(A), amg::make_classical_coarsening<double>({}), p);
      },
      "classical PMIS, l1-Jacobi, V-cycle + CG");
}

TEST_P(SinglePrecisionCycle, AggregationKCycleConvergesLikeDouble) {
  const auto A = gallery::poisson3d(exec(), 24, 24, 24);
  expect_single_like_double(
      A,
      [&](CyclePrecision precision) {
        HierarchyParams p{.coarse_size = 100,
                          .cycle = amg::CycleType::K,
                          .smoother = JacobiParams{.estimate_omega = true}};
        p.cycle_precision = precision;
        return Hierarchy<double>(test::shared(A),
                                 amg::make_aggregation_coarsening<double>({.dimension = 3}), p);
      },
      "aggregation, damped Jacobi, K-cycle + FCG");
}

TEST_P(SinglePrecisionCycle, BlockedSmoothedAggregationWithChebyshevConvergesLikeDouble) {
  const auto problem = gallery::elasticity3d(exec(), 6);
  const CsrMatrix<double>& A = problem.A;
  expect_single_like_double(
      A,
      [&](CyclePrecision precision) {
        HierarchyParams p{.coarse_size = 60, .smoother = ChebyshevParams{}};
        p.cycle_precision = precision;
        return Hierarchy<double>(std::make_shared<const BsrOperator<double>>(share(to_bsr(A, 3))),
                                 amg::make_smoothed_aggregation_coarsening<double>(
                                     {.block_size = 3}, test::clones(problem.rigid_body_modes)),
                                 p);
      },
      "blocked smoothed aggregation, block Chebyshev, V-cycle + CG", 2);
}

TEST_P(SinglePrecisionCycle, AnyMagnitudeOfTheRightHandSideFitsFloat) {
  // apply() scales b by its largest magnitude before rounding it: 1e300
  // (beyond float's 3.4e38) and 1e-300 (below its 1.4e-45) give the
  // correction of b = 1 scaled by the same factor, and b = 0 gives 0.
  const auto A = gallery::poisson3d(exec(), 12, 12, 12);
  const Hierarchy<double> H(test::shared(A), amg::make_classical_coarsening<double>({}),
                            single({.coarse_size = 50, .smoother = L1JacobiParams{}}));
  const size_type n = A.rows();
  const std::vector<double> values = test::random_values(n, 5);
  Vector<double> x1(exec(), n);
  H.apply(Vector<double>(Array<double>(exec(), values)), x1);
  const std::vector<double> reference = x1.to_vector();
  for (double factor : {1e300, 1e-300, 1e-310}) {  // 1e-310: subnormal b
    std::vector<double> scaled = values;
    for (double& v : scaled) v *= factor;
    Vector<double> x(exec(), n);
    H.apply(Vector<double>(Array<double>(exec(), scaled)), x);
    std::vector<double> back = x.to_vector();
    for (double& v : back) {
      ASSERT_TRUE(std::isfinite(v)) << "factor " << factor;
      v /= factor;
    }
    EXPECT_LT(test::relative_difference(back, reference), 1e-6) << "factor " << factor;
  }
  Vector<double> zero(exec(), n, 0.0), x(exec(), n, 7.0);
  H.apply(zero, x);
  for (double v : x.to_vector()) ASSERT_EQ(v, 0.0);
  // NaN in b is not a zero b: it reaches x, for the Krylov method to see,
  // whether it is the only value (max-norm 0) or one among others.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> one_nan = values;
  one_nan[n / 2] = nan;
  for (const auto& v : {std::vector<double>(n, nan), one_nan}) {
    Vector<double> y(exec(), n, 0.0);
    H.apply(Vector<double>(Array<double>(exec(), v)), y);
    const std::vector<double> out = y.to_vector();
    EXPECT_TRUE(std::any_of(out.begin(), out.end(), [](double e) { return std::isnan(e); }));
  }
}

TEST_P(SinglePrecisionCycle, ResetupRoundsTheNewValues) {
  // With the full resetup data and with the lean form (which rebuilds the
  // intermediates, possibly as new objects the float copies must follow).
  const auto A = gallery::poisson3d(exec(), 16, 16, 16);
  for (bool lean : {false, true}) {
    const HierarchyParams p =
        single({.coarse_size = 50, .smoother = L1JacobiParams{}, .lean_resetup_data = lean});
    Hierarchy<double> H(test::shared(A), amg::make_classical_coarsening<double>({}), p);
    const CsrMatrix<double> A2 = scaled(A, 3.0);
    H.resetup(test::shared(A2));
    const Hierarchy<double> fresh(test::shared(A2), amg::make_classical_coarsening<double>({}), p);
    Vector<double> b(Array<double>(exec(), test::random_values(A.rows(), 4)));
    Vector<double> x1(exec(), A.rows()), x2(exec(), A.rows());
    H.apply(b, x1);
    fresh.apply(b, x2);
    EXPECT_LT(test::relative_difference(x1.to_vector(), x2.to_vector()), 1e-6) << lean;
  }
}

TEST_P(SinglePrecisionCycle, ProgressReportsSurviveTheFreedDoubleLevels) {
  // on_level reports the coarsest level after the cycle is built, which
  // (single, no resetup data) has freed the double levels below level 0:
  // the report takes the float copy's size (`strata solve` sets on_level).
  const auto A = gallery::poisson3d(exec(), 16, 16, 16);
  std::vector<amg::LevelBuilt> reports;
  HierarchyParams p =
      single({.coarse_size = 50, .smoother = L1JacobiParams{}, .keep_resetup_data = false});
  p.on_level = [&](const amg::LevelBuilt& r) { reports.push_back(r); };
  const Hierarchy<double> H(test::shared(A), amg::make_classical_coarsening<double>({}), p);
  ASSERT_GE(H.num_levels(), 3);
  ASSERT_EQ(int(reports.size()), H.num_levels());
  const auto summary = H.summary();
  for (int l = 0; l < H.num_levels(); ++l) {
    EXPECT_EQ(reports[l].rows, summary.levels[l].rows) << l;
    EXPECT_EQ(reports[l].nnz, summary.levels[l].nnz) << l;
  }
  EXPECT_EQ(reports.back().coarse_rows, 0);
}

TEST_P(SinglePrecisionCycle, WithoutResetupDataOnlyTheFloatLevelsAreHeld) {
  // keep_resetup_data = false: the double levels below level 0 and the
  // double transfers are freed once their float copies exist. The same
  // cycle (the copies are the same values), in less memory than either
  // the double hierarchy or the single one with resetup data.
  const auto A = gallery::poisson3d(exec(), 24, 24, 24);
  const auto make = [&](CyclePrecision precision, bool keep) {
    HierarchyParams p{.coarse_size = 50, .smoother = L1JacobiParams{}, .keep_resetup_data = keep};
    p.cycle_precision = precision;
    return Hierarchy<double>(test::shared(A), amg::make_classical_coarsening<double>({}), p);
  };
  const Hierarchy<double> kept = make(CyclePrecision::single, true);
  const Hierarchy<double> lean = make(CyclePrecision::single, false);
  const Hierarchy<double> lean_double = make(CyclePrecision::full, false);
  ASSERT_EQ(lean.num_levels(), kept.num_levels());
  ASSERT_GE(lean.num_levels(), 3);
  for (int l = 0; l < lean.num_levels(); ++l) {
    EXPECT_EQ(lean.summary().levels[l].rows, kept.summary().levels[l].rows) << l;
    EXPECT_EQ(lean.summary().levels[l].nnz, kept.summary().levels[l].nnz) << l;
  }
  const std::size_t bytes = lean.summary().setup_bytes;
  std::printf("[ single   ] held without resetup data: %.2f MB in single, %.2f MB in double\n",
              double(bytes) * 1e-6, double(lean_double.summary().setup_bytes) * 1e-6);
  EXPECT_LT(bytes, lean_double.summary().setup_bytes);
  EXPECT_LT(bytes, kept.summary().setup_bytes);
  Vector<double> b(Array<double>(exec(), test::random_values(A.rows(), 9)));
  Vector<double> x1(exec(), A.rows()), x2(exec(), A.rows());
  kept.apply(b, x1);
  lean.apply(b, x2);
  EXPECT_EQ(x1.to_vector(), x2.to_vector());
  EXPECT_TRUE(krylov(A, lean).converged);
  // Level 0 is the caller's matrix; what was freed says so by name.
  EXPECT_EQ(lean.level_operator(0).rows(), A.rows());
  try {
    (void)lean.level_operator(1);
    ADD_FAILURE() << "a freed double level was handed out";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("single precision only"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)lean.level_interpolation_operator(0), invalid_argument);
}

TEST_P(SinglePrecisionCycle, WhatHasNoSinglePrecisionFormSaysSoAtSetup) {
  const auto A = gallery::poisson3d(exec(), 10, 10, 10);
  const auto message = [&](const CsrMatrix<double>& M, const SmootherParams& smoother) {
    try {
      Hierarchy<double> H(test::shared(M), amg::make_classical_coarsening<double>({}),
                          single({.coarse_size = 50, .smoother = smoother}));
    } catch (const invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  // The Gauss-Seidel family: named, with the level and what to take instead.
  const std::string gs = message(A, GaussSeidelParams{});
  EXPECT_NE(gs.find("level 0"), std::string::npos) << gs;
  EXPECT_NE(gs.find("no single-precision form"), std::string::npos) << gs;
  EXPECT_NE(gs.find("l1jacobi"), std::string::npos) << gs;
  // Values beyond float's range: the hierarchy is fine in double, its
  // single-precision copy cannot be.
  const std::string range = message(scaled(A, 1e39), L1JacobiParams{});
  EXPECT_NE(range.find("beyond single precision's range"), std::string::npos) << range;
}

TEST_P(SinglePrecisionCycle, AutomaticTakesSingleOnlyForLargeDeviceLevels) {
  // The default: double on the host and for small device levels.
  const auto small = gallery::poisson3d(exec(), 16, 16, 16);
  const Hierarchy<double> H(test::shared(small), amg::make_classical_coarsening<double>({}),
                            {.coarse_size = 50, .smoother = L1JacobiParams{}});
  EXPECT_EQ(H.summary().cycle_precision, "double");
  EXPECT_EQ(H.describe().find("single"), std::string::npos) << H.describe();
  if (!exec().is_cuda()) return;
  // 2^20 rows and more on the device: single where every level has a
  // single-precision form, double with the reason where one has none.
  const auto A = gallery::poisson3d(exec(), 102, 102, 102);
  ASSERT_GE(A.rows(), amg::automatic_single_precision_rows);
  const Hierarchy<double> fast(test::shared(A), amg::make_classical_coarsening<double>({}),
                               {.smoother = L1JacobiParams{}});
  EXPECT_EQ(fast.summary().cycle_precision, "single");
  const Hierarchy<double> gs(test::shared(A), amg::make_classical_coarsening<double>({}),
                             {.smoother = MulticolorGaussSeidelParams{}});
  const std::string why = gs.summary().cycle_precision;
  EXPECT_EQ(why.rfind("double (auto kept double: ", 0), 0u) << why;
  EXPECT_NE(why.find("multicolor_gs has no single-precision form"), std::string::npos) << why;
  EXPECT_EQ(gs.summary().setup_stage_seconds.count("single precision"), 0u)
      << "auto rounded the levels before finding the smoother had no float form";
  EXPECT_TRUE(krylov(A, gs).converged);
}

STRATA_INSTANTIATE_ON_EXECUTORS(SinglePrecisionCycle);

}  // namespace
}  // namespace strata
