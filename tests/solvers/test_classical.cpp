// Classical coarsening (strata/amg/classical.hpp): strength, PMIS and
// interpolation on hand-checkable inputs and invariants, host/device
// agreement, and the AMG-PCG quality targets of issue 6.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "kernels/amg/classical_kernels.hpp"
#include "strata/amg/classical.hpp"
#include "strata/gallery/gallery.hpp"
#include "strata/io/matrix_market.hpp"
#include "strata/matrix/spgemm.hpp"
#include "strata/matrix/transpose.hpp"
#include "test_util.hpp"
#include "unit/sparse_product_util.hpp"

namespace strata {
namespace {

using amg::ClassicalParams;
using amg::Interpolation;

CsrMatrix<double> from_rows(const Executor& e, size_type n,
                            const std::vector<std::vector<std::pair<int, double>>>& rows) {
  std::vector<offset_type> rp(1, 0);
  std::vector<index_type> ci;
  std::vector<double> va;
  for (const auto& row : rows) {
    for (const auto& [j, v] : row) ci.push_back(j), va.push_back(v);
    rp.push_back(offset_type(ci.size()));
  }
  return CsrMatrix<double>(n, n, Array<offset_type>(e, rp), Array<index_type>(e, ci),
                           Array<double>(e, va));
}

/// The rows of a host copy of S as sets of columns.
std::vector<std::set<int>> pattern(const CsrMatrix<double>& S) {
  const auto h = S.to(Executor::host());
  const auto rp = h.row_ptr().to_vector();
  const auto ci = h.col_idx().to_vector();
  std::vector<std::set<int>> rows(static_cast<std::size_t>(h.rows()));
  for (size_type i = 0; i < h.rows(); ++i) {
    for (offset_type k = rp[i]; k < rp[i + 1]; ++k) rows[i].insert(ci[k]);
  }
  return rows;
}

/// PMIS invariants: every point is C or F; every F point with a strong
/// connection depends on a C point; with a symmetric S, no two C points are
/// strongly connected.
void expect_pmis_invariants(const std::vector<std::set<int>>& S, const std::vector<int>& cf,
                            bool symmetric) {
  ASSERT_EQ(S.size(), cf.size());
  for (std::size_t i = 0; i < cf.size(); ++i) {
    ASSERT_TRUE(cf[i] == 1 || cf[i] == -1) << "point " << i << " undecided: " << cf[i];
    bool has_c = false;
    for (int j : S[i]) has_c = has_c || cf[j] == 1;
    if (cf[i] == -1 && !S[i].empty()) {
      EXPECT_TRUE(has_c) << "F point " << i << " has strong connections but no strong C neighbour";
    }
    if (cf[i] == 1 && symmetric) {
      EXPECT_FALSE(has_c) << "C point " << i << " depends strongly on a C point";
    }
  }
}

struct Outcome {
  SolveInfo info;
  amg::HierarchySummary summary;
};

/// AMG-PCG to 1e-8 with b = ones, x0 = 0, the framework's default cycle
/// (V(1,1), l1-Jacobi).
Outcome amg_pcg(const CsrMatrix<double>& A, const ClassicalParams& params,
                int max_iterations = 100) {
  amg::Hierarchy<double> H(test::shared(A), amg::make_classical_coarsening<double>(params));
  Vector<double> b(A.executor(), A.rows(), 1.0), x(A.executor(), A.rows(), 0.0);
  Cg cg;
  cg.params.max_iterations = max_iterations;
  CsrOperator<double> op(test::shared(A));
  Outcome out{solve(KrylovMethod{cg}, op, b, x, &H), H.summary()};
  EXPECT_LT(test::relative_residual(A, b, x), 1.01e-8);
  std::printf("[ amg-pcg  ] %s: %d iterations\n",
              ::testing::UnitTest::GetInstance()->current_test_info()->name(), out.info.iterations);
  return out;
}

/// An awkward matrix: n rows of 0 to 80 entries (empty rows, one-entry rows,
/// rows longer than a warp), random columns, mostly negative off-diagonal
/// entries and a dominant positive (or, in every 7th row, negative) diagonal.
CsrMatrix<double> awkward_matrix(size_type n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> length(0, 80), column(0, int(n) - 1);
  std::uniform_real_distribution<double> value(-1.0, 0.3);
  std::vector<offset_type> rp(1, 0);
  std::vector<index_type> ci;
  std::vector<double> va;
  for (size_type i = 0; i < n; ++i) {
    std::set<int> cols;
    const int len = i % 11 == 0 ? 0 : (i % 13 == 0 ? 1 : length(gen));
    while (int(cols.size()) < len) cols.insert(column(gen));
    if (len > 0) cols.insert(int(i));
    double off = 0;
    std::vector<std::pair<int, double>> row;
    for (int j : cols) {
      const double v = j == i ? 0.0 : value(gen);
      off += std::abs(v);
      row.push_back({j, v});
    }
    for (auto& [j, v] : row) {
      if (j == i) v = (i % 7 == 0 ? -1.0 : 1.0) * (off + 1.0);
      ci.push_back(j);
      va.push_back(v);
    }
    rp.push_back(offset_type(ci.size()));
  }
  const auto h = Executor::host();
  return CsrMatrix<double>(n, n, Array<offset_type>(h, rp), Array<index_type>(h, ci),
                           Array<double>(h, va));
}

class Classical : public test::OnExecutor {};

TEST_P(Classical, StrengthOfAHandCheckableMatrix) {
  // Row 1 has an entry exactly at theta * min (weak: ties are weak); row 2 a
  // positive connection (never strong); row 4 a negative diagonal.
  const auto A = from_rows(exec(), 5,
                           {{{0, 4.0}, {1, -1.0}, {2, -0.2}},
                            {{0, -1.0}, {1, 4.0}, {2, -1.0}, {3, -0.25}},
                            {{0, -0.2}, {1, -1.0}, {2, 4.0}, {4, 1.0}},
                            {{1, -0.25}, {3, 2.0}, {4, 0.5}},
                            {{2, 1.0}, {3, 0.5}, {4, -3.0}}});
  const auto S = pattern(amg::strength_matrix(A, ClassicalParams{}));
  const std::vector<std::set<int>> expected = {{1}, {0, 2}, {1}, {1}, {2, 3}};
  EXPECT_EQ(S, expected);

  // max_row_sum = 0.5: rows with |row sum| > 0.5 |a_ii| lose all strong
  // connections (rows 0, 2, 3); row 4 sits exactly on the bound and keeps them.
  const auto S2 = pattern(amg::strength_matrix(A, ClassicalParams{.max_row_sum = 0.5}));
  const std::vector<std::set<int>> expected2 = {{}, {0, 2}, {}, {}, {2, 3}};
  EXPECT_EQ(S2, expected2);

  // theta = 0.2: -0.2 >= 0.2 * -1 ties (weak); -0.25 in row 1 becomes strong.
  const auto S3 = pattern(amg::strength_matrix(A, ClassicalParams{.strength_threshold = 0.2}));
  const std::vector<std::set<int>> expected3 = {{1}, {0, 2, 3}, {1}, {1}, {2, 3}};
  EXPECT_EQ(S3, expected3);
}

TEST_P(Classical, PmisOnAStarAndAnIsolatedPoint) {
  // Point 0 is strongly connected to 1..4 (both ways), point 5 to nothing:
  // 0 has the largest weight and becomes C, its neighbours F, 5 is F.
  const auto A = from_rows(exec(), 6,
                           {{{0, 4.0}, {1, -1.0}, {2, -1.0}, {3, -1.0}, {4, -1.0}},
                            {{0, -1.0}, {1, 1.0}},
                            {{0, -1.0}, {2, 1.0}},
                            {{0, -1.0}, {3, 1.0}},
                            {{0, -1.0}, {4, 1.0}},
                            {{5, 1.0}}});
  const auto S = amg::strength_matrix(A, ClassicalParams{});
  for (std::uint64_t seed : {1u, 2u, 77u}) {
    const auto cf = amg::pmis_splitting(S, seed).to_vector();
    EXPECT_EQ(cf, (std::vector<std::int32_t>{1, -1, -1, -1, -1, -1})) << "seed " << seed;
  }
}

TEST_P(Classical, PmisOnAChainIsAMaximalIndependentSet) {
  const size_type n = 101;
  const auto S = amg::strength_matrix(gallery::poisson2d(exec(), n, 1), ClassicalParams{});
  const auto rows = pattern(S);
  const auto cf = amg::pmis_splitting(S, 3).to_vector();
  expect_pmis_invariants(rows, std::vector<int>(cf.begin(), cf.end()), true);
  // Maximal: no F point can be made C (each touches a C point), so between
  // two C points there are one or two F points.
  int run = 0;
  for (size_type i = 0; i < n; ++i) {
    run = cf[i] == 1 ? 0 : run + 1;
    EXPECT_LE(run, 2) << "at " << i;
  }
  // Deterministic: the same seed gives the same splitting.
  EXPECT_EQ(cf, amg::pmis_splitting(S, 3).to_vector());
}

TEST_P(Classical, PmisInvariantsOnPoissonAndOnANonsymmetricMatrix) {
  for (const auto& A :
       {gallery::poisson3d(exec(), 14, 13, 12), gallery::diffusion3d_27pt(exec(), 10, 11, 9),
        gallery::convdiff3d(exec(), 12, 12, 12)}) {
    const auto S = amg::strength_matrix(A, ClassicalParams{});
    const auto rows = pattern(S);
    bool symmetric = true;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      for (int j : rows[i]) symmetric = symmetric && rows[j].count(int(i));
    }
    const auto cf = amg::pmis_splitting(S, 5).to_vector();
    expect_pmis_invariants(rows, std::vector<int>(cf.begin(), cf.end()), symmetric);
    const auto coarse = std::count(cf.begin(), cf.end(), 1);
    EXPECT_GT(coarse, 0);
    EXPECT_LT(coarse, A.rows() / 2);
  }
}

// HMIS is host only: one test, not one per executor (a skipped device
// instance would count as a failure on the GPU machine).
TEST(ClassicalHost, HmisFirstPassRunsOnFixedBlocksOfRowsWhateverTheThreads) {
  // 270,400 rows: two blocks of the first pass (2^18 rows and the rest),
  // run in parallel. The splitting is the same on 1 and 3 threads; every F
  // point depends on a C point; two C points are strongly connected only
  // across the blocks' boundary (each block chose its own, as hypre's
  // processes do).
  const size_type side = 520;
  const size_type block = kernels::classical::ruge_stueben_block_rows;
  ASSERT_GT(side * side, block);
  std::vector<std::int32_t> first;
  for (int threads : {1, 3}) {
    const auto S = amg::strength_matrix(gallery::poisson2d(Executor::host(threads), side, side),
                                        ClassicalParams{});
    const auto cf = amg::hmis_splitting(S).to_vector();
    if (!first.empty()) {
      EXPECT_EQ(cf, first) << threads << " threads";
      continue;
    }
    first = cf;
    const auto rows = pattern(S);
    size_type across = 0;
    for (std::size_t i = 0; i < cf.size(); ++i) {
      ASSERT_TRUE(cf[i] == 1 || cf[i] == -1) << "point " << i << " undecided";
      bool has_c = false;
      for (int j : rows[i]) {
        has_c = has_c || cf[j] == 1;
        if (cf[i] == 1 && cf[j] == 1) {
          EXPECT_NE(size_type(i) / block, size_type(j) / block)
              << "C points " << i << " and " << j << " in one block";
          ++across;
        }
      }
      if (cf[i] == -1) {
        EXPECT_TRUE(has_c) << "F point " << i << " without a C neighbour";
      }
    }
    EXPECT_LT(across, 2 * side) << "C pairs beyond the boundary's rows";
  }
}

TEST_P(Classical, HmisIsTheRugeStuebenFirstPassThenPmisOnTheHostOnly) {
  const auto chain = amg::strength_matrix(gallery::poisson2d(exec(), 10, 1), ClassicalParams{});
  const auto laplace = gallery::poisson3d(exec(), 10, 10, 10);
  if (!exec().is_host()) {
    try {
      amg::hmis_splitting(chain);
      ADD_FAILURE() << "hmis ran on the device";
    } catch (const invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("host only"), std::string::npos) << e.what();
    }
    EXPECT_THROW(amg::Hierarchy<double>(
                     test::shared(laplace),
                     amg::make_classical_coarsening<double>({.splitting = amg::Splitting::hmis})),
                 invalid_argument);
    return;
  }
  // Ruge-Stueben on a chain (ends of measure 1, the rest 2; FIFO ties): the
  // first interior point, then every other one, and the far end, whose
  // measure its new F neighbour raised.
  EXPECT_EQ(amg::hmis_splitting(chain).to_vector(),
            (std::vector<std::int32_t>{-1, 1, -1, 1, -1, 1, -1, 1, -1, 1}));
  // The 7-point 10^3 Laplacian: 500 of 1000 points, as hypre's HMIS.
  const auto S = amg::strength_matrix(laplace, ClassicalParams{});
  const auto cf = amg::hmis_splitting(S).to_vector();
  EXPECT_EQ(std::count(cf.begin(), cf.end(), 1), 500);
  // The PMIS invariants (symmetric strength: independent C points), and more
  // C points than PMIS keeps; on a nonsymmetric matrix too.
  for (const auto& A :
       {gallery::poisson3d(exec(), 14, 13, 12), gallery::diffusion3d_27pt(exec(), 10, 11, 9),
        gallery::convdiff3d(exec(), 12, 12, 12)}) {
    const auto SA = amg::strength_matrix(A, ClassicalParams{});
    const auto rows = pattern(SA);
    bool symmetric = true;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      for (int j : rows[i]) symmetric = symmetric && rows[j].count(int(i));
    }
    const auto h = amg::hmis_splitting(SA).to_vector();
    expect_pmis_invariants(rows, std::vector<int>(h.begin(), h.end()), symmetric);
    const auto p = amg::pmis_splitting(SA).to_vector();
    EXPECT_GT(std::count(h.begin(), h.end(), 1), std::count(p.begin(), p.end(), 1));
  }
  // The same splitting on any number of threads, and the coarsening's
  // level 0 with splitting hmis is it.
  const auto S4 =
      amg::strength_matrix(gallery::poisson3d(Executor::host(4), 10, 10, 10), ClassicalParams{});
  EXPECT_EQ(amg::hmis_splitting(S4).to_vector(), cf);
  auto coarsening = amg::make_classical_coarsening<double>({.splitting = amg::Splitting::hmis});
  const auto* raw = coarsening.get();
  amg::Hierarchy<double> H(test::shared(laplace), std::move(coarsening));
  EXPECT_EQ(amg::classical_splitting(*raw, 0).to_vector(), cf);
  EXPECT_EQ(H.level_matrix(1).rows(), 500);
  EXPECT_NE(H.summary().coarsening.find("classical HMIS + ext+i"), std::string::npos);
}

TEST_P(Classical, AutomaticChoicesFollowWhereTheLevelLives) {
  // The automatic recipe: on the host HMIS with Pmax 6 and an aggressive
  // level where a level of at least 50000 rows keeps at least 40% of its
  // points; on the device the device recipe, ClassicalParams{}'s.
  const auto automatic = amg::automatic_classical_params();
  for (size_type n : {36, 40}) {  // 46656 and 64000 rows
    SCOPED_TRACE(n);
    const auto A = test::shared(gallery::poisson3d(exec(), n, n, n));
    amg::Hierarchy<double> H(A, amg::make_classical_coarsening<double>(automatic));
    const auto name = H.summary().coarsening;
    if (!exec().is_host()) {
      amg::Hierarchy<double> D(A, amg::make_classical_coarsening<double>(ClassicalParams{}));
      EXPECT_EQ(name, D.summary().coarsening);
      ASSERT_EQ(H.num_levels(), D.num_levels());
      for (int l = 0; l < H.num_levels(); ++l) {
        EXPECT_EQ(H.level_matrix(l).rows(), D.level_matrix(l).rows());
        EXPECT_EQ(H.level_matrix(l).nnz(), D.level_matrix(l).nnz());
      }
      continue;
    }
    EXPECT_NE(name.find("HMIS"), std::string::npos) << name;
    const bool large = n * n * n >= amg::kAutomaticAggressiveRows;
    EXPECT_EQ(name.find("aggressive A2 on 1 level") != std::string::npos, large) << name;
    // HMIS keeps every other point of the 7-point stencil; aggressive
    // coarsening about one in twelve.
    if (large) {
      EXPECT_LT(H.level_matrix(1).rows(), A->rows() / 8);
    } else {
      EXPECT_EQ(H.level_matrix(1).rows(), A->rows() / 2);
    }
  }
}

TEST_P(Classical, InterpolationReproducesConstantsWhereRowSumsVanish) {
  const auto A = gallery::poisson3d(exec(), 12, 11, 10);
  const auto Ah = A.to(Executor::host());
  const auto rp = Ah.row_ptr().to_vector();
  const auto va = Ah.values().to_vector();
  for (Interpolation kind : {Interpolation::direct, Interpolation::mm_ext, Interpolation::mm_ext_i,
                             Interpolation::mm_ext_e}) {
    for (int pmax : {0, 4, 2}) {
      const ClassicalParams p{.interpolation = kind, .max_elements_per_row = pmax};
      const auto cf = amg::pmis_splitting(amg::strength_matrix(A, p), p.seed);
      const auto P = amg::classical_interpolation(A, cf, p);
      const auto cfh = cf.to_vector();
      ASSERT_EQ(P.rows(), A.rows());
      ASSERT_EQ(P.cols(), std::count(cfh.begin(), cfh.end(), 1));
      Vector<double> ones(exec(), P.cols(), 1.0), y(exec(), P.rows());
      spmv(P, ones, y);
      const auto yh = y.to_vector();
      const auto Ph = P.to(Executor::host());
      const auto prp = Ph.row_ptr().to_vector();
      int checked = 0;
      for (size_type i = 0; i < A.rows(); ++i) {
        if (pmax > 0) {
          EXPECT_LE(prp[i + 1] - prp[i], pmax);
        }
        double row_sum = 0;
        for (offset_type k = rp[i]; k < rp[i + 1]; ++k) row_sum += va[k];
        if (cfh[i] == 1) {
          EXPECT_EQ(prp[i + 1] - prp[i], 1);
          EXPECT_EQ(yh[i], 1.0);
        } else if (std::abs(row_sum) < 1e-12) {
          EXPECT_NEAR(yh[i], 1.0, 1e-12)
              << amg::to_string(kind) << " Pmax " << pmax << " row " << i;
          ++checked;
        }
      }
      EXPECT_GT(checked, 100);
    }
  }
}

TEST_P(Classical, AwkwardShapesGiveAValidSplittingAndInterpolation) {
  // Empty rows, one-entry rows, rows longer than a warp, negative diagonals,
  // a nonsymmetric strength.
  const auto A = awkward_matrix(3000, 11).to(exec());
  const auto S = amg::strength_matrix(A, ClassicalParams{});
  const auto cf = amg::pmis_splitting(S, 2);
  const auto cfh = cf.to_vector();
  expect_pmis_invariants(pattern(S), std::vector<int>(cfh.begin(), cfh.end()), false);
  const auto nc = std::count(cfh.begin(), cfh.end(), 1);
  for (Interpolation kind : {Interpolation::direct, Interpolation::mm_ext, Interpolation::mm_ext_i,
                             Interpolation::mm_ext_e}) {
    const auto P = amg::classical_interpolation(A, cf, ClassicalParams{.interpolation = kind})
                       .to(Executor::host());
    ASSERT_EQ(P.cols(), nc);
    EXPECT_NO_THROW(P.validate()) << amg::to_string(kind);
    const auto rp = P.row_ptr().to_vector();
    const auto v = P.values().to_vector();
    for (size_type i = 0; i < P.rows(); ++i) {
      EXPECT_LE(rp[i + 1] - rp[i], 4);
      if (cfh[i] == 1) {
        ASSERT_EQ(rp[i + 1] - rp[i], 1);
        EXPECT_EQ(v[rp[i]], 1.0);
      }
    }
  }
}

TEST_P(Classical, TruncationKeepsTheLargestEntriesAndTheRowSums) {
  const auto A = gallery::diffusion3d_27pt(exec(), 9, 9, 9);
  const ClassicalParams full{.max_elements_per_row = 0};
  const auto cf = amg::pmis_splitting(amg::strength_matrix(A, full), full.seed);
  const auto P0 = amg::classical_interpolation(A, cf, full).to(Executor::host());
  ClassicalParams cut{.max_elements_per_row = 3, .truncation_factor = 0.3};
  const auto P1 = amg::classical_interpolation(A, cf, cut).to(Executor::host());
  const auto r0 = P0.row_ptr().to_vector(), r1 = P1.row_ptr().to_vector();
  const auto c0 = P0.col_idx().to_vector(), c1 = P1.col_idx().to_vector();
  const auto v0 = P0.values().to_vector(), v1 = P1.values().to_vector();
  size_type shortened = 0;
  for (size_type i = 0; i < P0.rows(); ++i) {
    double sum0 = 0, sum1 = 0, largest = 0;
    for (offset_type k = r0[i]; k < r0[i + 1]; ++k) {
      sum0 += v0[k];
      largest = std::max(largest, std::abs(v0[k]));
    }
    for (offset_type k = r1[i]; k < r1[i + 1]; ++k) sum1 += v1[k];
    EXPECT_LE(r1[i + 1] - r1[i], 3);
    EXPECT_NEAR(sum0, sum1, 1e-12 * std::max(1.0, std::abs(sum0)));
    shortened += (r1[i + 1] - r1[i]) < (r0[i + 1] - r0[i]);
    // Every dropped entry is below the threshold or no larger than a kept one.
    double smallest_kept = INFINITY;
    std::set<int> kept;
    for (offset_type k = r1[i]; k < r1[i + 1]; ++k) kept.insert(c1[k]);
    for (offset_type k = r0[i]; k < r0[i + 1]; ++k) {
      if (kept.count(c0[k])) smallest_kept = std::min(smallest_kept, std::abs(v0[k]));
    }
    for (offset_type k = r0[i]; k < r0[i + 1]; ++k) {
      if (kept.count(c0[k])) continue;
      const bool below = std::abs(v0[k]) < 0.3 * largest * (1 + 1e-6);
      EXPECT_TRUE(below || std::abs(v0[k]) <= smallest_kept * (1 + 1e-6)) << "row " << i;
    }
  }
  EXPECT_GT(shortened, 0);
}

// Refresh finds the kept entries by column instead of holding a map from
// each to its place in the untruncated row: the same values bit for bit,
// and a pattern that does not match is counted, not read past.
TEST_P(Classical, TruncatedValuesByColumnsEqualTheMappedOnes) {
  const auto A = gallery::diffusion3d_27pt(exec(), 9, 9, 9);
  const ClassicalParams full{.max_elements_per_row = 0};
  const auto cf = amg::pmis_splitting(amg::strength_matrix(A, full), full.seed);
  auto W = amg::classical_interpolation(A, cf, full);
  Array<offset_type> source;
  auto P = exec().visit(
      [&](const auto& e) { return kernels::classical::truncate(e, W, 3, 0.3, source); });
  ASSERT_LT(P.nnz(), W.nnz());
  copy(Array<double>(exec(), test::random_values(W.nnz(), 3)), W.values());
  auto mapped = P.clone(), by_columns = P.clone();
  const size_type missing = exec().visit([&](const auto& e) {
    kernels::classical::truncated_values(e, W, source.data(), mapped);
    return kernels::classical::truncated_values_by_columns(e, W, by_columns);
  });
  EXPECT_EQ(missing, 0);
  test::expect_identical(by_columns, mapped, "truncated values");
  // A result with a column W's row lacks: counted.
  auto cols = P.col_idx().to_vector();
  const auto wrp = W.row_ptr().to_vector();
  const auto wci = W.col_idx().to_vector();
  const auto prp = P.row_ptr().to_vector();
  size_type changed_rows = 0;
  for (size_type i = 0; i < P.rows() && changed_rows < 2; ++i) {
    if (prp[i + 1] == prp[i]) continue;
    const std::set<index_type> row(wci.begin() + wrp[i], wci.begin() + wrp[i + 1]);
    index_type absent = 0;
    while (row.count(absent)) ++absent;
    if (absent >= P.cols()) continue;
    cols[prp[i]] = absent;
    ++changed_rows;
  }
  ASSERT_EQ(changed_rows, 2);
  CsrMatrix<double> wrong(P.rows(), P.cols(), P.row_ptr().clone(), Array<index_type>(exec(), cols),
                          P.values().clone());
  EXPECT_EQ(exec().visit([&](const auto& e) {
    return kernels::classical::truncated_values_by_columns(e, W, wrong);
  }),
            2);
}

TEST_P(Classical, ChoicesDoNotDependOnRoundingDifferences) {
  // Host and device round the Galerkin products differently (the device
  // fuses multiply-adds), so the strength and truncation choices must not
  // flip for values a few ulps apart, in particular at exact ties: the
  // hierarchy of A and of A with every value moved by a few ulps agree.
  for (const auto& A0 :
       {gallery::poisson3d(exec(), 24, 24, 24), gallery::diffusion3d_27pt(exec(), 16, 16, 16)}) {
    CsrMatrix<double> A1 = A0.clone();
    auto v = A0.values().to_vector();
    std::mt19937 gen(5);
    std::uniform_int_distribution<int> ulps(-3, 3);
    for (double& x : v) {
      const int u = ulps(gen);
      for (int k = 0; k < std::abs(u); ++k) x = std::nextafter(x, u > 0 ? INFINITY : -INFINITY);
    }
    copy(Array<double>(Executor::host(), v), A1.values());
    for (const ClassicalParams& p : {ClassicalParams{}, ClassicalParams{.aggressive_levels = 1}}) {
      auto c0 = amg::make_classical_coarsening<double>(p);
      auto c1 = amg::make_classical_coarsening<double>(p);
      const auto* r0 = c0.get();
      const auto* r1 = c1.get();
      amg::Hierarchy<double> H0(test::shared(A0), std::move(c0)),
          H1(test::shared(A1), std::move(c1));
      ASSERT_EQ(H0.num_levels(), H1.num_levels());
      for (int l = 0; l < H0.num_levels(); ++l) {
        EXPECT_EQ(H0.level_matrix(l).nnz(), H1.level_matrix(l).nnz()) << "level " << l;
        if (l + 1 < H0.num_levels()) {
          EXPECT_EQ(amg::classical_splitting(*r0, l).to_vector(),
                    amg::classical_splitting(*r1, l).to_vector())
              << "level " << l;
        }
      }
    }
  }
}

TEST_P(Classical, Poisson7ptMeetsTheIterationTarget) {
  // The issue's target is 128^3 (checked on the GPU); 64^3 keeps CI fast.
  const auto A = gallery::poisson3d(exec(), 64, 64, 64);
  const auto out = amg_pcg(A, ClassicalParams{});
  EXPECT_TRUE(out.info.converged()) << out.info.message;
  // Limits are the measured count plus about 15% (host and device build the
  // same hierarchy): here 16.
  EXPECT_LE(out.info.iterations, 18);
  EXPECT_LT(out.summary.operator_complexity, 3.0);
  EXPECT_GE(out.summary.levels.size(), 4u);
  for (const char* stage : {"strength", "splitting", "interpolation", "galerkin"}) {
    EXPECT_TRUE(out.summary.setup_stage_seconds.count(stage)) << stage;
  }
}

TEST_P(Classical, Diffusion27ptMeetsTheIterationTarget) {
  const auto A = gallery::diffusion3d_27pt(exec(), 40, 40, 40);
  const auto out = amg_pcg(A, ClassicalParams{});
  EXPECT_TRUE(out.info.converged()) << out.info.message;
  EXPECT_LE(out.info.iterations, 15);  // measured 13
}

TEST_P(Classical, AggressiveCoarseningLowersComplexity) {
  const auto A = gallery::poisson3d(exec(), 64, 64, 64);
  const auto plain = amg_pcg(A, ClassicalParams{});
  for (Interpolation stage : {Interpolation::mm_ext, Interpolation::mm_ext_e}) {
    const auto aggressive =
        amg_pcg(A, ClassicalParams{.aggressive_levels = 1, .aggressive_interpolation = stage});
    EXPECT_TRUE(aggressive.info.converged()) << aggressive.info.message;
    // Measured 23 (ext) and 22 (ext+e).
    EXPECT_LE(aggressive.info.iterations, stage == Interpolation::mm_ext ? 26 : 25)
        << amg::to_string(stage);
    EXPECT_LT(aggressive.summary.operator_complexity, plain.summary.operator_complexity);
    EXPECT_LT(aggressive.summary.levels[1].rows, plain.summary.levels[1].rows / 2);
  }
}

TEST_P(Classical, OtherInterpolationsConverge) {
  const auto A = gallery::poisson3d(exec(), 24, 24, 24);
  for (Interpolation kind :
       {Interpolation::direct, Interpolation::mm_ext, Interpolation::mm_ext_e}) {
    const auto out = amg_pcg(A, ClassicalParams{.interpolation = kind});
    EXPECT_TRUE(out.info.converged()) << amg::to_string(kind);
    // Measured 17 (direct), 15 (ext), 13 (ext+e).
    const int bound = kind == Interpolation::direct ? 20 : kind == Interpolation::mm_ext ? 17 : 15;
    EXPECT_LE(out.info.iterations, bound) << amg::to_string(kind);
  }
  // A2 strength for the second pass (the default) coarsens less
  // aggressively than A1.
  const auto a1 = amg_pcg(A, ClassicalParams{.aggressive_levels = 1, .aggressive_num_paths = 1});
  const auto a2 = amg_pcg(A, ClassicalParams{.aggressive_levels = 1});
  EXPECT_TRUE(a1.info.converged());
  EXPECT_TRUE(a2.info.converged());
  EXPECT_LE(a1.info.iterations, 25);  // measured 22
  EXPECT_LE(a2.info.iterations, 23);  // measured 20
  EXPECT_GE(a2.summary.levels[1].rows, a1.summary.levels[1].rows);
}

TEST_P(Classical, HypreTestMatricesConverge) {
  STRATA_REQUIRE_DATA();
  // Scalar AMG on 2D elasticity (no systems AMG here: hypre's own 14-19
  // iterations use -nf 2 with rigid-body modes) takes 59 iterations, and
  // tucker21935 43; the bounds add about 15%.
  for (const auto& [name, bound] :
       {std::pair{"hypre/elast2d_TEST_ij_A.mtx", 68}, std::pair{"hypre/tucker21935_A.mtx", 50}}) {
    const auto A = io::read_matrix_market(test::data_dir() + "/" + name).to(exec());
    const auto out = amg_pcg(A, ClassicalParams{}, 300);
    EXPECT_TRUE(out.info.converged()) << name << ": " << out.info.message;
    EXPECT_LE(out.info.iterations, bound) << name;
  }
}

/// A with the same pattern and new values: scale * A + shift * I.
CsrMatrix<double> new_values(const CsrMatrix<double>& A, double scale, double shift) {
  CsrMatrix<double> B = A.clone();
  const auto h = A.to(Executor::host());
  const auto rp = h.row_ptr().to_vector();
  const auto ci = h.col_idx().to_vector();
  auto v = h.values().to_vector();
  for (size_type i = 0; i < h.rows(); ++i) {
    for (offset_type k = rp[i]; k < rp[i + 1]; ++k)
      v[k] = scale * v[k] + (ci[k] == i ? shift : 0.0);
  }
  copy(Array<double>(Executor::host(), v), B.values());
  return B;
}

/// Resetup with new values gives the iteration count of a fresh setup. For
/// a scaled A (every choice of the setup unchanged) it gives the same
/// hierarchy; with a diagonal shift the coarse levels' strength and
/// truncation choices of a fresh setup may differ from the kept ones.
void expect_resetup_equals_fresh(const CsrMatrix<double>& A, const ClassicalParams& p) {
  amg::Hierarchy<double> H(test::shared(A), amg::make_classical_coarsening<double>(p));
  for (const auto& [scale, shift] : {std::pair{3.0, 0.0}, std::pair{0.5, 0.05}}) {
    const CsrMatrix<double> A2 = new_values(A, scale, shift);
    H.resetup(test::shared(A2));
    amg::Hierarchy<double> fresh(test::shared(A2), amg::make_classical_coarsening<double>(p));
    ASSERT_GE(H.num_levels(), 2);
    EXPECT_EQ(H.level_matrix(1).rows(), fresh.level_matrix(1).rows());
    if (shift == 0.0) {
      ASSERT_EQ(H.num_levels(), fresh.num_levels());
      for (int l = 0; l < H.num_levels(); ++l) {
        EXPECT_EQ(H.level_matrix(l).nnz(), fresh.level_matrix(l).nnz()) << "level " << l;
      }
    }
    CsrOperator<double> op(test::shared(A2));
    std::vector<int> iterations;
    for (const amg::Hierarchy<double>* M : {&H, &fresh}) {
      Vector<double> b(A2.executor(), A2.rows(), 1.0), x(A2.executor(), A2.rows(), 0.0);
      const auto info = solve(KrylovMethod{Cg{}}, op, b, x, M);
      EXPECT_TRUE(info.converged());
      EXPECT_LT(test::relative_residual(A2, b, x), 1.01e-8);
      iterations.push_back(info.iterations);
    }
    EXPECT_EQ(iterations[0], iterations[1]) << "scale " << scale;
  }
}

TEST_P(Classical, ResetupEqualsAFreshSetup) {
  expect_resetup_equals_fresh(gallery::poisson3d(exec(), 30, 30, 30), ClassicalParams{});
  // The automatic choices: on the host HMIS, Pmax 6 and (40^3) an
  // automatic aggressive level whose stages are untruncated.
  expect_resetup_equals_fresh(gallery::poisson3d(exec(), 40, 40, 40),
                              amg::automatic_classical_params());
  expect_resetup_equals_fresh(gallery::diffusion3d_27pt(exec(), 14, 14, 14),
                              ClassicalParams{.interpolation = Interpolation::direct});
}

TEST_P(Classical, DroppingResetupDataSavesMemoryAndKeepsTheSolve) {
  const auto A = gallery::poisson3d(exec(), 32, 32, 32);
  for (int aggressive : {0, 1}) {
    const ClassicalParams p{.aggressive_levels = aggressive};
    amg::Hierarchy<double> kept(test::shared(A), amg::make_classical_coarsening<double>(p));
    amg::Hierarchy<double> dropped(test::shared(A), amg::make_classical_coarsening<double>(p),
                                   {.keep_resetup_data = false});
    ASSERT_EQ(kept.num_levels(), dropped.num_levels());
    Vector<double> b(Array<double>(exec(), test::random_values(A.rows(), 5)));
    Vector<double> x1(exec(), A.rows()), x2(exec(), A.rows());
    kept.apply(b, x1);
    dropped.apply(b, x2);
    EXPECT_EQ(x1.to_vector(), x2.to_vector()) << "aggressive " << aggressive;
    // The untruncated interpolation products and A P are most of setup's memory.
    EXPECT_LT(2 * dropped.summary().setup_bytes, kept.summary().setup_bytes)
        << "aggressive " << aggressive;
    std::printf("  poisson3d 32^3, aggressive %d: hierarchy %.1f MB kept, %.1f MB dropped\n",
                aggressive, kept.summary().setup_bytes / 1e6, dropped.summary().setup_bytes / 1e6);
    EXPECT_THROW(dropped.resetup(test::shared(A)), invalid_argument);
  }
}

/// The lean resetup (HierarchyParams::lean_resetup_data) rebuilds what the
/// full one keeps: the same hierarchy after each resetup, with less memory
/// held. The interpolation operands are made afresh (pattern and values)
/// rather than refilled, which on the device may sum in another order:
/// equal to rounding.
void expect_lean_resetup_equals_full(const CsrMatrix<double>& A, const ClassicalParams& p,
                                     const char* what) {
  // Small coarse levels, so that the device (600 rows by default) has three.
  amg::Hierarchy<double> full(test::shared(A), amg::make_classical_coarsening<double>(p),
                              {.coarse_size = 50});
  amg::Hierarchy<double> lean(test::shared(A), amg::make_classical_coarsening<double>(p),
                              {.coarse_size = 50, .lean_resetup_data = true});
  ASSERT_EQ(full.num_levels(), lean.num_levels()) << what;
  ASSERT_GE(full.num_levels(), 3) << what;
  const double full_mb = full.summary().setup_bytes / 1e6,
               lean_mb = lean.summary().setup_bytes / 1e6;
  std::printf("  %s: hierarchy %.1f MB with full resetup data, %.1f MB lean\n", what, full_mb,
              lean_mb);
  EXPECT_LT(lean_mb, 0.7 * full_mb) << what;
  for (const auto& [scale, shift] : {std::pair{3.0, 0.0}, std::pair{0.5, 0.05}}) {
    const CsrMatrix<double> A2 = new_values(A, scale, shift);
    for (int round = 0; round < 2; ++round) {  // rebuilt and freed again each time
      full.resetup(test::shared(A2));
      lean.resetup(test::shared(A2));
      for (int l = 0; l < full.num_levels(); ++l) {
        const std::string at = std::string(what) + ", level " + std::to_string(l);
        test::expect_close(lean.level_matrix(l), full.level_matrix(l), at + " A", 1e-12);
        if (l + 1 < full.num_levels()) {
          test::expect_close(lean.level_interpolation(l), full.level_interpolation(l), at + " P",
                             1e-12);
        }
      }
    }
  }
}

TEST_P(Classical, LeanResetupGivesTheFullResetupsHierarchyWithLessMemory) {
  expect_lean_resetup_equals_full(gallery::poisson3d(exec(), 24, 24, 24), ClassicalParams{},
                                  "poisson3d 24^3, PMIS + ext+i");
  expect_lean_resetup_equals_full(
      gallery::poisson3d(exec(), 24, 24, 24),
      ClassicalParams{.interpolation = Interpolation::mm_ext_e,
                      .aggressive_levels = 1,
                      .aggressive_interpolation = Interpolation::mm_ext_e},
      "poisson3d 24^3, aggressive two-stage ext+e");
  expect_lean_resetup_equals_full(gallery::diffusion3d_27pt(exec(), 14, 14, 14),
                                  ClassicalParams{.interpolation = Interpolation::direct},
                                  "27-point 14^3, direct");
}

TEST_P(Classical, AggressiveResetupEqualsAFreshSetup) {
  expect_resetup_equals_fresh(gallery::poisson3d(exec(), 24, 24, 24),
                              ClassicalParams{.interpolation = Interpolation::mm_ext_e,
                                              .aggressive_levels = 1,
                                              .aggressive_interpolation = Interpolation::mm_ext_e});
}

TEST_P(Classical, SplittingIsReproducibleAndReachableFromTheCoarsening) {
  const auto A = gallery::diffusion3d_27pt(exec(), 16, 16, 16);
  std::vector<std::vector<std::int32_t>> splittings;
  for (int run = 0; run < 2; ++run) {
    auto coarsening = amg::make_classical_coarsening<double>(ClassicalParams{.seed = 9});
    const auto* raw = coarsening.get();
    amg::Hierarchy<double> H(test::shared(A), std::move(coarsening), {.coarse_size = 50});
    ASSERT_GE(H.num_levels(), 3);
    splittings.push_back(amg::classical_splitting(*raw, 0).to_vector());
    const auto coarse = std::count(splittings.back().begin(), splittings.back().end(), 1);
    EXPECT_EQ(coarse, H.level_matrix(1).rows());
    EXPECT_THROW(amg::classical_splitting(*raw, H.num_levels()), invalid_argument);
  }
  EXPECT_EQ(splittings[0], splittings[1]);
  // Level 0 is the stand-alone PMIS of the strength matrix.
  const auto S = amg::strength_matrix(A, ClassicalParams{});
  EXPECT_EQ(splittings[0], amg::pmis_splitting(S, 9).to_vector());
}

TEST_P(Classical, BadParametersNameTheField) {
  const auto expect_field = [](const ClassicalParams& p, const std::string& field) {
    try {
      amg::make_classical_coarsening<double>(p);
      ADD_FAILURE() << "no exception for " << field;
    } catch (const invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    }
  };
  expect_field({.strength_threshold = 1.5}, "strength_threshold");
  expect_field({.max_row_sum = 0.0}, "max_row_sum");
  expect_field({.splitting = static_cast<amg::Splitting>(7)}, "splitting");
  expect_field({.max_elements_per_row = -2}, "max_elements_per_row");
  expect_field({.truncation_factor = 1.0}, "truncation_factor");
  expect_field({.aggressive_levels = -2}, "aggressive_levels");
  expect_field({.aggressive_interpolation = Interpolation::mm_ext_i}, "aggressive_interpolation");
  expect_field({.aggressive_num_paths = 3}, "aggressive_num_paths");
  expect_field({.aggressive_stage_max_elements = -2}, "aggressive_stage_max_elements");
  EXPECT_STREQ(amg::to_string(amg::Splitting::hmis), "hmis");
  EXPECT_STREQ(amg::to_string(Interpolation::mm_ext_i), "ext+i");
  EXPECT_STREQ(amg::to_string(Interpolation::direct), "direct");
}

STRATA_INSTANTIATE_ON_EXECUTORS(Classical);

// ---- device only: agreement with the host, and the 128^3 targets ----

void expect_same_hierarchy(const CsrMatrix<double>& A_host, const ClassicalParams& p) {
  const auto gpu = Executor::cuda();
  const auto A_dev = A_host.to(gpu);
  auto ch = amg::make_classical_coarsening<double>(p);
  auto cd = amg::make_classical_coarsening<double>(p);
  const auto* rh = ch.get();
  const auto* rd = cd.get();
  // The same coarsest size on both (the default depends on the executor:
  // amg::default_coarse_size).
  amg::HierarchyParams same;
  same.coarse_size = 600;
  amg::Hierarchy<double> Hh(test::shared(A_host), std::move(ch), same),
      Hd(test::shared(A_dev), std::move(cd), same);
  ASSERT_EQ(Hh.num_levels(), Hd.num_levels());
  for (int l = 0; l < Hh.num_levels(); ++l) {
    EXPECT_EQ(Hh.level_matrix(l).rows(), Hd.level_matrix(l).rows()) << "level " << l;
    EXPECT_EQ(Hh.level_matrix(l).nnz(), Hd.level_matrix(l).nnz()) << "level " << l;
    if (l + 1 < Hh.num_levels()) {
      EXPECT_EQ(amg::classical_splitting(*rh, l).to_vector(),
                amg::classical_splitting(*rd, l).to_vector())
          << "level " << l;
    }
  }
}

void expect_same_matrix(const CsrMatrix<double>& host, const CsrMatrix<double>& device,
                        const std::string& what, double tolerance = 1e-12) {
  const auto d = device.to(Executor::host());
  ASSERT_EQ(host.rows(), d.rows()) << what;
  ASSERT_EQ(host.cols(), d.cols()) << what;
  ASSERT_EQ(host.row_ptr().to_vector(), d.row_ptr().to_vector()) << what;
  ASSERT_EQ(host.col_idx().to_vector(), d.col_idx().to_vector()) << what;
  const auto hv = host.values().to_vector(), dv = d.values().to_vector();
  double scale = 0;
  for (double v : hv) scale = std::max(scale, std::abs(v));
  for (std::size_t k = 0; k < hv.size(); ++k) {
    ASSERT_NEAR(hv[k], dv[k], tolerance * scale) << what << ", entry " << k;
  }
}

std::vector<std::pair<std::string, CsrMatrix<double>>> device_test_matrices() {
  const auto h = Executor::host();
  std::vector<std::pair<std::string, CsrMatrix<double>>> m;
  m.emplace_back("poisson3d 20^3", gallery::poisson3d(h, 20, 20, 20));
  m.emplace_back("diffusion27 12^3", gallery::diffusion3d_27pt(h, 12, 12, 12));
  m.emplace_back("convdiff3d 14^3", gallery::convdiff3d(h, 14, 14, 14));
  m.emplace_back("awkward 3000", awkward_matrix(3000, 7));
  return m;
}

TEST(ClassicalDevice, StrengthAndPmisMatchTheHost) {
  STRATA_REQUIRE_DEVICE();
  const auto gpu = Executor::cuda();
  for (const auto& [name, A] : device_test_matrices()) {
    for (const ClassicalParams& p : {ClassicalParams{}, ClassicalParams{.max_row_sum = 0.8},
                                     ClassicalParams{.strength_threshold = 0.5}}) {
      const auto Sh = amg::strength_matrix(A, p);
      const auto Sd = amg::strength_matrix(A.to(gpu), p);
      expect_same_matrix(Sh, Sd, name + ": strength");
      EXPECT_EQ(amg::pmis_splitting(Sh, 4).to_vector(), amg::pmis_splitting(Sd, 4).to_vector())
          << name << ": PMIS";
    }
  }
}

TEST(ClassicalDevice, InterpolationMatchesTheHost) {
  STRATA_REQUIRE_DEVICE();
  const auto gpu = Executor::cuda();
  for (const auto& [name, A] : device_test_matrices()) {
    const auto Ad = A.to(gpu);
    const auto cf = amg::pmis_splitting(amg::strength_matrix(A, ClassicalParams{}), 1);
    const auto cfd = cf.to(gpu);
    for (Interpolation kind : {Interpolation::direct, Interpolation::mm_ext,
                               Interpolation::mm_ext_i, Interpolation::mm_ext_e}) {
      for (int pmax : {0, 2, 4}) {
        for (double factor : {0.0, 0.25}) {
          const ClassicalParams p{
              .interpolation = kind, .max_elements_per_row = pmax, .truncation_factor = factor};
          SCOPED_TRACE(name + ", " + amg::to_string(kind) + ", Pmax " + std::to_string(pmax) +
                       ", truncation factor " + std::to_string(factor));
          expect_same_matrix(amg::classical_interpolation(A, cf, p),
                             amg::classical_interpolation(Ad, cfd, p), "P", 1e-10);
        }
      }
    }
  }
}

TEST(ClassicalDevice, SparseProductsOfClassicalOperatorsMatchTheHost) {
  // The Galerkin product of host-built operators, on the device: isolates
  // the SpGEMM from the coarsening kernels.
  STRATA_REQUIRE_DEVICE();
  const auto gpu = Executor::cuda();
  for (const auto& [name, A] : device_test_matrices()) {
    const auto cf = amg::pmis_splitting(amg::strength_matrix(A, ClassicalParams{}), 1);
    const auto P = amg::classical_interpolation(A, cf, ClassicalParams{});
    const auto R = transpose(P);
    const auto AP = spgemm(A, P);
    expect_same_matrix(AP, spgemm(A.to(gpu), P.to(gpu)), name + ": A P", 1e-10);
    expect_same_matrix(spgemm(R, AP), spgemm(R.to(gpu), AP.to(gpu)), name + ": R (A P)", 1e-10);
  }
}

TEST(ClassicalDevice, SameSplittingAndLevelSizesAsTheHost) {
  STRATA_REQUIRE_DEVICE();
  const auto host = Executor::host();
  expect_same_hierarchy(gallery::poisson3d(host, 40, 40, 40), ClassicalParams{});
  expect_same_hierarchy(gallery::diffusion3d_27pt(host, 24, 24, 24), ClassicalParams{});
  expect_same_hierarchy(gallery::poisson3d(host, 40, 40, 40),
                        ClassicalParams{.aggressive_levels = 1});
  expect_same_hierarchy(
      gallery::jumps3d(host, 24, 24, 24),
      ClassicalParams{.max_row_sum = 0.9, .interpolation = Interpolation::mm_ext_e});
}

TEST(ClassicalDevice, Poisson128MeetsTheIssueTargets) {
  STRATA_REQUIRE_DEVICE();
  const auto gpu = Executor::cuda();
  const auto A = gallery::poisson3d(gpu, 128, 128, 128);
  // Measured on an H100: 17, aggressive 23, 27-point 16. The bounds add
  // about 15%, except where issue 6's targets (22, 25, 20) are tighter.
  const auto plain = amg_pcg(A, ClassicalParams{});
  EXPECT_LE(plain.info.iterations, 20);
  // 2,097,152 rows on the device: the automatic precision cycles in float,
  // and the targets hold with it.
  EXPECT_EQ(plain.summary.cycle_precision, "single");
  // One aggressive level with the defaults (A2, two-stage ext+e): at most
  // 25 iterations with a lower operator complexity.
  const auto aggressive = amg_pcg(A, ClassicalParams{.aggressive_levels = 1});
  EXPECT_LE(aggressive.info.iterations, 25);
  EXPECT_LT(aggressive.summary.operator_complexity, plain.summary.operator_complexity);
  const auto A27 = gallery::diffusion3d_27pt(gpu, 128, 128, 128);
  const auto d27 = amg_pcg(A27, ClassicalParams{});
  EXPECT_LE(d27.info.iterations, 18);
  std::printf(
      "[ 128^3 ] 7-point: %d iterations, operator complexity %.3f; aggressive: %d, %.3f; "
      "27-point: %d, %.3f\n",
      plain.info.iterations, plain.summary.operator_complexity, aggressive.info.iterations,
      aggressive.summary.operator_complexity, d27.info.iterations, d27.summary.operator_complexity);
}

}  // namespace
}  // namespace strata
