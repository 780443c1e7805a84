// The AMG hierarchy independently of any algebraic coarsening: a geometric
// coarsening (linear interpolation on a 1D grid) defined here drives it.

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "strata/amg/amg.hpp"
#include "strata/matrix/transpose.hpp"
#include "test_util.hpp"

namespace strata {
namespace {

/// tridiag(-1, 2, -1) * scale, n x n.
CsrMatrix<double> laplacian1d(const Executor& e, size_type n, double scale = 1.0) {
  std::vector<offset_type> rp(n + 1, 0);
  std::vector<index_type> ci;
  std::vector<double> va;
  for (size_type i = 0; i < n; ++i) {
    if (i > 0) ci.push_back(index_type(i - 1)), va.push_back(-scale);
    ci.push_back(index_type(i)), va.push_back(2 * scale);
    if (i + 1 < n) ci.push_back(index_type(i + 1)), va.push_back(-scale);
    rp[i + 1] = offset_type(ci.size());
  }
  return CsrMatrix<double>(n, n, Array<offset_type>(e, rp), Array<index_type>(e, ci),
                           Array<double>(e, va));
}

/// CSR operators P and R = P^T.
amg::Transfer<double> transfer_of(CsrMatrix<double> P) {
  CsrMatrix<double> R = transpose(P);
  return {std::make_shared<const CsrOperator<double>>(std::move(P)),
          std::make_shared<const CsrOperator<double>>(std::move(R))};
}

/// Coarse points are the odd fine points; even points interpolate linearly
/// from their two coarse neighbours. Exact for smooth errors on a 1D chain.
class LinearInterpolation1D final : public amg::Coarsening<double> {
 public:
  std::optional<amg::Transfer<double>> coarsen(const LevelOperator<double>& A, int,
                                               amg::StageTimes& times) override {
    const size_type n = A.rows(), nc = (n - 1) / 2;
    if (nc < 1) return std::nullopt;
    times["interpolation"] += 0.0;
    std::vector<offset_type> rp(n + 1, 0);
    std::vector<index_type> ci;
    std::vector<double> va;
    for (size_type i = 0; i < n; ++i) {
      if (i % 2 == 1) {
        ci.push_back(index_type(i / 2)), va.push_back(1.0);
      } else {
        if (i / 2 - 1 >= 0) ci.push_back(index_type(i / 2 - 1)), va.push_back(0.5);
        if (i / 2 < nc) ci.push_back(index_type(i / 2)), va.push_back(0.5);
      }
      rp[i + 1] = offset_type(ci.size());
    }
    const auto h = Executor::host();
    CsrMatrix<double> P(n, nc, Array<offset_type>(h, rp), Array<index_type>(h, ci),
                        Array<double>(h, va));
    return transfer_of(P.to(A.executor()));
  }
  std::string name() const override { return "1D linear interpolation (test)"; }
};

/// Aggregates of `ratio` consecutive points, piecewise-constant P: a
/// coarsening ratio as large as aggregation's in 3D.
class Blocks1D final : public amg::Coarsening<double> {
 public:
  explicit Blocks1D(size_type ratio) : ratio_(ratio) {}
  std::optional<amg::Transfer<double>> coarsen(const LevelOperator<double>& A, int,
                                               amg::StageTimes&) override {
    const size_type n = A.rows(), nc = (n + ratio_ - 1) / ratio_;
    std::vector<offset_type> rp(n + 1);
    std::vector<index_type> ci(n);
    for (size_type i = 0; i < n; ++i)
      rp[i + 1] = offset_type(i + 1), ci[i] = index_type(i / ratio_);
    const auto h = Executor::host();
    CsrMatrix<double> P(n, nc, Array<offset_type>(h, rp), Array<index_type>(h, ci),
                        Array<double>(h, std::vector<double>(n, 1.0)));
    return transfer_of(P.to(A.executor()));
  }
  std::string name() const override { return "1D blocks (test)"; }

 private:
  size_type ratio_;
};

std::unique_ptr<amg::Coarsening<double>> linear1d() {
  return std::make_unique<LinearInterpolation1D>();
}

class AmgFramework : public test::OnExecutor {};

TEST_P(AmgFramework, OneLevelIsADirectSolve) {
  const auto A = laplacian1d(exec(), 200);
  amg::Hierarchy<double> H(test::shared(A), linear1d(), {.coarse_size = 500});
  EXPECT_EQ(H.num_levels(), 1);
  Vector<double> b(Array<double>(exec(), test::random_values(200, 1))), x(exec(), 200);
  H.apply(b, x);
  EXPECT_LT(test::relative_residual(A, b, x), 1e-12);
}

/// tridiag(lower, diagonal[i], upper), n x n.
CsrMatrix<double> tridiagonal(const Executor& e, size_type n, double lower,
                              const std::vector<double>& diagonal, double upper) {
  std::vector<offset_type> rp(n + 1, 0);
  std::vector<index_type> ci;
  std::vector<double> va;
  for (size_type i = 0; i < n; ++i) {
    if (i > 0) ci.push_back(index_type(i - 1)), va.push_back(lower);
    ci.push_back(index_type(i)), va.push_back(diagonal[i]);
    if (i + 1 < n) ci.push_back(index_type(i + 1)), va.push_back(upper);
    rp[i + 1] = offset_type(ci.size());
  }
  return CsrMatrix<double>(n, n, Array<offset_type>(e, rp), Array<index_type>(e, ci),
                           Array<double>(e, va));
}

TEST_P(AmgFramework, CoarseSolveInvertsEveryKindOfMatrix) {
  // One level: the hierarchy is the coarse solver (Gauss-Jordan with
  // partial pivoting on both backends). 1500 rows is more than one block of
  // the dense mat-vec and more than one column per CUDA block of the
  // elimination; on the GPU, 2000 rows are more than its blocks hold in
  // shared memory (the path over global memory), and 3800 more than a panel
  // of eight columns fits (two steps per barrier).
  std::vector<size_type> sizes{1, 200, 1500};
  if (exec().is_cuda()) sizes.insert(sizes.end(), {2000, 3800});
  for (size_type n : sizes) {
    std::vector<double> two(n, 2.0), alternating(n), tiny(n, 1e-3);
    for (size_type i = 0; i < n; ++i) alternating[i] = i % 2 ? -3.0 : 2.5;
    const struct {
      const char* name;
      CsrMatrix<double> A;
    } cases[] = {
        {"SPD", tridiagonal(exec(), n, -1.0, two, -1.0)},
        {"nonsymmetric", tridiagonal(exec(), n, -1.3, two, -0.7)},
        {"symmetric indefinite", tridiagonal(exec(), n, -1.0, alternating, -1.0)},
        // |a_kk| < |a_k+1,k| at every step: each step swaps rows.
        {"row exchanges", tridiagonal(exec(), n, -1.0, tiny, 1.0)},
    };
    for (const auto& c : cases) {
      amg::Hierarchy<double> H(test::shared(c.A), linear1d(), {.max_levels = 1});
      EXPECT_EQ(H.summary().coarse_solver, "dense inverse of " + std::to_string(n) + " rows")
          << c.name;
      Vector<double> b(Array<double>(exec(), test::random_values(n, 7))), x(exec(), n);
      H.apply(b, x);
      // An explicit inverse: residual ~ cond(A) eps, cond ~ 1e6 at n = 1500.
      EXPECT_LT(test::relative_residual(c.A, b, x), 1e-9) << c.name << ", n = " << n;
    }
  }
}

TEST_P(AmgFramework, SingularCoarseMatrixIsSmoothedAndSaysWhy) {
  // The Neumann Laplacian (zero row sums) is singular: the coarse solver
  // falls back to smoothing instead of returning Inf or NaN.
  std::vector<double> diagonal(300, 2.0);
  diagonal.front() = diagonal.back() = 1.0;
  const auto A = tridiagonal(exec(), 300, -1.0, diagonal, -1.0);
  amg::Hierarchy<double> H(test::shared(A), linear1d(), {.max_levels = 1});
  const std::string how = H.summary().coarse_solver;
  EXPECT_NE(how.find("smoothing sweeps"), std::string::npos) << how;
  EXPECT_NE(how.find("singular"), std::string::npos) << how;
  std::vector<double> values = test::random_values(300, 8);
  double mean = 0;
  for (double v : values) mean += v / 300;
  for (double& v : values) v -= mean;  // b in the range of A
  Vector<double> b(Array<double>(exec(), values)), x(exec(), 300);
  H.apply(b, x);
  for (double v : x.to_vector()) ASSERT_TRUE(std::isfinite(v));
  EXPECT_LT(test::relative_residual(A, b, x), 1.0);
}

TEST_P(AmgFramework, CoarsestLevelIsTheLevelNearestCoarseSize) {
  // Ratio 10 from 100,000 rows: 10,000, 1,000, 100. With coarse_size 600 the
  // first level at most 600 rows has 100, but 1,000 is nearer 600 in ratio
  // (1000 / 600 < 600 / 100): the hierarchy stops there.
  const auto A = laplacian1d(exec(), 100000);
  amg::Hierarchy<double> H(test::shared(A), std::make_unique<Blocks1D>(10), {.coarse_size = 600});
  ASSERT_EQ(H.num_levels(), 3);
  EXPECT_EQ(H.level_matrix(2).rows(), 1000);
  // With coarse_size 200, 100 is the nearer (1000 / 200 > 200 / 100).
  amg::Hierarchy<double> H200(test::shared(A), std::make_unique<Blocks1D>(10),
                              {.coarse_size = 200});
  ASSERT_EQ(H200.num_levels(), 4);
  EXPECT_EQ(H200.level_matrix(3).rows(), 100);
  // Level 0 is always coarsened when it is larger than coarse_size.
  const auto small = laplacian1d(exec(), 1000);
  amg::Hierarchy<double> S(test::shared(small), std::make_unique<Blocks1D>(10),
                           {.coarse_size = 600});
  EXPECT_EQ(S.num_levels(), 2);
}

TEST_P(AmgFramework, SummaryReportsTheSetupsPeakMemoryAboveItsStart) {
  // The peak is the setup's own (above what was in use when it began), so
  // a second hierarchy built while the first is held reports the same.
  const auto A = laplacian1d(exec(), 100000);
  amg::Hierarchy<double> first(test::shared(A), std::make_unique<Blocks1D>(10), {});
  const amg::HierarchySummary s = first.summary();
  EXPECT_GT(s.setup_bytes, std::size_t{0});
  EXPECT_GE(s.setup_peak_bytes, s.setup_bytes);
  amg::Hierarchy<double> second(test::shared(A), std::make_unique<Blocks1D>(10), {});
  const amg::HierarchySummary t = second.summary();
  EXPECT_NEAR(double(t.setup_bytes), double(s.setup_bytes), 0.01 * double(s.setup_bytes));
  EXPECT_NEAR(double(t.setup_peak_bytes), double(s.setup_peak_bytes),
              0.01 * double(s.setup_peak_bytes));
  EXPECT_NE(amg::format_summary(t).find("during setup"), std::string::npos);
}

TEST_P(AmgFramework, VCycleSolvesStandAloneAtAGridIndependentRate) {
  std::vector<int> cycles;
  for (size_type n : {size_type{1023}, size_type{16383}}) {
    const auto A = laplacian1d(exec(), n);
    amg::Hierarchy<double> H(test::shared(A), linear1d(), {.coarse_size = 31});
    EXPECT_GE(H.num_levels(), 5);
    Vector<double> b(exec(), n, 1.0), x(exec(), n, 0.0);
    KrylovParams p;
    p.max_iterations = 50;
    const auto info = H.solve(b, x, p);
    EXPECT_TRUE(info.converged()) << "n = " << n;
    EXPECT_LT(test::relative_residual(A, b, x), 1e-8);
    cycles.push_back(info.iterations);
  }
  std::printf("[ cycles   ] stand-alone V: %d and %d\n", cycles[0], cycles[1]);
  EXPECT_LE(cycles[1], cycles[0] + 2) << "the V-cycle rate must not depend on n";
  EXPECT_LE(cycles[1], 13);  // measured 11
}

TEST_P(AmgFramework, AsPreconditionerForCgWithEveryCycle) {
  const auto A = laplacian1d(exec(), 4095);
  CsrOperator<double> op(test::shared(A));
  std::vector<int> iterations;
  for (amg::CycleType c : {amg::CycleType::V, amg::CycleType::W, amg::CycleType::F}) {
    amg::Hierarchy<double> H(test::shared(A), linear1d(), {.coarse_size = 15, .cycle = c});
    Vector<double> b(exec(), A.rows(), 1.0), x(exec(), A.rows(), 0.0);
    const auto info = solve(KrylovMethod{Cg{}}, op, b, x, &H);
    EXPECT_TRUE(info.converged()) << amg::to_string(c) << ": " << info.message;
    EXPECT_LT(test::relative_residual(A, b, x), 1e-8);
    iterations.push_back(info.iterations);
  }
  std::printf("[ cycles   ] CG with V, W, F: %d, %d, %d\n", iterations[0], iterations[1],
              iterations[2]);
  EXPECT_LE(iterations[0], 10);             // measured 8 (W and F: 6)
  EXPECT_LE(iterations[1], iterations[0]);  // W does more coarse work than V
  EXPECT_LE(iterations[2], iterations[0]);
}

TEST_P(AmgFramework, ResetupEqualsAFreshSetup) {
  const auto A = laplacian1d(exec(), 1023);
  amg::Hierarchy<double> H(test::shared(A), linear1d(), {.coarse_size = 31});
  const auto A2 = laplacian1d(exec(), 1023, 3.0);  // new values, same pattern
  H.resetup(test::shared(A2));
  amg::Hierarchy<double> fresh(test::shared(A2), linear1d(), {.coarse_size = 31});
  Vector<double> b(Array<double>(exec(), test::random_values(1023, 2)));
  Vector<double> x1(exec(), 1023), x2(exec(), 1023);
  H.apply(b, x1);
  fresh.apply(b, x2);
  const auto v1 = x1.to_vector(), v2 = x2.to_vector();
  for (std::size_t i = 0; i < v1.size(); ++i)
    ASSERT_NEAR(v1[i], v2[i], 1e-12 * std::abs(v2[i]) + 1e-15);
  EXPECT_EQ(H.level_matrix(1).nnz(), fresh.level_matrix(1).nnz());
  EXPECT_THROW(H.resetup(test::shared(laplacian1d(exec(), 1021))), invalid_argument);
}

TEST_P(AmgFramework, DroppingResetupDataKeepsTheSameHierarchyAndRefusesResetup) {
  const auto A = laplacian1d(exec(), 4095);
  amg::Hierarchy<double> kept(test::shared(A), linear1d(), {.coarse_size = 31});
  amg::Hierarchy<double> dropped(test::shared(A), linear1d(),
                                 {.coarse_size = 31, .keep_resetup_data = false});
  ASSERT_EQ(kept.num_levels(), dropped.num_levels());
  Vector<double> b(Array<double>(exec(), test::random_values(4095, 3)));
  Vector<double> x1(exec(), 4095), x2(exec(), 4095);
  kept.apply(b, x1);
  dropped.apply(b, x2);
  EXPECT_EQ(x1.to_vector(), x2.to_vector());
  EXPECT_GT(kept.summary().setup_bytes, 0u);
  EXPECT_LT(dropped.summary().setup_bytes, kept.summary().setup_bytes);
  try {
    dropped.resetup(test::shared(A));
    ADD_FAILURE() << "resetup without its data did not throw";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("keep_resetup_data = false"), std::string::npos)
        << e.what();
  }
}

TEST_P(AmgFramework, SummaryCountsLevelsAndComplexities) {
  const auto A = laplacian1d(exec(), 1023);
  amg::Hierarchy<double> H(test::shared(A), linear1d(), {.coarse_size = 31});
  const auto s = H.summary();
  ASSERT_EQ(int(s.levels.size()), H.num_levels());
  EXPECT_EQ(s.levels[0].rows, 1023);
  EXPECT_EQ(s.levels[1].rows, 511);
  EXPECT_EQ(s.levels[0].min_row_nnz, 2);
  EXPECT_EQ(s.levels[0].max_row_nnz, 3);
  EXPECT_NEAR(s.levels[1].coarsening_ratio, 1023.0 / 511.0, 1e-12);
  // Linear interpolation on a chain halves it, (n - 1) / 2, down to 31 rows;
  // R A P of the 1D Laplacian is tridiagonal again: 3 n - 2 entries.
  const std::vector<size_type> rows = {1023, 511, 255, 127, 63, 31};
  ASSERT_EQ(s.levels.size(), rows.size());
  double nnz = 0;
  for (std::size_t l = 0; l < rows.size(); ++l) {
    EXPECT_EQ(s.levels[l].rows, rows[l]) << l;
    EXPECT_EQ(s.levels[l].nnz, 3 * rows[l] - 2) << l;
    nnz += double(3 * rows[l] - 2);
  }
  EXPECT_NEAR(s.grid_complexity, 2010.0 / 1023.0, 1e-12);
  EXPECT_NEAR(s.operator_complexity, nnz / 3067.0, 1e-12);
  EXPECT_TRUE(s.setup_stage_seconds.count("galerkin"));
  EXPECT_NE(amg::format_summary(s).find("operator complexity"), std::string::npos);
}

TEST_P(AmgFramework, BadParametersThrow) {
  const auto A = laplacian1d(exec(), 50);
  EXPECT_THROW(amg::Hierarchy<double>(test::shared(A), linear1d(), {.max_levels = 0}),
               invalid_argument);
  EXPECT_THROW(amg::Hierarchy<double>(test::shared(A), nullptr), invalid_argument);
  EXPECT_THROW(amg::Hierarchy<double>(test::shared(A), linear1d(), {.pre_sweeps = -1}),
               invalid_argument);
}

STRATA_INSTANTIATE_ON_EXECUTORS(AmgFramework);

}  // namespace
}  // namespace strata
