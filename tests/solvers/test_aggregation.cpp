// Unsmoothed aggregation AMG (the aggregation paper): the stages checked by
// their invariants (MIS(2) distances, orthonormal P, Galerkin by sort/reduce
// against SpGEMM), host and device building the same hierarchy, the quality
// targets (the anisotropic hierarchy of Table 1, grid-independent K-cycles),
// the shared-data matrices, the K-cycle, flexible CG and resetup.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <string>
#include <vector>

#include "strata/strata.hpp"
#include "test_util.hpp"

namespace strata {
namespace {

using amg::AggregationParams;
using amg::CycleType;
using amg::Hierarchy;
using amg::HierarchyParams;

KrylovParams tolerance(double tol = 1e-8, int maxit = 500) {
  KrylovParams p;
  p.relative_tolerance = tol;
  p.max_iterations = maxit;
  return p;
}

/// The paper's solver: K-cycles on two levels, damped Jacobi 4/(3 rho).
HierarchyParams kcycle_params(CycleType cycle = CycleType::K) {
  HierarchyParams p;
  p.cycle = cycle;
  p.smoother = JacobiParams{.estimate_omega = true};
  return p;
}

std::unique_ptr<amg::Coarsening<double>> aggregation(int dimension,
                                                     std::vector<Vector<double>> B = {}) {
  return amg::make_aggregation_coarsening<double>({.dimension = dimension}, std::move(B));
}

/// Host copy of a strength graph's adjacency.
struct HostGraph {
  std::vector<offset_type> row_ptr;
  std::vector<index_type> col;
  template <class T>
  explicit HostGraph(const amg::StrengthGraph<T>& S)
      : row_ptr(S.row_ptr.to_vector()), col(S.col_idx.to_vector()) {}
  size_type rows() const { return size_type(row_ptr.size()) - 1; }
  /// Points within `depth` edges of `start` with their distance.
  std::vector<std::pair<index_type, int>> ball(index_type start, int depth) const {
    std::vector<std::pair<index_type, int>> out{{start, 0}};
    std::vector<int> seen_at(1, 0);
    std::vector<index_type> seen{start};
    for (std::size_t head = 0; head < out.size(); ++head) {
      const auto [v, d] = out[head];
      if (d == depth) continue;
      for (offset_type k = row_ptr[v]; k < row_ptr[v + 1]; ++k) {
        const index_type w = col[k];
        if (std::find(seen.begin(), seen.end(), w) != seen.end()) continue;
        seen.push_back(w);
        out.push_back({w, d + 1});
      }
    }
    return out;
  }
};

/// The MIS(2) and aggregation invariants: roots pairwise at distance >= 3,
/// every point with a strong connection in an aggregate whose root is
/// within distance 2, every aggregate non-empty, isolated points left out.
void expect_mis2_invariants(const amg::StrengthGraph<double>& S, const amg::Aggregates& a,
                            const std::string& what) {
  const HostGraph g(S);
  const auto agg = a.aggregate.to_vector();
  const auto root = a.root.to_vector();
  const size_type n = g.rows();
  std::vector<char> is_root(n, 0);
  for (std::size_t r = 0; r < root.size(); ++r) {
    ASSERT_TRUE(root[r] >= 0 && root[r] < n) << what;
    is_root[root[r]] = 1;
    ASSERT_EQ(agg[root[r]], index_type(r)) << what << ": a root is in its own aggregate";
    if (r > 0) {
      ASSERT_LT(root[r - 1], root[r]) << what << ": roots ascend";
    }
  }
  std::vector<size_type> members(root.size(), 0);
  for (size_type i = 0; i < n; ++i) {
    const bool isolated = g.row_ptr[i + 1] == g.row_ptr[i];
    if (isolated) {
      EXPECT_EQ(agg[i], -1) << what << ": isolated point " << i;
      continue;
    }
    ASSERT_GE(agg[i], 0) << what << ": point " << i << " has no aggregate";
    ASSERT_LT(agg[i], index_type(root.size())) << what;
    ++members[agg[i]];
  }
  for (std::size_t r = 0; r < root.size(); ++r) {
    EXPECT_GE(members[r], 1) << what << ": aggregate " << r << " is empty";
    // No other root within distance 2; every member within distance 2.
    const auto ball = g.ball(root[r], 2);
    size_type members_in_ball = 0;
    for (const auto& [v, d] : ball) {
      if (d > 0) {
        EXPECT_FALSE(is_root[v]) << what << ": roots " << root[r] << " and " << v
                                 << " are at distance " << d;
      }
      members_in_ball += agg[v] == index_type(r);
    }
    EXPECT_EQ(members_in_ball, members[r])
        << what << ": a member of aggregate " << r << " is farther than 2 from its root";
  }
}

class AggregationStages : public test::OnExecutor {};

TEST_P(AggregationStages, Mis2InvariantsHold) {
  struct Problem {
    std::string name;
    CsrMatrix<double> A;
    double alpha;
  };
  std::vector<Problem> problems;
  problems.push_back({"poisson2d 40x40", gallery::poisson2d(exec(), 40, 40), 0.25});
  problems.push_back({"aniso2d 48x48", gallery::anisotropic2d(exec(), 48, 48, 0.001, 0.0), 0.25});
  problems.push_back(
      {"rotated aniso2d 30x30", gallery::anisotropic2d(exec(), 30, 30, 0.01, 0.5), 0.25});
  problems.push_back({"poisson3d 14^3", gallery::poisson3d(exec(), 14, 14, 14), 0.5});
  problems.push_back({"diffusion27 10^3", gallery::diffusion3d_27pt(exec(), 10, 10, 10), 0.5});
  for (const auto& p : problems) {
    const auto S = amg::strength_graph(p.A, p.alpha);
    EXPECT_FALSE(S.symmetrized) << p.name;
    for (std::uint64_t seed : {1u, 7u}) {
      const auto a = amg::aggregate(S, seed);
      EXPECT_GT(a.count(), 0) << p.name;
      EXPECT_LT(a.count(), p.A.rows() / 2) << p.name;
      EXPECT_LE(a.iterations, 30) << p.name;
      expect_mis2_invariants(S, a, p.name + " seed " + std::to_string(seed));
    }
  }
}

TEST_P(AggregationStages, StrengthIsEquationThreeSymmetrised) {
  // Row 0: diag 4, couplings -2 (strong), -0.5 (weak at alpha 0.5), +1
  // (positive: never strong). Row 1 sees 0 strongly, so 0-1 is an edge both
  // ways even where only one direction is strong.
  const auto h = Executor::host();
  const std::vector<offset_type> rp{0, 4, 6, 8, 10};
  const std::vector<index_type> ci{0, 1, 2, 3, 0, 1, 0, 2, 0, 3};
  const std::vector<double> va{4, -2, -0.5, 1, -2, 3, -0.5, 2, 1, 2};
  const CsrMatrix<double> A(4, 4, Array<offset_type>(exec(), rp), Array<index_type>(exec(), ci),
                            Array<double>(exec(), va));
  const auto S = amg::strength_graph(A, 0.5);
  const auto grp = S.row_ptr.to_vector();
  const auto gci = S.col_idx.to_vector();
  const auto infl = S.influence.to_vector();
  // 0-1 strong both ways; 0-2: -0.5 from row 0 is weak (<= 0.5 * 2), but row 2
  // has -0.5 as its only negative coupling: strong from 2's side.
  EXPECT_EQ(grp, (std::vector<offset_type>{0, 2, 3, 4, 4}));
  EXPECT_EQ(gci, (std::vector<index_type>{1, 2, 0, 0}));
  EXPECT_EQ(infl, (std::vector<index_type>{2, 1, 0, 0}));  // 1 and 2 depend on 0
  const auto a = amg::aggregate(S, 1);
  const auto agg = a.aggregate.to_vector();
  EXPECT_EQ(a.count(), 1);
  EXPECT_EQ(agg, (std::vector<index_type>{0, 0, 0, -1}));  // 3 has no strong connection
  (void)h;
}

TEST_P(AggregationStages, NonsymmetricPatternIsSymmetrised) {
  // Row 2 couples to 0, but row 0 does not list 2.
  const std::vector<offset_type> rp{0, 2, 4, 6};
  const std::vector<index_type> ci{0, 1, 0, 1, 0, 2};
  const std::vector<double> va{2, -1, -1, 2, -1, 2};
  const CsrMatrix<double> A(3, 3, Array<offset_type>(exec(), rp), Array<index_type>(exec(), ci),
                            Array<double>(exec(), va));
  const auto S = amg::strength_graph(A, 0.25);
  EXPECT_TRUE(S.symmetrized);
  EXPECT_EQ(S.row_ptr.to_vector(), (std::vector<offset_type>{0, 2, 3, 4}));
  EXPECT_EQ(S.col_idx.to_vector(), (std::vector<index_type>{1, 2, 0, 0}));
  const auto a = amg::aggregate(S, 3);
  expect_mis2_invariants(S, a, "3x3 nonsymmetric");
}

TEST_P(AggregationStages, InterpolationHasOrthonormalColumnsAndCarriesB) {
  // Two near-null vectors on a 2D grid: constants and x. P^T P = I and
  // B = P B_c (B lies in the range of P), level by level.
  const size_type nx = 24;
  const auto A = gallery::poisson2d(exec(), nx, nx);
  std::vector<double> ones(nx * nx, 1.0), x(nx * nx);
  for (size_type i = 0; i < nx * nx; ++i) x[i] = double(i % nx) / nx;
  for (int columns : {1, 2}) {
    Array<double> B(
        exec(), columns == 1 ? ones : [&] {
          std::vector<double> both(ones);
          both.insert(both.end(), x.begin(), x.end());
          return both;
        }());
    const auto S = amg::strength_graph(A, 0.25);
    const auto a = amg::aggregate(S, 1);
    const auto I = amg::piecewise_constant_interpolation(a, B, columns);
    const auto& P = I.P;
    EXPECT_EQ(I.dropped, 0);
    EXPECT_EQ(P.cols(), a.count() * columns);
    EXPECT_EQ(P.nnz(), A.rows() * columns);
    // P^T P = I (R = P^T by construction).
    const auto PtP = spgemm(I.R, P).to(Executor::host());
    const auto rp = PtP.row_ptr().to_vector();
    const auto ci = PtP.col_idx().to_vector();
    const auto va = PtP.values().to_vector();
    for (size_type r = 0; r < PtP.rows(); ++r) {
      for (offset_type k = rp[r]; k < rp[r + 1]; ++k) {
        EXPECT_NEAR(va[k], ci[k] == r ? 1.0 : 0.0, 1e-13) << "P^T P at " << r << ", " << ci[k];
      }
    }
    // B = P Bc, column by column.
    const auto Bh = B.to_vector();
    const auto Bc = I.coarse_near_null_space.to_vector();
    for (int c = 0; c < columns; ++c) {
      Vector<double> bc(Array<double>(
          exec(), std::vector<double>(Bc.begin() + c * P.cols(), Bc.begin() + (c + 1) * P.cols())));
      Vector<double> fine(exec(), A.rows());
      spmv(P, bc, fine);
      const auto f = fine.to_vector();
      for (size_type i = 0; i < A.rows(); ++i) {
        ASSERT_NEAR(f[i], Bh[c * A.rows() + i], 1e-13) << "column " << c << " row " << i;
      }
    }
  }
}

TEST_P(AggregationStages, RankDeficientAggregatesDropColumns) {
  // Three columns on a 1D chain whose aggregates have 3-5 points, the third
  // a copy of the first: every aggregate drops it.
  const size_type n = 60;
  std::vector<offset_type> rp{0};
  std::vector<index_type> ci;
  std::vector<double> va;
  for (size_type i = 0; i < n; ++i) {
    if (i > 0) ci.push_back(index_type(i - 1)), va.push_back(-1);
    ci.push_back(index_type(i)), va.push_back(2);
    if (i + 1 < n) ci.push_back(index_type(i + 1)), va.push_back(-1);
    rp.push_back(offset_type(ci.size()));
  }
  const CsrMatrix<double> A(n, n, Array<offset_type>(exec(), rp), Array<index_type>(exec(), ci),
                            Array<double>(exec(), va));
  std::vector<double> B(3 * n);
  for (size_type i = 0; i < n; ++i) B[i] = 1, B[n + i] = double(i), B[2 * n + i] = 1;
  const auto S = amg::strength_graph(A, 0.25);
  const auto a = amg::aggregate(S, 1);
  const auto I = amg::piecewise_constant_interpolation(a, Array<double>(exec(), B), 3);
  EXPECT_EQ(I.dropped, a.count());
  EXPECT_EQ(I.P.cols(), 2 * a.count());
  EXPECT_EQ(I.coarse_near_null_space.size(), 2 * a.count() * 3);
  const auto PtP = spgemm(I.R, I.P).to(Executor::host());
  const auto pci = PtP.col_idx().to_vector();
  const auto pva = PtP.values().to_vector();
  const auto prp = PtP.row_ptr().to_vector();
  for (size_type r = 0; r < PtP.rows(); ++r) {
    for (offset_type k = prp[r]; k < prp[r + 1]; ++k) {
      EXPECT_NEAR(pva[k], pci[k] == r ? 1.0 : 0.0, 1e-12);
    }
  }
}

/// A with the same pattern and other values: off-diagonal entries scaled
/// by a factor in [0.5, 1.5) that depends on the pair {i, j} (symmetry
/// kept), the diagonal made dominant (SPD kept).
/// factor * A (same pattern).
CsrMatrix<double> scaled(const CsrMatrix<double>& A, double factor) {
  auto B = A.clone();
  Vector<double> v(std::move(B.values()));
  scale(factor, v);
  B.values() = std::move(v.values());
  return B;
}

CsrMatrix<double> perturbed(const CsrMatrix<double>& A, unsigned seed) {
  const auto rp = A.row_ptr().to_vector();
  const auto ci = A.col_idx().to_vector();
  auto va = A.values().to_vector();
  for (size_type i = 0; i + 1 < size_type(rp.size()); ++i) {
    double off = 0;
    for (offset_type k = rp[i]; k < rp[i + 1]; ++k) {
      if (ci[k] == i) continue;
      const std::uint64_t lo = std::min<std::uint64_t>(i, ci[k]),
                          hi = std::max<std::uint64_t>(i, ci[k]);
      const std::uint64_t h = (lo * 1000003u + hi * 7919u + seed) % 1000u;
      va[k] *= 0.5 + double(h) / 1000.0;
      off += std::abs(va[k]);
    }
    for (offset_type k = rp[i]; k < rp[i + 1]; ++k) {
      if (ci[k] == i) va[k] = 1.1 * off + 1e-3;
    }
  }
  return CsrMatrix<double>(A.rows(), A.cols(), Array<offset_type>(A.executor(), rp),
                           Array<index_type>(A.executor(), ci), Array<double>(A.executor(), va));
}

void expect_same_matrix(const CsrMatrix<double>& X, const CsrMatrix<double>& Y, double tol,
                        const std::string& what) {
  ASSERT_EQ(X.rows(), Y.rows()) << what;
  ASSERT_EQ(X.cols(), Y.cols()) << what;
  ASSERT_EQ(X.nnz(), Y.nnz()) << what;
  EXPECT_EQ(X.row_ptr().to_vector(), Y.row_ptr().to_vector()) << what;
  EXPECT_EQ(X.col_idx().to_vector(), Y.col_idx().to_vector()) << what;
  const auto x = X.values().to_vector(), y = Y.values().to_vector();
  for (std::size_t k = 0; k < x.size(); ++k) {
    if (tol == 0) {
      ASSERT_EQ(x[k], y[k]) << what << " at " << k;
    } else {
      ASSERT_NEAR(x[k], y[k], tol * (std::abs(y[k]) + 1)) << what << " at " << k;
    }
  }
}

/// The operands of the Galerkin product tests: gallery problems, each with
/// a piecewise-constant P for one and for two near-null vectors.
struct GalerkinCase {
  std::string what;
  CsrMatrix<double> A;
  int columns;
  amg::PiecewiseConstantInterpolation<double> I;
};

std::vector<GalerkinCase> galerkin_cases(const Executor& exec) {
  std::vector<std::pair<std::string, CsrMatrix<double>>> problems;
  problems.emplace_back("poisson3d 12^3", gallery::poisson3d(exec, 12, 12, 12));
  problems.emplace_back("aniso2d 40x40", gallery::anisotropic2d(exec, 40, 40, 0.001, 0.3));
  problems.emplace_back("diffusion27 9^3", gallery::diffusion3d_27pt(exec, 9, 9, 9));
  std::vector<GalerkinCase> cases;
  for (const auto& [name, A] : problems) {
    for (int columns : {1, 2}) {
      std::vector<double> B(A.rows() * columns, 1.0);
      for (size_type i = 0; i < A.rows() && columns == 2; ++i) B[A.rows() + i] = double(i % 7);
      const auto S = amg::strength_graph(A, 0.25);
      const auto a = amg::aggregate(S, 5);
      cases.push_back({name + ", k = " + std::to_string(columns), A.clone(), columns,
                       amg::piecewise_constant_interpolation(a, Array<double>(exec, B), columns)});
    }
  }
  return cases;
}

TEST_P(AggregationStages, GalerkinBySortReduceEqualsSpgemmAndRecomputes) {
  for (const auto& [what, A, columns, I] : galerkin_cases(exec())) {
    const auto& P = I.P;
    const auto& R = I.R;
    amg::SortReduceCoarseProduct<double> sorted(R, A, P);
    const auto reference = galerkin_product(R, A, P);
    expect_same_matrix(sorted.matrix(), reference, 1e-13, what);
    // Row-combined: fewer than one product per nonzero and pair of P entries.
    EXPECT_LT(sorted.contributions(), A.nnz() * columns * columns) << what;
    // A value-only recompute equals a fresh product, bit for bit.
    const auto A2 = perturbed(A, 3);
    sorted.recompute(R, A2, P);
    amg::SortReduceCoarseProduct<double> fresh(R, A2, P);
    expect_same_matrix(sorted.matrix(), fresh.matrix(), 0.0, what + " recompute");
    expect_same_matrix(sorted.matrix(), galerkin_product(R, A2, P), 1e-13, what + " vs spgemm");
    EXPECT_THROW(sorted.recompute(R, gallery::poisson2d(exec(), 5, 5), P), invalid_argument);
  }
}

/// The host's row-by-row product gives the SpGEMM product's pattern and
/// values (to rounding), recomputes bit for bit like a fresh product, does
/// not depend on the thread count, and refuses device matrices by name.
TEST_P(AggregationStages, GalerkinByRowsOnTheHostEqualsSpgemmAndRecomputes) {
  for (const auto& [what, A, columns, I] : galerkin_cases(exec())) {
    (void)columns;
    if (exec().is_cuda()) {
      EXPECT_THROW(amg::RowwiseCoarseProduct<double>(I.R, A, I.P), invalid_argument) << what;
      continue;
    }
    amg::RowwiseCoarseProduct<double> rows(I.R, A, I.P);
    expect_same_matrix(rows.matrix(), galerkin_product(I.R, A, I.P), 1e-13, what);
    const auto A2 = perturbed(A, 3);
    rows.recompute(I.R, A2, I.P);
    amg::RowwiseCoarseProduct<double> fresh(I.R, A2, I.P);
    expect_same_matrix(rows.matrix(), fresh.matrix(), 0.0, what + " recompute");
    // The same product with one thread and with three, bit for bit.
    const auto on = [](const CsrMatrix<double>& M, const Executor& e) {
      return CsrMatrix<double>(M.rows(), M.cols(), M.row_ptr().to(e), M.col_idx().to(e),
                               M.values().to(e));
    };
    const Executor one = Executor::host(1), three = Executor::host(3);
    amg::RowwiseCoarseProduct<double> with_one(on(I.R, one), on(A2, one), on(I.P, one));
    amg::RowwiseCoarseProduct<double> with_three(on(I.R, three), on(A2, three), on(I.P, three));
    expect_same_matrix(with_one.matrix(), with_three.matrix(), 0.0, what + " threads");
    EXPECT_THROW(rows.recompute(I.R, gallery::poisson2d(exec(), 5, 5), I.P), invalid_argument);
  }
}

TEST_P(AggregationStages, ParametersAreValidated) {
  const auto bad = [](AggregationParams p) { return amg::make_aggregation_coarsening<double>(p); };
  try {
    bad({.strength_threshold = 1.5});
    ADD_FAILURE() << "no exception";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("strength_threshold"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("1.5"), std::string::npos);
  }
  try {
    bad({.dimension = 4});
    ADD_FAILURE() << "no exception";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("dimension"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("4"), std::string::npos);
  }
  EXPECT_DOUBLE_EQ(amg::strength_threshold({.dimension = 2}), 0.25);
  EXPECT_DOUBLE_EQ(amg::strength_threshold({.dimension = 3}), 0.5);
  EXPECT_DOUBLE_EQ(amg::strength_threshold({.strength_threshold = 0.1}), 0.1);
  std::vector<Vector<double>> uneven;
  uneven.emplace_back(exec(), 10, 1.0);
  uneven.emplace_back(exec(), 9, 1.0);
  EXPECT_THROW(amg::make_aggregation_coarsening<double>({}, std::move(uneven)), invalid_argument);
  // A near-null vector of the wrong length is caught at setup.
  const auto A = gallery::poisson2d(exec(), 10, 10);
  std::vector<Vector<double>> short_b;
  short_b.emplace_back(exec(), 99, 1.0);
  EXPECT_THROW(
      Hierarchy<double>(test::shared(A), aggregation(2, std::move(short_b)), {.coarse_size = 10}),
      dimension_mismatch);
  EXPECT_THROW(Hierarchy<double>(test::shared(A), aggregation(2), {.kcycle_levels = -1}),
               invalid_argument);
}

STRATA_INSTANTIATE_ON_EXECUTORS(AggregationStages);

// ------------------------------------------------------------ hierarchies

class AggregationAmg : public test::OnExecutor {};

TEST_P(AggregationAmg, AnisotropicHierarchyLooksLikeTableOne) {
  // The paper's Table 1 (1000x1000): nnz/row 5.0, 6.44, 6.79, 6.77, 6.39, ...
  // and coarsening ratios 3.6, 3.6, 3.5, 3.5, ... Here 256x256.
  const auto A = gallery::anisotropic2d(exec(), 256, 256, 0.001, 0.0);
  // The paper's coarsest levels hold hundreds of rows (a GPU hierarchy);
  // below that the anisotropic levels turn one-dimensional (3 entries a
  // row), which the table does not show.
  HierarchyParams params = kcycle_params();
  params.coarse_size = 600;
  Hierarchy<double> H(test::shared(A), aggregation(2), params);
  const auto s = H.summary();
  std::printf("%s", amg::format_summary(s).c_str());
  ASSERT_GE(s.levels.size(), 5u);
  for (std::size_t l = 0; l < s.levels.size(); ++l) {
    const auto& v = s.levels[l];
    if (v.rows < 50) continue;  // the last levels are too small to judge
    EXPECT_GE(v.mean_row_nnz, 4.5) << "level " << l;
    EXPECT_LE(v.mean_row_nnz, 7.5) << "level " << l;
    if (l > 0) {
      EXPECT_GE(v.coarsening_ratio, 3.0) << "level " << l;
      EXPECT_LE(v.coarsening_ratio, 4.5) << "level " << l;
    }
  }
  for (const char* stage : {"strength", "aggregation", "interpolation", "galerkin"}) {
    EXPECT_TRUE(s.setup_stage_seconds.count(stage)) << stage;
  }
  CsrOperator<double> op(test::shared(A));
  Vector<double> b(exec(), A.rows(), 1.0), x(exec(), A.rows(), 0.0);
  const auto info = solve(KrylovMethod{Fcg{tolerance()}}, op, b, x, &H);
  std::printf("  aniso2d 256^2, FCG + K-cycle: %d iterations\n", info.iterations);
  EXPECT_TRUE(info.converged()) << info.message;
  EXPECT_LT(info.iterations, 40);
}

TEST_P(AggregationAmg, KcycleIsGridIndependentOnPoisson) {
  // 7-point Poisson: FCG + K-cycle iterations grow by at most 30% from 32^3
  // to 64^3 (on the GPU: 64^3 to 256^3, AggregationDevice below).
  std::vector<int> iterations;
  for (size_type n : {size_type{32}, size_type{64}}) {
    const auto A = gallery::poisson3d(exec(), n, n, n);
    Hierarchy<double> H(test::shared(A), aggregation(3), kcycle_params());
    EXPECT_FALSE(H.is_fixed());
    CsrOperator<double> op(test::shared(A));
    Vector<double> b(exec(), A.rows(), 1.0), x(exec(), A.rows(), 0.0);
    const auto info = solve(KrylovMethod{Fcg{tolerance()}}, op, b, x, &H);
    EXPECT_TRUE(info.converged()) << info.message;
    EXPECT_LT(test::relative_residual(A, b, x), 1.01e-8);
    const auto s = H.summary();
    std::printf(
        "  poisson3d %lld^3: %d levels, operator complexity %.3f, FCG + K-cycle %d "
        "iterations\n",
        (long long)n, H.num_levels(), s.operator_complexity, info.iterations);
    iterations.push_back(info.iterations);
  }
  EXPECT_LE(iterations[1], 1.3 * iterations[0] + 0.5);
  EXPECT_LT(iterations[1], 40);
}

TEST_P(AggregationAmg, EveryOuterMethodAndFlavourConverges) {
  const auto A = gallery::poisson3d(exec(), 24, 24, 24);
  CsrOperator<double> op(test::shared(A));
  Vector<double> b(exec(), A.rows(), 1.0);
  struct Case {
    const char* name;
    CycleType cycle;
    HierarchyParams::KcycleFlavour flavour;
    KrylovMethod method;
  };
  const auto cg = HierarchyParams::KcycleFlavour::cg;
  const auto gm = HierarchyParams::KcycleFlavour::gmres;
  const std::vector<Case> cases = {
      {"FCG + K(cg)", CycleType::K, cg, Fcg{tolerance()}},
      {"FGMRES + K(cg)", CycleType::K, cg, Fgmres{tolerance(), 30}},
      {"FCG + K(gmres)", CycleType::K, gm, Fcg{tolerance()}},
      {"FGMRES + K(gmres)", CycleType::K, gm, Fgmres{tolerance(), 30}},
      {"PCG + V", CycleType::V, cg, Cg{tolerance()}},
      {"FCG + V", CycleType::V, cg, Fcg{tolerance()}},
  };
  std::vector<int> iterations;
  for (const auto& c : cases) {
    auto hp = kcycle_params(c.cycle);
    hp.kcycle_flavour = c.flavour;
    hp.coarse_size = 50;  // three levels, so that the K-cycle has an inner Krylov level
    Hierarchy<double> H(test::shared(A), aggregation(3), hp);
    EXPECT_EQ(H.is_fixed(), c.cycle != CycleType::K) << c.name;
    Vector<double> x(exec(), A.rows(), 0.0);
    const auto info = solve(c.method, op, b, x, &H);
    EXPECT_TRUE(info.converged()) << c.name << ": " << info.message;
    EXPECT_LT(test::relative_residual(A, b, x), 1.01e-8) << c.name;
    iterations.push_back(info.iterations);
    std::printf("  poisson3d 24^3, %s: %d iterations\n", c.name, info.iterations);
  }
  EXPECT_LT(iterations[0], iterations[4]) << "K-cycles take fewer iterations than V-cycles";
  EXPECT_NEAR(iterations[5], iterations[4], 1) << "FCG with a fixed preconditioner is PCG";
}

TEST_P(AggregationAmg, KcycleNeedsAFlexibleMethodAndKcycleLevelsZeroIsV) {
  const auto A = gallery::poisson3d(exec(), 16, 16, 16);
  CsrOperator<double> op(test::shared(A));
  Vector<double> b(exec(), A.rows(), 1.0), x(exec(), A.rows(), 0.0);
  Hierarchy<double> K(test::shared(A), aggregation(3), {.coarse_size = 50, .cycle = CycleType::K});
  ASSERT_GE(K.num_levels(), 3);
  EXPECT_FALSE(K.is_fixed());
  EXPECT_NE(K.describe().find("K(1,1)-cycle on 2 levels (cg)"), std::string::npos) << K.describe();
  EXPECT_THROW(solve(KrylovMethod{Cg{}}, op, b, x, &K), invalid_argument);
  EXPECT_THROW(solve(KrylovMethod{Gmres{}}, op, b, x, &K), invalid_argument);
  EXPECT_THROW(solve(KrylovMethod{Bicgstab{}}, op, b, x, &K), invalid_argument);
  // No inner Krylov level: the K-cycle is a V-cycle, the same linear map.
  Hierarchy<double> K0(test::shared(A), aggregation(3),
                       {.coarse_size = 50, .cycle = CycleType::K, .kcycle_levels = 0});
  Hierarchy<double> V(test::shared(A), aggregation(3), {.coarse_size = 50, .cycle = CycleType::V});
  EXPECT_TRUE(K0.is_fixed());
  Vector<double> x0(exec(), A.rows()), xv(exec(), A.rows());
  K0.apply(b, x0);
  V.apply(b, xv);
  EXPECT_EQ(x0.to_vector(), xv.to_vector());
  // As a stand-alone solver too.
  const auto info = K.solve(b, x, tolerance(1e-6, 100));
  EXPECT_TRUE(info.converged()) << info.message;
}

TEST_P(AggregationAmg, ResetupKeepsTheAggregatesAndEqualsAFreshSetup) {
  // 2 A has the same strength graph as A (equation 3 is scale invariant;
  // 2 keeps every rounding exact), so a fresh setup builds the same
  // aggregates and, bit for bit, the same coarse matrices: resetup must too.
  const auto A = gallery::poisson3d(exec(), 20, 20, 20);
  const auto A3 = scaled(A, 2.0);
  auto hp = kcycle_params(CycleType::V);
  Hierarchy<double> H(test::shared(A), aggregation(3), hp);
  H.resetup(test::shared(A3));
  Hierarchy<double> fresh(test::shared(A3), aggregation(3), hp);
  ASSERT_EQ(H.num_levels(), fresh.num_levels());
  for (int l = 1; l < H.num_levels(); ++l) {
    expect_same_matrix(H.level_matrix(l), fresh.level_matrix(l), 0.0, "level " + std::to_string(l));
  }
  Vector<double> b(Array<double>(exec(), test::random_values(A.rows(), 4)));
  Vector<double> x1(exec(), A.rows()), x2(exec(), A.rows());
  H.apply(b, x1);
  fresh.apply(b, x2);
  const auto v1 = x1.to_vector(), v2 = x2.to_vector();
  for (std::size_t i = 0; i < v1.size(); ++i)
    ASSERT_NEAR(v1[i], v2[i], 1e-12 * (std::abs(v2[i]) + 1));
  // Other values, same pattern: still a good preconditioner.
  const auto Ap = perturbed(A, 9);
  H.resetup(test::shared(Ap));
  CsrOperator<double> op(test::shared(Ap));
  Vector<double> x(exec(), A.rows(), 0.0);
  const auto info = solve(KrylovMethod{Cg{tolerance()}}, op, b, x, &H);
  EXPECT_TRUE(info.converged()) << info.message;
  EXPECT_LT(info.iterations, 40);
}

TEST_P(AggregationAmg, GalerkinBySpgemmBuildsTheSameHierarchy) {
  const auto A = gallery::poisson2d(exec(), 64, 64);
  Hierarchy<double> sorted(test::shared(A), aggregation(2), {.coarse_size = 100});
  Hierarchy<double> spgemm(
      test::shared(A),
      amg::make_aggregation_coarsening<double>({.dimension = 2, .galerkin_by_spgemm = true}),
      {.coarse_size = 100});
  // Level 1 comes from the same aggregates; below, rounding differences in
  // the two products may tip a borderline strength comparison.
  ASSERT_GE(sorted.num_levels(), 3);
  ASSERT_GE(spgemm.num_levels(), 3);
  EXPECT_NE(spgemm.describe().find("SpGEMM"), std::string::npos);
  expect_same_matrix(sorted.level_matrix(1), spgemm.level_matrix(1), 1e-12, "level 1");
}

STRATA_INSTANTIATE_ON_EXECUTORS(AggregationAmg);

TEST(AggregationDevice, HostAndDeviceBuildTheSameHierarchy) {
  STRATA_REQUIRE_DEVICE();
  const auto h = Executor::host(), d = Executor::cuda();
  for (const char* problem : {"poisson3d", "aniso2d", "diffusion27"}) {
    const size_type n = std::string(problem) == "aniso2d" ? 200 : 30;
    const auto Ah = gallery::generate(problem, n, h);
    const auto Ad = gallery::generate(problem, n, d);
    const int dim = std::string(problem) == "aniso2d" ? 2 : 3;
    // Stage by stage on the finest level.
    const double alpha = amg::strength_threshold({.dimension = dim});
    const auto Sh = amg::strength_graph(Ah, alpha), Sd = amg::strength_graph(Ad, alpha);
    EXPECT_EQ(Sh.row_ptr.to_vector(), Sd.row_ptr.to_vector()) << problem;
    EXPECT_EQ(Sh.col_idx.to_vector(), Sd.col_idx.to_vector()) << problem;
    const auto ah = amg::aggregate(Sh, 1), ad = amg::aggregate(Sd, 1);
    ASSERT_EQ(ah.aggregate.to_vector(), ad.aggregate.to_vector()) << problem;
    EXPECT_EQ(ah.iterations, ad.iterations) << problem;
    // The whole hierarchy: same aggregates on every level, so the same
    // interpolation patterns and bit-identical coarse matrices.
    // The same coarsest size on both (the default depends on the executor).
    HierarchyParams same;
    same.coarse_size = 600;
    Hierarchy<double> Hh(test::shared(Ah), aggregation(dim), same),
        Hd(test::shared(Ad), aggregation(dim), same);
    ASSERT_EQ(Hh.num_levels(), Hd.num_levels()) << problem;
    for (int l = 0; l + 1 < Hh.num_levels(); ++l) {
      const auto& Ph = Hh.level_interpolation(l);
      const auto& Pd = Hd.level_interpolation(l);
      ASSERT_EQ(Ph.col_idx().to_vector(), Pd.col_idx().to_vector()) << problem << " level " << l;
      expect_same_matrix(Hh.level_matrix(l + 1), Hd.level_matrix(l + 1), 0.0,
                         std::string(problem) + " level " + std::to_string(l + 1));
    }
  }
}

TEST(AggregationDevice, StrengthGraphIsTheHostsBitForBit) {
  // The device passes give each row a group of 4 to 32 lanes by the mean
  // row length: rows of about 3 (a tridiagonal), 5, 9, 27 and 81 entries
  // (elasticity: rows longer than the group), nonsymmetric values
  // (convdiff3d), and rows stored out of order (the unsorted scan).
  STRATA_REQUIRE_DEVICE();
  const auto h = Executor::host(), d = Executor::cuda();
  std::vector<std::pair<std::string, CsrMatrix<double>>> cases;
  for (const auto& [name, n] :
       std::vector<std::pair<std::string, size_type>>{{"poisson2d", 60},
                                                      {"poisson2d9", 60},
                                                      {"diffusion27", 20},
                                                      {"convdiff3d", 20},
                                                      {"elasticity3d", 6}}) {
    cases.emplace_back(name, gallery::generate(name, n, h));
  }
  {
    // A tridiagonal with every other row stored backwards.
    const size_type n = 1000;
    std::vector<offset_type> rp{0};
    std::vector<index_type> ci;
    std::vector<double> va;
    for (size_type i = 0; i < n; ++i) {
      std::vector<std::pair<index_type, double>> row;
      if (i > 0) row.emplace_back(index_type(i - 1), -1.0 - 0.001 * double(i % 7));
      row.emplace_back(index_type(i), 2.5);
      if (i + 1 < n) row.emplace_back(index_type(i + 1), -1.0 - 0.001 * double((i + 1) % 7));
      if (i % 2 == 1) std::reverse(row.begin(), row.end());
      for (const auto& [j, v] : row) {
        ci.push_back(j);
        va.push_back(v);
      }
      rp.push_back(offset_type(ci.size()));
    }
    cases.emplace_back("tridiagonal, unsorted rows",
                       CsrMatrix<double>(n, n, Array<offset_type>(h, rp), Array<index_type>(h, ci),
                                         Array<double>(h, va)));
  }
  for (const auto& [name, A] : cases) {
    for (double alpha : {0.0, 0.25, 0.5}) {
      const auto Sh = amg::strength_graph(A, alpha);
      const auto Sd = amg::strength_graph(A.to(d), alpha);
      const std::string what = name + ", alpha " + std::to_string(alpha);
      EXPECT_EQ(Sh.symmetrized, Sd.symmetrized) << what;
      EXPECT_EQ(Sh.row_ptr.to_vector(), Sd.row_ptr.to_vector()) << what;
      EXPECT_EQ(Sh.col_idx.to_vector(), Sd.col_idx.to_vector()) << what;
      EXPECT_EQ(Sh.weight.to_vector(), Sd.weight.to_vector()) << what;
      EXPECT_EQ(Sh.influence.to_vector(), Sd.influence.to_vector()) << what;
    }
  }
}

TEST(AggregationDevice, KcycleGrowthFrom64To256IsAtMostThirtyPercent) {
  // The grid-independence target at its sizes, with the defaults (two
  // K-cycle levels, CG flavour, FCG outside).
  STRATA_REQUIRE_DEVICE();
  const auto d = Executor::cuda();
  std::vector<int> iterations;
  for (size_type n : {size_type{64}, size_type{128}, size_type{256}}) {
    const auto A = gallery::poisson3d(d, n, n, n);
    Hierarchy<double> H(test::shared(A), aggregation(3), kcycle_params());
    CsrOperator<double> op(test::shared(A));
    Vector<double> b(d, A.rows(), 1.0), x(d, A.rows(), 0.0);
    const auto info = solve(KrylovMethod{Fcg{tolerance()}}, op, b, x, &H);
    EXPECT_TRUE(info.converged()) << info.message;
    std::printf("  [ %lld^3 ] %d levels (coarsest %s), FCG + K-cycle %d iterations\n", (long long)n,
                H.num_levels(), H.summary().coarse_solver.c_str(), info.iterations);
    iterations.push_back(info.iterations);
  }
  EXPECT_LE(iterations[2], 1.3 * iterations[0]);
  EXPECT_LE(iterations[1], 1.3 * iterations[0]);
}

// ------------------------------------------------------------ shared data

std::string data(const char* file) { return test::data_dir() + "/" + file; }

TEST(AggregationData, SharedMatricesConvergeWithKcycles) {
  STRATA_REQUIRE_DATA();
  struct File {
    const char* path;
    int dimension;
    bool negate;
  };
  for (const File& f :
       {File{"kokkos/Laplace3D10.mtx", 3, false}, File{"pyamg/airfoil_A.mtx", 2, false},
        File{"spe10/spe10_layer1_tpfa_teeman508.mtx", 2, true}}) {
    auto A = io::read_matrix_market(data(f.path));
    if (f.negate) A = scaled(A, -1.0);
    CsrOperator<double> op(test::shared(A));
    Vector<double> b(Executor::host(), A.rows(), 1.0);
    for (bool fgmres : {false, true}) {
      Hierarchy<double> H(test::shared(A), aggregation(f.dimension),
                          {.coarse_size = 100,
                           .cycle = CycleType::K,
                           .smoother = JacobiParams{.estimate_omega = true}});
      Vector<double> x(Executor::host(), A.rows(), 0.0);
      const auto info = fgmres ? solve(KrylovMethod{Fgmres{tolerance(1e-8, 300)}}, op, b, x, &H)
                               : solve(KrylovMethod{Fcg{tolerance(1e-8, 300)}}, op, b, x, &H);
      std::printf("  %s: %d levels, %s + K-cycle %d iterations\n", f.path, H.num_levels(),
                  fgmres ? "FGMRES" : "FCG", info.iterations);
      EXPECT_TRUE(info.converged()) << f.path << ": " << info.message;
      EXPECT_LT(test::relative_residual(A, b, x), 1.01e-8) << f.path;
      EXPECT_LT(info.iterations, 60) << f.path;
    }
  }
}

// --------------------------------------------------------- flexible CG

class KrylovFcg : public test::OnExecutor {};

TEST_P(KrylovFcg, EqualsPcgWithAFixedPreconditionerAndTakesAVariableOne) {
  const auto A = gallery::poisson2d(exec(), 40, 40);
  CsrOperator<double> op(test::shared(A));
  Vector<double> b(exec(), A.rows(), 1.0);
  auto M = make_smoother(test::shared(A), JacobiParams{});
  Vector<double> x1(exec(), A.rows(), 0.0), x2(exec(), A.rows(), 0.0), x3(exec(), A.rows(), 0.0);
  const auto pcg = solve(KrylovMethod{Cg{tolerance()}}, op, b, x1, M.get());
  const auto fcg = solve(KrylovMethod{Fcg{tolerance()}}, op, b, x2, M.get());
  const auto fcg3 = solve(KrylovMethod{Fcg{tolerance(), 3}}, op, b, x3, M.get());
  EXPECT_TRUE(fcg.converged() && fcg3.converged());
  EXPECT_NEAR(fcg.iterations, pcg.iterations, 1);
  EXPECT_NEAR(fcg3.iterations, pcg.iterations, 1);
  EXPECT_EQ(method_name(Fcg{}), "fcg");
  // A preconditioner that changes every call: an inner CG of 3 iterations.
  const CallbackOperator<double> inner(
      exec(), A.rows(), A.cols(),
      [&](const Vector<double>& r, Vector<double>& z) {
        z.fill(0.0);
        solve(KrylovMethod{Cg{tolerance(1e-2, 3)}}, op, r, z);
      },
      "inner cg", /*fixed=*/false);
  Vector<double> x(exec(), A.rows(), 0.0);
  EXPECT_THROW(solve(KrylovMethod{Cg{tolerance()}}, op, b, x, &inner), invalid_argument);
  const auto info = solve(KrylovMethod{Fcg{tolerance()}}, op, b, x, &inner);
  EXPECT_TRUE(info.converged()) << info.message;
  EXPECT_LT(test::relative_residual(A, b, x), 1.01e-8);
  EXPECT_LT(info.iterations, pcg.iterations);
  EXPECT_THROW(solve(KrylovMethod{Fcg{tolerance(), 0}}, op, b, x), invalid_argument);
}

TEST_P(KrylovFcg, JacobiWithEstimatedOmegaIsFourThirdsOverRho) {
  // A 64 x 1 grid: tridiag(-1, 4, -1), rho(D^-1 A) = 1 + cos(pi/65)/2 < 1.5;
  // five Arnoldi steps approach it from below.
  const auto A = gallery::poisson2d(exec(), 64, 1);
  auto S = make_smoother(test::shared(A), JacobiParams{.estimate_omega = true});
  const auto d = S->diagonal_scaling()->to_vector();
  const double omega = d[0] * 4.0;  // d = omega / a_ii
  EXPECT_GT(omega, 4.0 / (3.0 * 1.5));
  EXPECT_LT(omega, 4.0 / (3.0 * 1.3));
  auto half = make_smoother(test::shared(A), JacobiParams{.omega = 0.5, .estimate_omega = true});
  EXPECT_NEAR(half->diagonal_scaling()->to_vector()[0] * 4.0, 0.5 * omega, 1e-14);
  EXPECT_THROW(
      make_smoother(test::shared(A), JacobiParams{.estimate_omega = true, .estimation_steps = 11}),
      invalid_argument);
  // Up to 5 steps the Arnoldi Ritz values come from the Krylov Gram matrix;
  // for symmetric A they are Lanczos's.
  const auto B = gallery::poisson2d(exec(), 30, 30);
  for (int steps : {1, 3, 5}) {
    const double lanczos = lanczos_max_eigenvalue(CsrOperator<double>(test::shared(B)), steps);
    EXPECT_NEAR(arnoldi_spectral_radius(CsrOperator<double>(test::shared(B)), steps), lanczos,
                1e-7 * lanczos)
        << steps;
  }
  // Beyond 5 steps the classical Gram-Schmidt loop; both approach rho from below.
  EXPECT_LE(arnoldi_spectral_radius(CsrOperator<double>(test::shared(B)), 5),
            arnoldi_spectral_radius(CsrOperator<double>(test::shared(B)), 8) * (1 + 1e-9));
}

STRATA_INSTANTIATE_ON_EXECUTORS(KrylovFcg);

}  // namespace
}  // namespace strata
