// PFMG: the Galerkin stencil product against a dense P^T A P, the choice of
// directions, the symmetry of the V-cycle, and iteration counts of
// PFMG-PCG and stand-alone PFMG (issue 18's targets, at host sizes).

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "strata/amg/classical.hpp"
#include "strata/structured/pfmg.hpp"
#include "test_util.hpp"

namespace strata::structured {
namespace {

using test::OnExecutor;

/// Dense row-major matrix of a CSR one (small sizes only).
std::vector<double> dense(const CsrMatrix<double>& A) {
  const auto h = A.to(Executor::host());
  const auto rp = h.row_ptr().to_vector();
  const auto ci = h.col_idx().to_vector();
  const auto va = h.values().to_vector();
  std::vector<double> D(static_cast<std::size_t>(A.rows() * A.cols()), 0.0);
  for (size_type i = 0; i < A.rows(); ++i)
    for (auto k = rp[i]; k < rp[i + 1]; ++k) D[i * A.cols() + ci[k]] += va[k];
  return D;
}

/// Dense P of one semicoarsening (fine cells x coarse cells) from PFMG's
/// weights, written from the definition: coarse cell I is fine cell 2I in
/// direction d; an odd fine cell takes wl of its left and wr of its right
/// coarse neighbour (when that exists).
std::vector<double> dense_interpolation(const std::array<std::int64_t, 3>& nf,
                                        const std::array<std::int64_t, 3>& nc, int d,
                                        const std::vector<double>& wl,
                                        const std::vector<double>& wr, bool periodic = false) {
  const std::int64_t fine = nf[0] * nf[1] * nf[2], coarse = nc[0] * nc[1] * nc[2];
  std::vector<double> P(static_cast<std::size_t>(fine * coarse), 0.0);
  for (std::int64_t k = 0; k < nf[2]; ++k)
    for (std::int64_t j = 0; j < nf[1]; ++j)
      for (std::int64_t i = 0; i < nf[0]; ++i) {
        const std::int64_t f = i + nf[0] * (j + nf[1] * k);
        std::int64_t c[3] = {i, j, k};
        const std::int64_t t = c[d];
        auto col = [&](std::int64_t cd) {
          std::int64_t q[3] = {c[0], c[1], c[2]};
          q[d] = cd;
          return q[0] + nc[0] * (q[1] + nc[1] * q[2]);
        };
        if (t % 2 == 0) {
          P[f * coarse + col(t / 2)] = 1.0;
        } else {
          // += : in a periodic d of one coarse cell both neighbours are that cell.
          P[f * coarse + col((t - 1) / 2)] += wl[f];
          if ((t + 1) / 2 < nc[d]) P[f * coarse + col((t + 1) / 2)] += wr[f];
          else if (periodic) P[f * coarse + col(0)] += wr[f];
        }
      }
  return P;
}

/// Dense matrix of a structured one, written from the definition: row p,
/// column p + o_e (wrapped in the periodic directions, dropped outside the
/// others), entries that land on one column added. Unlike to_csr() it
/// takes periods of one or two cells, where stencil entries fold.
std::vector<double> dense_of_stencil(const StructMatrix<double>& A) {
  const auto& g = A.grid();
  const std::int64_t n[3] = {g.box().extent(0), g.box().extent(1), g.box().extent(2)};
  const std::int64_t N = n[0] * n[1] * n[2];
  const auto coef = A.coefficients().to(Executor::host()).to_vector();
  std::vector<double> D(static_cast<std::size_t>(N * N), 0.0);
  for (std::int64_t k = 0; k < n[2]; ++k)
    for (std::int64_t j = 0; j < n[1]; ++j)
      for (std::int64_t i = 0; i < n[0]; ++i) {
        const std::int64_t p = i + n[0] * (j + n[1] * k);
        for (int e = 0; e < A.stencil().size(); ++e) {
          std::int64_t c[3] = {i, j, k};
          bool inside = true;
          for (int d = 0; d < 3; ++d) {
            c[d] += A.stencil().offset(e)[d];
            if (g.periodic(d)) c[d] = ((c[d] % n[d]) + n[d]) % n[d];
            inside = inside && c[d] >= 0 && c[d] < n[d];
          }
          if (inside) D[p * N + c[0] + n[0] * (c[1] + n[1] * c[2])] += coef[e * N + p];
        }
      }
  return D;
}

/// max |P^T A P - Ac| over the entries, relative to max |P^T A P|, densely.
double galerkin_error(const std::vector<double>& Af, const std::vector<double>& Ac,
                      const std::vector<double>& P, std::int64_t nf, std::int64_t nc) {
  std::vector<double> AP(nf * nc, 0.0), PtAP(nc * nc, 0.0);
  for (std::int64_t i = 0; i < nf; ++i)
    for (std::int64_t k = 0; k < nf; ++k)
      if (Af[i * nf + k] != 0)
        for (std::int64_t j = 0; j < nc; ++j) AP[i * nc + j] += Af[i * nf + k] * P[k * nc + j];
  for (std::int64_t k = 0; k < nf; ++k)
    for (std::int64_t i = 0; i < nc; ++i)
      if (P[k * nc + i] != 0)
        for (std::int64_t j = 0; j < nc; ++j) PtAP[i * nc + j] += P[k * nc + i] * AP[k * nc + j];
  double scale = 0, err = 0;
  for (std::int64_t q = 0; q < nc * nc; ++q) {
    scale = std::max(scale, std::abs(PtAP[q]));
    err = std::max(err, std::abs(PtAP[q] - Ac[q]));
  }
  return err / scale;
}

/// Random values of zero mean (a consistent right-hand side for a matrix
/// periodic in every direction).
Vector<double> zero_mean(const Executor& e, size_type n, unsigned seed) {
  auto v = test::random_values(static_cast<std::size_t>(n), seed);
  double mean = 0;
  for (double x : v) mean += x;
  mean /= static_cast<double>(n);
  for (double& x : v) x -= mean;
  return Vector<double>(Array<double>(e, v));
}

class StructuredPfmg : public OnExecutor {};

TEST_P(StructuredPfmg, CoarseOperatorsEqualDenseGalerkinProducts) {
  const auto e = exec();
  // Varying coefficients (jumps) and odd and even extents: every level's
  // stencil product must equal P^T A P computed densely from the definition.
  auto A = std::make_shared<StructMatrix<double>>(gallery::jumps3d(e, 7, 6, 5, 10.0, 1));
  const structured::Pfmg<double> pfmg(A);
  ASSERT_GE(pfmg.num_levels(), 4);
  for (int l = 0; l + 1 < pfmg.num_levels(); ++l) {
    const auto& info = pfmg.level(l);
    const auto& next = pfmg.level(l + 1);
    const auto Af = dense(pfmg.level_matrix(l).to_csr());
    const auto Ac = dense(pfmg.level_matrix(l + 1).to_csr());
    const auto [wl, wr] = pfmg.interpolation(l);
    const auto P = dense_interpolation(info.extent, next.extent, info.coarsening_direction,
                                       wl->to_vector(), wr->to_vector());
    const std::int64_t nf = pfmg.level_matrix(l).grid().points();
    const std::int64_t nc = pfmg.level_matrix(l + 1).grid().points();
    EXPECT_LE(galerkin_error(Af, Ac, P, nf, nc), 1e-12) << "level " << l + 1;
  }
}

TEST_P(StructuredPfmg, InterpolationCollapsesTheStencil) {
  const auto e = exec();
  auto A = std::make_shared<StructMatrix<double>>(gallery::poisson3d(e, 8, 8, 8));
  PfmgParams params;
  params.coarse_operator = PfmgCoarseOperator::galerkin;
  const structured::Pfmg<double> pfmg(A, params);
  const int d = pfmg.level(0).coarsening_direction;
  const auto wl = pfmg.interpolation(0).first->to_vector();
  // An interior cell: collapsed centre 6 - 4 = 2, so both weights are 1/2.
  const std::int64_t p = 3 + 8 * (3 + 8 * 3);
  EXPECT_DOUBLE_EQ(wl[p], 0.5) << "direction " << d;
  // A 7-point stencil becomes the 15-point one of hypre's PFMG.
  EXPECT_EQ(pfmg.level(1).stencil_size, 15);
}

TEST_P(StructuredPfmg, SemicoarsensTheStrongestDirectionAndSkipsRelaxation) {
  const auto e = exec();
  // Coupling 1 in x, 0.001 in y and z: x is coarsened until its coupling,
  // doubling per level as hypre's dxyz, falls to theirs (10 levels of x
  // would be needed; the grid has 5).
  auto A = std::make_shared<StructMatrix<double>>(
      gallery::anisotropic3d(e, 32, 8, 8, {1.0, 1e-3, 1e-3}));
  const structured::Pfmg<double> pfmg(A);
  for (int l = 0; l < 5; ++l) EXPECT_EQ(pfmg.level(l).coarsening_direction, 0) << "level " << l;
  EXPECT_EQ(pfmg.level(5).extent[0], 1);
  // Isotropic: x, y, z in turn; with skip, only every third level relaxes
  // (the one coarsening a direction coarsened before), and the first and last.
  auto B = std::make_shared<StructMatrix<double>>(gallery::poisson3d(e, 8, 8, 8));
  const structured::Pfmg<double> iso(B);
  ASSERT_EQ(iso.num_levels(), 10);
  const int dirs[9] = {0, 1, 2, 0, 1, 2, 0, 1, 2};
  const bool relaxed[10] = {true, false, false, true, false, false, true, false, false, true};
  for (int l = 0; l < 10; ++l) {
    if (l < 9) {
      EXPECT_EQ(iso.level(l).coarsening_direction, dirs[l]) << "level " << l;
    }
    EXPECT_EQ(iso.level(l).relaxed, relaxed[l]) << "level " << l;
  }
  EXPECT_EQ(iso.level(9).coarsening_direction, -1);
  PfmgParams no_skip;
  no_skip.skip_relax = false;
  const structured::Pfmg<double> all(B, no_skip);
  for (int l = 0; l < all.num_levels(); ++l) EXPECT_TRUE(all.level(l).relaxed);
}

/// PFMG-PCG from x = 0 on b = 1 (relative tolerance 1e-8); returns iterations.
int pcg_iterations(const std::shared_ptr<const StructMatrix<double>>& A, const PfmgParams& params,
                   double* true_relative = nullptr) {
  const auto& e = A->executor();
  const StructOperator<double> op(A);
  const structured::Pfmg<double> M(A, params);
  Vector<double> b(e, op.rows(), 1.0), x(e, op.rows(), 0.0);
  Cg cg;
  cg.params.relative_tolerance = 1e-8;
  cg.params.max_iterations = 200;
  const auto info = solve(KrylovMethod{cg}, op, b, x, &M);
  EXPECT_TRUE(info.converged()) << info.message;
  if (true_relative) *true_relative = info.true_relative_residual;
  return info.iterations;
}

TEST_P(StructuredPfmg, VCycleIsSymmetric) {
  const auto e = exec();
  auto A = std::make_shared<StructMatrix<double>>(gallery::jumps3d(e, 9, 8, 7, 100.0, 1));
  for (auto relaxation : {PfmgRelaxation::weighted_jacobi, PfmgRelaxation::red_black_gauss_seidel}) {
    PfmgParams params;
    params.relaxation = relaxation;
    const structured::Pfmg<double> M(A, params);
    const size_type n = M.rows();
    Vector<double> u(Array<double>(e, test::random_values(n, 3))),
        v(Array<double>(e, test::random_values(n, 4))), Mu(e, n), Mv(e, n);
    M.apply(u, Mu);
    M.apply(v, Mv);
    const double a = dot(v, Mu), b = dot(u, Mv);
    EXPECT_NEAR(a, b, 1e-12 * std::abs(a)) << to_string(relaxation);
    EXPECT_GT(dot(u, Mu), 0.0) << to_string(relaxation);
  }
}

TEST_P(StructuredPfmg, PcgIterationsOnPoissonAreGridIndependent) {
  const auto e = exec();
  const int small = pcg_iterations(
      std::make_shared<StructMatrix<double>>(gallery::poisson3d(e, 16, 16, 16)), {});
  double residual = 1;
  const int large = pcg_iterations(
      std::make_shared<StructMatrix<double>>(gallery::poisson3d(e, 32, 32, 32)), {}, &residual);
  std::printf("PFMG-PCG poisson3d: 16^3 %d, 32^3 %d iterations\n", small, large);
  EXPECT_LE(residual, 1e-8);
  EXPECT_LE(large, 14);  // measured 13 (hypre: 12 at 256^3)
  EXPECT_LE(std::abs(large - small), 0.2 * small + 1e-12);
}

TEST_P(StructuredPfmg, PcgOnAnisotropicProblemsWithin15Iterations) {
  const auto e = exec();
  for (const auto& c : {std::array<double, 3>{1.0, 1.0, 1e-3}, std::array<double, 3>{1.0, 1e-3, 1e-3}}) {
    const int it = pcg_iterations(
        std::make_shared<StructMatrix<double>>(gallery::anisotropic3d(e, 32, 32, 32, c)), {});
    std::printf("PFMG-PCG anisotropic (%g, %g, %g) 32^3: %d iterations\n", c[0], c[1], c[2], it);
    EXPECT_LE(it, 15) << c[0] << ", " << c[1] << ", " << c[2];
  }
}

/// The coarse operators of two hierarchies entry by entry (by offset, so
/// that a 15-point Galerkin stencil is compared with a 7-point one: an
/// offset one of them lacks must be zero in the other).
double largest_operator_difference(const Pfmg<double>& a, const Pfmg<double>& b) {
  double diff = 0;
  for (int l = 1; l < a.num_levels(); ++l) {
    const auto Da = dense_of_stencil(a.level_matrix(l)), Db = dense_of_stencil(b.level_matrix(l));
    for (std::size_t q = 0; q < Da.size(); ++q) diff = std::max(diff, std::abs(Da[q] - Db[q]));
  }
  return diff;
}

TEST_P(StructuredPfmg, NonGalerkinCoarseOperatorsKeepTheStarStencil) {
  const auto e = exec();
  PfmgParams params;
  params.coarse_operator = PfmgCoarseOperator::non_galerkin;
  auto A = std::make_shared<StructMatrix<double>>(gallery::poisson3d(e, 9, 8, 8));
  const structured::Pfmg<double> pfmg(A, params);
  ASSERT_EQ(pfmg.coarse_operator(), PfmgCoarseOperator::non_galerkin);
  EXPECT_NE(pfmg.describe().find("non_galerkin"), std::string::npos) << pfmg.describe();
  for (int l = 1; l < pfmg.num_levels(); ++l) EXPECT_EQ(pfmg.level(l).stencil_size, 7) << l;
  // Cells x entries summed over the levels: about 2 (the Galerkin 15- and
  // 27-point stencils make it about 4); the odd 9 cells round up.
  EXPECT_LT(pfmg.operator_complexity(), 2.2);
  // An interior cell of the first coarse level, (2, 4, 4) (x was coarsened:
  // it stands for fine cell (4, 4, 4)): across x, -1 times P's weight 1/2; along the plane, the
  // slab of three fine planes, -1 - (1 + 1) / 2 = -2; the centre keeps the row sum zero: 6 - 2
  // (1/2) + 4 (-1 + 2) = 9.
  ASSERT_EQ(pfmg.level(0).coarsening_direction, 0);
  const auto& A1 = pfmg.level_matrix(1);
  const auto c = A1.coefficients().to(Executor::host()).to_vector();
  const auto n = A1.grid().box();
  const std::int64_t p = 2 + n.extent(0) * (4 + n.extent(1) * 4);
  const std::int64_t points = A1.grid().points();
  for (int s = 0; s < 7; ++s) {
    const auto& o = A1.stencil().offset(s);
    const double expected = s == A1.center_entry() ? 9.0 : o[0] != 0 ? -0.5 : -2.0;
    EXPECT_DOUBLE_EQ(c[s * points + p], expected) << "entry " << s;
  }
  // A problem that varies along one direction only (n x 1 x 1 cells): the
  // non-Galerkin operator is the Galerkin one, boundaries included.
  auto line = std::make_shared<StructMatrix<double>>(gallery::jumps3d(e, 13, 1, 1, 10.0, 1));
  PfmgParams galerkin;
  galerkin.coarse_operator = PfmgCoarseOperator::galerkin;
  const structured::Pfmg<double> g(line, galerkin), ng(line, params);
  ASSERT_EQ(g.num_levels(), ng.num_levels());
  EXPECT_LE(largest_operator_difference(g, ng), 1e-13);
}

TEST_P(StructuredPfmg, AutomaticCoarseOperatorsFollowTheCoefficients) {
  const auto e = exec();
  auto smooth = std::make_shared<StructMatrix<double>>(
      gallery::anisotropic3d(e, 16, 16, 16, {1.0, 1.0, 1e-3}));
  auto jumps = std::make_shared<StructMatrix<double>>(gallery::jumps3d(e, 16, 16, 16, 1e3, 2));
  EXPECT_EQ(structured::Pfmg<double>(smooth).coarse_operator(), PfmgCoarseOperator::non_galerkin);
  EXPECT_EQ(structured::Pfmg<double>(jumps).coarse_operator(), PfmgCoarseOperator::galerkin);
  // A 27-point stencil is not a star: Galerkin when automatic, an error
  // that names the offset when non_galerkin is asked for.
  const StructGrid grid = StructGrid::from_extents(3, {6, 6, 6});
  std::vector<Index> box27;
  for (int k = -1; k <= 1; ++k)
    for (int j = -1; j <= 1; ++j)
      for (int i = -1; i <= 1; ++i) box27.push_back({i, j, k});
  auto wide = std::make_shared<StructMatrix<double>>(e, grid, Stencil(3, box27));
  for (int s = 0; s < 27; ++s) wide->fill_entry(s, s == wide->center_entry() ? 26.0 : -1.0);
  EXPECT_EQ(structured::Pfmg<double>(wide).coarse_operator(), PfmgCoarseOperator::galerkin);
  PfmgParams params;
  params.coarse_operator = PfmgCoarseOperator::non_galerkin;
  try {
    const structured::Pfmg<double> bad(wide, params);
    ADD_FAILURE() << "a 27-point stencil was taken for non-Galerkin coarse operators";
  } catch (const invalid_argument& ex) {
    EXPECT_NE(std::string(ex.what()).find("star stencil"), std::string::npos) << ex.what();
  }
}

TEST_P(StructuredPfmg, NonGalerkinPcgIterationsMatchGalerkin) {
  const auto e = exec();
  PfmgParams galerkin, non_galerkin;
  galerkin.coarse_operator = PfmgCoarseOperator::galerkin;
  non_galerkin.coarse_operator = PfmgCoarseOperator::non_galerkin;
  for (const auto& c : {std::array<double, 3>{1.0, 1.0, 1.0}, std::array<double, 3>{1.0, 1.0, 1e-3},
                        std::array<double, 3>{1.0, 1e-3, 1e-3}}) {
    auto A = std::make_shared<StructMatrix<double>>(gallery::anisotropic3d(e, 32, 32, 32, c));
    double residual = 1;
    const int g = pcg_iterations(A, galerkin);
    const int ng = pcg_iterations(A, non_galerkin, &residual);
    std::printf("PFMG-PCG (%g, %g, %g) 32^3: Galerkin %d, non-Galerkin %d iterations\n", c[0], c[1],
                c[2], g, ng);
    EXPECT_LE(residual, 1e-8);
    EXPECT_LE(ng, g + 1) << c[0] << ", " << c[1] << ", " << c[2];
    EXPECT_LE(ng, 15);
  }
  // 2D (5-point) grids, isotropic and anisotropic.
  for (const auto& c : {std::array<double, 2>{1.0, 1.0}, std::array<double, 2>{1.0, 1e-3}}) {
    auto A = std::make_shared<StructMatrix<double>>(gallery::anisotropic2d(e, 128, 128, c));
    const int g = pcg_iterations(A, galerkin);
    const int ng = pcg_iterations(A, non_galerkin);
    EXPECT_LE(ng, g + 1) << "2D (" << c[0] << ", " << c[1] << "): Galerkin " << g;
  }
  // Periodic in every direction (singular; the constants stay in every
  // coarse operator's null space through the preserved row sums).
  auto P = std::make_shared<StructMatrix<double>>(
      gallery::anisotropic3d(e, 32, 32, 32, {1.0, 1.0, 1.0}, {true, true, true}));
  const structured::Pfmg<double> M(P, non_galerkin);
  const StructOperator<double> op(P);
  const auto b = zero_mean(e, op.rows(), 5);
  Vector<double> x(e, op.rows(), 0.0);
  Cg cg;
  cg.params.relative_tolerance = 1e-8;
  const auto info = solve(KrylovMethod{cg}, op, b, x, &M);
  EXPECT_TRUE(info.converged()) << info.message;
  EXPECT_LE(info.iterations, 14);
}

TEST_P(StructuredPfmg, ApplyFromZeroEqualsTheCycleFromStoredZeros) {
  const auto e = exec();
  // apply() never stores the zero x it starts from (and skips zeroing the
  // coarse x's it writes before reading); cycle() from an x of stored zeros
  // computes the same numbers the long way. Every sweep count, both
  // smoothers, skipped levels, and a periodic grid whose singular one-cell
  // coarsest level is not relaxed.
  struct Case {
    const char* name;
    std::shared_ptr<const StructMatrix<double>> A;
  };
  const std::vector<Case> cases = {
      {"poisson 12x10x9",
       std::make_shared<const StructMatrix<double>>(gallery::poisson3d(e, 12, 10, 9))},
      {"periodic 8x8x8", std::make_shared<const StructMatrix<double>>(gallery::anisotropic3d(
                             e, 8, 8, 8, {1.0, 1.0, 1.0}, {true, true, true}))},
  };
  for (const auto& c : cases) {
    for (auto relaxation :
         {PfmgRelaxation::weighted_jacobi, PfmgRelaxation::red_black_gauss_seidel}) {
      for (const auto& [pre, post] :
           {std::pair{1, 1}, std::pair{0, 1}, std::pair{1, 0}, std::pair{2, 2}, std::pair{0, 2}}) {
        PfmgParams params;
        params.relaxation = relaxation;
        params.pre_sweeps = pre;
        params.post_sweeps = post;
        const structured::Pfmg<double> M(c.A, params);
        const size_type n = M.rows();
        const auto values = test::random_values(n, 9);
        const Vector<double> b(Array<double>(e, values));
        Vector<double> x(e, n, 7.0);  // apply() must not read it
        M.apply(b, x);
        const Box& box = c.A->grid().box();
        StructVector<double> bs(e, c.A->grid()), xs(e, c.A->grid());
        bs.set_box_values(box, Array<double>(e, values));
        M.cycle(bs, xs);
        Array<double> cycled(e, n);
        xs.get_box_values(box, cycled);
        EXPECT_EQ(x.to_vector(), cycled.to_vector())
            << c.name << ", " << to_string(relaxation) << ", V(" << pre << "," << post << ")";
      }
    }
  }
}

TEST_P(StructuredPfmg, ApplyOfAnUnrelaxedOneLevelHierarchyIsZero) {
  const auto e = exec();
  // One periodic cell: every entry folds into a zero diagonal, the only
  // level is not relaxed, and a V-cycle from zero gives zero, whatever an
  // earlier cycle() left in the hierarchy's vectors.
  auto A = std::make_shared<const StructMatrix<double>>(
      gallery::anisotropic3d(e, 1, 1, 1, {1.0, 1.0, 1.0}, {true, true, true}));
  const structured::Pfmg<double> M(A);
  ASSERT_EQ(M.num_levels(), 1);
  ASSERT_FALSE(M.level(0).relaxed);
  StructVector<double> bs(e, A->grid()), xs(e, A->grid());
  xs.fill(5.0);
  M.cycle(bs, xs);
  Vector<double> b(e, 1, 1.0), x(e, 1, 3.0);
  M.apply(b, x);
  EXPECT_EQ(x.to_vector(), std::vector<double>{0.0});
}

TEST_P(StructuredPfmg, SinglePrecisionCycleSolvesInTheSameIterations) {
  const auto e = exec();
  PfmgParams full, single;
  full.cycle_precision = amg::CyclePrecision::full;
  single.cycle_precision = amg::CyclePrecision::single;
  // automatic keeps double below 2^20 cells, and on the host always.
  auto small = std::make_shared<StructMatrix<double>>(gallery::poisson3d(e, 8, 8, 8));
  EXPECT_EQ(structured::Pfmg<double>(small).cycle_precision(), amg::CyclePrecision::full);
  for (const auto& c : {std::array<double, 3>{1.0, 1.0, 1.0}, std::array<double, 3>{1.0, 1.0, 1e-3},
                        std::array<double, 3>{1.0, 1e-3, 1e-3}}) {
    auto A = std::make_shared<StructMatrix<double>>(gallery::anisotropic3d(e, 32, 32, 32, c));
    const structured::Pfmg<double> M(A, single);
    ASSERT_EQ(M.cycle_precision(), amg::CyclePrecision::single);
    EXPECT_NE(M.describe().find("single-precision cycle"), std::string::npos) << M.describe();
    double residual = 1;
    const int d = pcg_iterations(A, full);
    const int f = pcg_iterations(A, single, &residual);
    std::printf("PFMG-PCG (%g, %g, %g) 32^3: double cycle %d, float cycle %d iterations\n", c[0],
                c[1], c[2], d, f);
    EXPECT_LE(residual, 1e-8);  // the true residual, in double
    EXPECT_LE(std::abs(f - d), 1) << c[0] << ", " << c[1] << ", " << c[2];
    // apply_dot: the cycle's result and r^T z from the pass that brings it
    // back to double, against apply() and dot().
    const Vector<double> r(Array<double>(e, test::random_values(A->grid().points(), 5)));
    Vector<double> z(e, r.size()), w(e, r.size());
    const double fused = M.apply_dot(r, z);
    M.apply(r, w);
    EXPECT_EQ(z.to_vector(), w.to_vector());
    EXPECT_NEAR(fused, dot(r, w), 1e-12 * std::abs(fused));
  }
  // The other paths through the float cycle: red-black Gauss-Seidel, a 2D
  // grid, and a singular grid periodic in every direction (zero-mean b).
  struct Case {
    const char* name;
    std::shared_ptr<const StructMatrix<double>> A;
    PfmgRelaxation relaxation;
    bool singular;
  };
  const std::vector<Case> cases = {
      {"rbgs 24^3", std::make_shared<const StructMatrix<double>>(gallery::poisson3d(e, 24, 24, 24)),
       PfmgRelaxation::red_black_gauss_seidel, false},
      {"2D 64^2",
       std::make_shared<const StructMatrix<double>>(gallery::anisotropic2d(e, 64, 64, {1.0, 1e-3})),
       PfmgRelaxation::weighted_jacobi, false},
      {"periodic 16^3",
       std::make_shared<const StructMatrix<double>>(
           gallery::anisotropic3d(e, 16, 16, 16, {1.0, 1.0, 1.0}, {true, true, true})),
       PfmgRelaxation::weighted_jacobi, true},
  };
  for (const auto& c : cases) {
    const StructOperator<double> op(c.A);
    int iterations[2] = {0, 0};
    for (int k = 0; k < 2; ++k) {
      PfmgParams params = k == 0 ? full : single;
      params.relaxation = c.relaxation;
      const structured::Pfmg<double> M(c.A, params);
      const auto b = c.singular ? zero_mean(e, op.rows(), 4) : Vector<double>(e, op.rows(), 1.0);
      Vector<double> x(e, op.rows(), 0.0);
      Cg cg;
      cg.params.relative_tolerance = 1e-8;
      const auto info = solve(KrylovMethod{cg}, op, b, x, &M);
      EXPECT_TRUE(info.converged()) << c.name << ": " << info.message;
      iterations[k] = info.iterations;
    }
    EXPECT_LE(std::abs(iterations[1] - iterations[0]), 1)
        << c.name << ": double " << iterations[0] << ", float " << iterations[1];
  }
  // b scaled far beyond float's range, either way: the cycle scales it by
  // a power of two, so x scales with it and PCG takes the same path.
  auto A = std::make_shared<const StructMatrix<double>>(gallery::poisson3d(e, 16, 16, 16));
  const structured::Pfmg<double> M(A, single);
  const StructOperator<double> op(A);
  const auto values = test::random_values(op.rows(), 3);
  Vector<double> x1(e, op.rows());
  M.apply(Vector<double>(Array<double>(e, values)), x1);
  const auto reference = x1.to_vector();
  for (const double scale : {1e-300, 1e300}) {
    std::vector<double> scaled = values;
    for (double& v : scaled) v *= scale;
    Vector<double> x(e, op.rows());
    M.apply(Vector<double>(Array<double>(e, scaled)), x);
    const auto got = x.to_vector();
    double err = 0, ref = 0;
    for (std::size_t p = 0; p < got.size(); ++p) {
      err = std::max(err, std::abs(got[p] / scale - reference[p]));
      ref = std::max(ref, std::abs(reference[p]));
    }
    EXPECT_LE(err, 1e-6 * ref) << "b scaled by " << scale;
  }
  // A coefficient beyond float's range: single precision is refused by name.
  auto huge = std::make_shared<StructMatrix<double>>(gallery::poisson3d(e, 8, 8, 8));
  huge->fill_entry(huge->center_entry(), 1e39);
  try {
    const structured::Pfmg<double> bad(huge, single);
    ADD_FAILURE() << "a coefficient of 1e39 was rounded to float";
  } catch (const invalid_argument& ex) {
    EXPECT_NE(std::string(ex.what()).find("beyond float's range"), std::string::npos) << ex.what();
  }
  EXPECT_EQ(structured::Pfmg<double>(huge, full).cycle_precision(), amg::CyclePrecision::full);
  // A matrix scaled by 1e-40: fine in double, but its diagonal would be a
  // float subnormal whose reciprocal overflows; and a diagonal subnormal
  // in double is refused in any precision.
  for (const double scale : {1e-40, 1e-310}) {
    auto tiny = std::make_shared<StructMatrix<double>>(gallery::poisson3d(e, 8, 8, 8));
    auto c = tiny->coefficients().to(Executor::host()).to_vector();
    for (double& v : c) v *= scale;
    tiny->coefficients() = Array<double>(e, c);
    const bool in_double = scale < 1e-300;
    try {
      const structured::Pfmg<double> bad(tiny, in_double ? full : single);
      ADD_FAILURE() << "a diagonal of " << 6 * scale << " was taken";
    } catch (const invalid_argument& ex) {
      const std::string what = ex.what();
      EXPECT_NE(what.find(in_double ? "subnormal" : "smallest normal"), std::string::npos) << what;
    }
    if (!in_double) {
      EXPECT_EQ(structured::Pfmg<double>(tiny, full).cycle_precision(), amg::CyclePrecision::full);
    }
  }
}

TEST_P(StructuredPfmg, SkipRelaxesWhereTheCoarsenedDirectionWasNeverSmoothed) {
  const auto e = exec();
  // (1, 0.001, 0.001): x alone is strong (dxyz 1 against 31.6) until it has
  // been coarsened five times; relaxations of those levels do not smooth y
  // or z. The first y-coarsening (dxyz now 32, 31.6, 31.6) must relax,
  // the z-coarsening right after it need not (z was strong there too).
  auto A = std::make_shared<StructMatrix<double>>(
      gallery::anisotropic3d(e, 64, 64, 64, {1.0, 1e-3, 1e-3}));
  const structured::Pfmg<double> pfmg(A);
  for (int l = 0; l < 5; ++l) EXPECT_TRUE(pfmg.level(l).relaxed) << "level " << l;
  ASSERT_EQ(pfmg.level(5).coarsening_direction, 1);
  EXPECT_TRUE(pfmg.level(5).relaxed);
  ASSERT_EQ(pfmg.level(6).coarsening_direction, 2);
  EXPECT_FALSE(pfmg.level(6).relaxed);
  // Iterations independent of the grid (hypre's skip rule: 10 at 64^3,
  // 14 at 128^3, 16 at 256^3; this rule, Galerkin: 9, 10, 11). The
  // non-Galerkin operators (what automatic takes here) need one more at
  // 64^3 and above: 8, 10, 11 at 32^3, 64^3, 128^3.
  auto small_A = std::make_shared<StructMatrix<double>>(
      gallery::anisotropic3d(e, 32, 32, 32, {1.0, 1e-3, 1e-3}));
  for (const auto op : {PfmgCoarseOperator::galerkin, PfmgCoarseOperator::non_galerkin}) {
    PfmgParams params;
    params.coarse_operator = op;
    const int small = pcg_iterations(small_A, params);
    const int large = pcg_iterations(A, params);
    std::printf("PFMG-PCG anisotropic (1, 0.001, 0.001), %s: 32^3 %d, 64^3 %d iterations\n",
                to_string(op), small, large);
    const bool galerkin = op == PfmgCoarseOperator::galerkin;
    EXPECT_LE(large, galerkin ? 9 : 10) << to_string(op);  // measured 9 and 10
    EXPECT_LE(std::abs(large - small), galerkin ? 1 : 2) << to_string(op);
  }
}

TEST_P(StructuredPfmg, RedBlackAndNoSkipVariantsConverge) {
  const auto e = exec();
  auto A = std::make_shared<StructMatrix<double>>(gallery::poisson3d(e, 24, 24, 24));
  PfmgParams rb;
  rb.relaxation = PfmgRelaxation::red_black_gauss_seidel;
  PfmgParams no_skip;
  no_skip.skip_relax = false;
  const int jacobi = pcg_iterations(A, {});
  const int gs = pcg_iterations(A, rb);
  const int all = pcg_iterations(A, no_skip);
  std::printf("PFMG-PCG poisson3d 24^3: Jacobi+skip %d, red-black %d, Jacobi no skip %d\n", jacobi,
              gs, all);
  EXPECT_LE(gs, 12);  // measured 11
  EXPECT_LE(all, jacobi);
  EXPECT_LE(jacobi, 14);
}

TEST_P(StructuredPfmg, StandAloneSolverAndJumps) {
  const auto e = exec();
  auto A = std::make_shared<StructMatrix<double>>(gallery::poisson3d(e, 16, 16, 16));
  const structured::Pfmg<double> pfmg(A);
  Vector<double> b(e, pfmg.rows(), 1.0), x(e, pfmg.rows(), 0.0);
  KrylovParams params;
  params.relative_tolerance = 1e-8;
  params.max_iterations = 100;
  const auto info = pfmg.solve(b, x, params);
  std::printf("PFMG solver poisson3d 16^3: %d iterations\n", info.iterations);
  EXPECT_TRUE(info.converged()) << info.message;
  EXPECT_LE(info.iterations, 33);  // measured 29
  // Independent check of the answer: the CSR residual.
  const auto csr = A->to_csr();
  Vector<double> r(e, pfmg.rows());
  residual(csr, b, x, r);
  EXPECT_LE(norm2(r), 1e-8 * norm2(b));

  const int jumps = pcg_iterations(
      std::make_shared<StructMatrix<double>>(gallery::jumps3d(e, 24, 24, 24, 1e6, 2)), {});
  std::printf("PFMG-PCG jumps3d 24^3: %d iterations\n", jumps);
  EXPECT_LE(jumps, 21);  // measured 18

  // As a right preconditioner of GMRES (any LinearOperator is one).
  auto J = std::make_shared<const StructMatrix<double>>(gallery::jumps3d(e, 20, 20, 20, 1e3, 1));
  const StructOperator<double> op(J);
  const structured::Pfmg<double> M(J);
  Vector<double> bj(e, op.rows(), 1.0), xj(e, op.rows(), 0.0);
  Gmres gmres;
  gmres.params.relative_tolerance = 1e-8;
  const auto gi = solve(KrylovMethod{gmres}, op, bj, xj, &M);
  std::printf("PFMG-GMRES jumps3d 20^3 (contrast 1e3): %d iterations\n", gi.iterations);
  EXPECT_TRUE(gi.converged()) << gi.message;
  EXPECT_LE(gi.iterations, 18);  // measured 15
  EXPECT_LE(gi.true_relative_residual, 1e-8);
}

TEST_P(StructuredPfmg, TwoDimensionsOneCellAndFewLevels) {
  const auto e = exec();
  const int p2 = pcg_iterations(
      std::make_shared<StructMatrix<double>>(gallery::anisotropic2d(e, 64, 64)), {});
  const int a2 = pcg_iterations(
      std::make_shared<StructMatrix<double>>(gallery::anisotropic2d(e, 64, 64, {1.0, 1e-3})), {});
  std::printf("PFMG-PCG 2D 64^2: poisson %d, anisotropic (1, 0.001) %d iterations\n", p2, a2);
  EXPECT_LE(p2, 13);  // measured 11
  EXPECT_LE(a2, 12);  // measured 10
  // One cell: the hierarchy is one level and the cycle solves exactly.
  const int one = pcg_iterations(
      std::make_shared<StructMatrix<double>>(gallery::poisson3d(e, 1, 1, 1)), {});
  EXPECT_EQ(one, 1);
  {
    // Applied twice: the second application must not start from the first's x.
    // Weight 1/2: two sweeps from 0 give 0.25, then 0.375 (b / 6 = 0.5).
    auto A1 = std::make_shared<StructMatrix<double>>(gallery::poisson3d(e, 1, 1, 1));
    PfmgParams half;
    half.jacobi_weight = 0.5;
    const structured::Pfmg<double> M1(A1, half);
    Vector<double> b1(e, 1, 3.0), x1(e, 1);
    M1.apply(b1, x1);
    EXPECT_DOUBLE_EQ(x1.to_vector()[0], 0.375);
    M1.apply(b1, x1);
    EXPECT_DOUBLE_EQ(x1.to_vector()[0], 0.375);
  }
  // A hierarchy cut at three levels: the coarsest is relaxed only, so more
  // iterations, but the red-black cycle must stay symmetric for CG.
  auto A = std::make_shared<StructMatrix<double>>(gallery::poisson3d(e, 12, 12, 12));
  PfmgParams cut;
  cut.max_levels = 3;
  cut.relaxation = PfmgRelaxation::red_black_gauss_seidel;
  cut.pre_sweeps = 2;
  cut.post_sweeps = 2;
  const structured::Pfmg<double> M(A, cut);
  EXPECT_EQ(M.num_levels(), 3);
  const size_type n = M.rows();
  Vector<double> u(Array<double>(e, test::random_values(n, 5))),
      v(Array<double>(e, test::random_values(n, 6))), Mu(e, n), Mv(e, n);
  M.apply(u, Mu);
  M.apply(v, Mv);
  EXPECT_NEAR(dot(v, Mu), dot(u, Mv), 1e-12 * std::abs(dot(v, Mu)));
  double residual = 1;
  pcg_iterations(A, cut, &residual);
  EXPECT_LE(residual, 1e-8);
}

TEST_P(StructuredPfmg, ClassicalAmgSolvesStructuredInputThroughCsr) {
  const auto e = exec();
  // The bridge: structured input, any AMG of the library (here classical).
  const auto S = std::make_shared<const StructMatrix<double>>(gallery::jumps3d(e, 16, 16, 16, 1e3, 1));
  auto A = std::make_shared<const CsrMatrix<double>>(S->to_csr());
  amg::Hierarchy<double> H(A, amg::make_classical_coarsening<double>(amg::ClassicalParams{}));
  const CsrOperator<double> op(A);
  Vector<double> b(e, A->rows(), 1.0), x(e, A->rows(), 0.0);
  Cg cg;
  cg.params.relative_tolerance = 1e-8;
  const auto info = solve(KrylovMethod{cg}, op, b, x, &H);
  std::printf("classical AMG-PCG on structured jumps3d 16^3 via CSR: %d iterations\n",
              info.iterations);
  EXPECT_TRUE(info.converged()) << info.message;
  EXPECT_LE(info.iterations, 15);  // measured 13
  // The answer solves the structured system too: ||b - S x|| through the
  // stencil product.
  const StructOperator<double> sop(S);
  Vector<double> Sx(e, A->rows());
  sop.apply(x, Sx);
  axpy(-1.0, b, Sx);
  EXPECT_LE(norm2(Sx), 1.01e-8 * norm2(b));
}

TEST_P(StructuredPfmg, SymmetricStorageSolvesLikeFull) {
  const auto e = exec();
  // Poisson 20^3 stored as centre, +x, +y, +z.
  const auto full = gallery::poisson3d(e, 20, 20, 20);
  auto S = std::make_shared<StructMatrix<double>>(
      e, full.grid(), Stencil(3, {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}), Storage::symmetric);
  S->fill_entry(0, 6.0);
  for (int s = 1; s < 4; ++s) S->fill_entry(s, -1.0);
  // The bridge drops what reaches outside: the same CSR as the gallery's.
  EXPECT_EQ(S->to_csr().values().to_vector(), full.to_csr().values().to_vector());
  EXPECT_EQ(S->to_csr().col_idx().to_vector(), full.to_csr().col_idx().to_vector());
  const int sym = pcg_iterations(S, {});
  const int ref = pcg_iterations(std::make_shared<StructMatrix<double>>(full.to_full()), {});
  EXPECT_EQ(sym, ref);
}

TEST_P(StructuredPfmg, SymmetricCycleEqualsTheFullCycle) {
  const auto e = exec();
  // A symmetrically stored A keeps every level in symmetric storage; the
  // cycle must be the one on the full levels, up to rounding (the coarse
  // operators are symmetric only to rounding, and one entry of each pair
  // is kept): every smoother, both coarse operators, periodic directions
  // (the mirrored coefficient wraps), 2D, a 27-point stencil and a
  // one-cell periodic direction (merged entries).
  std::vector<Index> lower27{{0, 0, 0}};
  for (int k = -1; k <= 1; ++k)
    for (int j = -1; j <= 1; ++j)
      for (int i = -1; i <= 1; ++i) {
        const Index o{i, j, k};
        if (k < 0 || (k == 0 && (j < 0 || (j == 0 && i < 0)))) lower27.push_back(o);
      }
  struct Case {
    const char* name;
    std::shared_ptr<const StructMatrix<double>> S;
  };
  auto random27 = [&](StructGrid grid, unsigned seed) {
    // Negative couplings, a dominant diagonal: symmetric positive definite.
    StructMatrix<double> S(e, std::move(grid), Stencil(3, lower27), Storage::symmetric);
    const size_type n = S.grid().points();
    auto values = test::random_values(n * 14, seed, -1.0, -0.1);
    for (size_type p = 0; p < n; ++p) values[p] = 28.0;
    S.coefficients() = Array<double>(e, values);
    return std::make_shared<const StructMatrix<double>>(std::move(S));
  };
  auto sym = [](StructMatrix<double> A) {
    return std::make_shared<const StructMatrix<double>>(A.to_symmetric());
  };
  const std::vector<Case> cases = {
      {"poisson 12x10x9", sym(gallery::poisson3d(e, 12, 10, 9))},
      {"aniso periodic x,z",
       sym(gallery::anisotropic3d(e, 16, 10, 8, {1.0, 0.01, 1.0}, {true, false, true}))},
      {"2D periodic y", sym(gallery::anisotropic2d(e, 20, 16, {1.0, 1.0}, {false, true}))},
      {"jumps", sym(gallery::jumps3d(e, 12, 12, 12, 1e3, 1))},
      {"27-point", random27(StructGrid::from_extents(3, {11, 9, 8}), 5)},
      {"27-point periodic y",
       random27(StructGrid::from_extents(3, {9, 8, 7}, {false, true, false}), 6)},
      {"one-cell period",
       sym(gallery::anisotropic3d(e, 10, 8, 1, {1.0, 1.0, 1.0}, {false, false, true}))},
  };
  for (const auto& c : cases) {
    const auto F = std::make_shared<const StructMatrix<double>>(c.S->to_full());
    bool star = true;
    for (const Index& o : F->stencil().offsets())
      star = star && (o[0] != 0) + (o[1] != 0) + (o[2] != 0) <= 1;
    for (auto relaxation :
         {PfmgRelaxation::weighted_jacobi, PfmgRelaxation::red_black_gauss_seidel})
      for (auto op : {PfmgCoarseOperator::galerkin, PfmgCoarseOperator::non_galerkin}) {
        if (op == PfmgCoarseOperator::non_galerkin && !star) continue;
        PfmgParams params;
        params.relaxation = relaxation;
        params.coarse_operator = op;
        params.cycle_precision = amg::CyclePrecision::full;
        const Pfmg<double> MS(c.S, params), MF(F, params);
        const std::string what =
            std::string(c.name) + " " + to_string(relaxation) + " " + to_string(op);
        ASSERT_EQ(MS.num_levels(), MF.num_levels()) << what;
        for (int l = 0; l < MS.num_levels(); ++l) {
          EXPECT_EQ(MS.level_matrix(l).storage(), Storage::symmetric) << what << " level " << l;
          EXPECT_EQ(MS.level(l).stencil_size, MF.level(l).stencil_size) << what << " level " << l;
        }
        EXPECT_DOUBLE_EQ(MS.operator_complexity(), MF.operator_complexity()) << what;
        const size_type n = MS.rows();
        const Vector<double> b(Array<double>(e, test::random_values(n, 17)));
        Vector<double> xs(e, n), xf(e, n);
        MS.apply(b, xs);
        MF.apply(b, xf);
        const auto u = xs.to_vector(), v = xf.to_vector();
        double diff = 0, scale = 0;
        for (size_type p = 0; p < n; ++p) {
          diff = std::max(diff, std::abs(u[p] - v[p]));
          scale = std::max(scale, std::abs(v[p]));
        }
        EXPECT_LE(diff, 1e-11 * scale) << what;
        EXPECT_GT(scale, 0.0) << what;
      }
  }
  // The single-precision cycle on symmetric levels: the same to float's
  // rounding.
  const auto S = sym(gallery::poisson3d(e, 16, 16, 16));
  const auto F = std::make_shared<const StructMatrix<double>>(S->to_full());
  PfmgParams single;
  single.cycle_precision = amg::CyclePrecision::single;
  const Pfmg<double> MS(S, single), MF(F, single);
  EXPECT_EQ(MS.level_matrix(0).storage(), Storage::symmetric);
  const Vector<double> b(Array<double>(e, test::random_values(MS.rows(), 18)));
  Vector<double> xs(e, MS.rows()), xf(e, MS.rows());
  const double ds = MS.apply_dot(b, xs), df = MF.apply_dot(b, xf);
  EXPECT_NEAR(ds, df, 1e-5 * std::abs(df));
  axpy(-1.0, xf, xs);
  EXPECT_LE(norm2(xs), 1e-5 * norm2(xf));
}

TEST_P(StructuredPfmg, RejectsWhatItCannotSolve) {
  const auto e = exec();
  auto zero = std::make_shared<StructMatrix<double>>(gallery::poisson3d(e, 4, 4, 4));
  Array<double> one(e, {0.0});
  const int centre[] = {0};
  std::const_pointer_cast<StructMatrix<double>>(zero)->set_box_values(Box{{1, 2, 3}, {1, 2, 3}},
                                                                      centre, one);
  try {
    structured::Pfmg<double> p(zero);
    FAIL() << "no exception";
  } catch (const invalid_argument& ex) {
    EXPECT_NE(std::string(ex.what()).find("at cell 57"), std::string::npos) << ex.what();
  }
  auto wide = std::make_shared<StructMatrix<double>>(
      e, StructGrid::from_extents(3, {4, 4, 4}), Stencil(3, {{0, 0, 0}, {2, 0, 0}}));
  EXPECT_THROW(structured::Pfmg<double>{wide}, invalid_argument);
  PfmgParams bad;
  bad.pre_sweeps = 0;
  bad.post_sweeps = 0;
  EXPECT_THROW((structured::Pfmg<double>{zero, bad}), invalid_argument);
}

/// PCG with PFMG on `op` (the structured operator or its CSR bridge) from
/// x = 0 to a relative 1e-8.
SolveInfo pfmg_pcg(const LinearOperator<double>& op, const structured::Pfmg<double>& M,
                   const Vector<double>& b, Vector<double>& x) {
  Cg cg;
  cg.params.relative_tolerance = 1e-8;
  cg.params.max_iterations = 200;
  return solve(KrylovMethod{cg}, op, b, x, &M);
}

TEST_P(StructuredPfmg, PeriodicCoarseOperatorsEqualDenseGalerkinProducts) {
  const auto e = exec();
  // Random (nonsymmetric) 7-point coefficients, periodic in x (8 cells:
  // halved down to periods of 2 and 1, where stencil entries fold onto one
  // cell) and y (6 cells: halved once, then 3 is odd and stays), Dirichlet
  // in z (5 cells).
  const StructGrid grid = StructGrid::from_extents(3, {8, 6, 5}, {true, true, false});
  auto A = std::make_shared<StructMatrix<double>>(e, grid, Stencil::seven_point());
  {
    auto c = test::random_values(7 * grid.points(), 11, 0.5, 1.5);
    for (size_type p = 0; p < grid.points(); ++p) {
      c[p] += 6.0;
      for (int s = 1; s < 7; ++s) c[s * grid.points() + p] = -c[s * grid.points() + p];
    }
    A->coefficients() = Array<double>(e, c);
  }
  PfmgParams params;  // these coefficients vary little: automatic would not take Galerkin
  params.coarse_operator = PfmgCoarseOperator::galerkin;
  const structured::Pfmg<double> pfmg(A, params);
  ASSERT_EQ(pfmg.coarse_operator(), PfmgCoarseOperator::galerkin);
  const int L = pfmg.num_levels();
  const auto& last = pfmg.level(L - 1);
  EXPECT_EQ(last.extent, (std::array<std::int64_t, 3>{1, 3, 1}));
  for (int l = 0; l + 1 < L; ++l) {
    const auto& info = pfmg.level(l);
    const int d = info.coarsening_direction;
    EXPECT_FALSE(d == 1 && info.extent[1] % 2 == 1) << "level " << l << " halves an odd period";
    const auto& fine = pfmg.level_matrix(l);
    const auto& coarse = pfmg.level_matrix(l + 1);
    EXPECT_EQ(coarse.grid().periodic(), grid.periodic()) << "level " << l + 1;
    const auto [wl, wr] = pfmg.interpolation(l);
    const auto P = dense_interpolation(info.extent, pfmg.level(l + 1).extent, d, wl->to_vector(),
                                       wr->to_vector(), grid.periodic(d));
    EXPECT_LE(galerkin_error(dense_of_stencil(fine), dense_of_stencil(coarse), P,
                             fine.grid().points(), coarse.grid().points()),
              1e-13)
        << "level " << l + 1 << " (coarsened in " << d << ")";
  }
}

TEST_P(StructuredPfmg, PeriodicPcgSolvesSingularAndPartlyPeriodicProblems) {
  const auto e = exec();
  struct Case {
    const char* name;
    StructMatrix<double> A;
    bool singular;
    int max_iterations;
  };
  const std::array<bool, 3> all{true, true, true}, x_only{true, false, false};
  std::vector<Case> cases;
  // Bounds: the Jacobi counts measured on the host (red-black takes 1 or 2
  // fewer), plus one.
  cases.push_back({"3D periodic 32^3", gallery::anisotropic3d(e, 32, 32, 32, {1, 1, 1}, all), true, 12});
  cases.push_back({"3D periodic in x 32^3", gallery::anisotropic3d(e, 32, 32, 32, {1, 1, 1}, x_only),
                   false, 14});
  cases.push_back({"3D periodic (1, 1, 0.001) 32^3",
                   gallery::anisotropic3d(e, 32, 32, 32, {1, 1, 1e-3}, all), true, 10});
  cases.push_back({"2D periodic 64^2", gallery::anisotropic2d(e, 64, 64, {1, 1}, {true, true}), true, 10});
  // A one-cell periodic z from the start: merged on the finest level.
  cases.push_back({"3D periodic 32x32x1", gallery::anisotropic3d(e, 32, 32, 1, {1, 1, 1}, all), true, 10});
  cases.push_back({"2D periodic in y 64^2", gallery::anisotropic2d(e, 64, 64, {1, 1}, {false, true}),
                   false, 12});
  for (auto& c : cases) {
    auto A = std::make_shared<const StructMatrix<double>>(std::move(c.A));
    const StructOperator<double> op(A);
    const size_type n = op.rows();
    // A singular A (periodic everywhere): b of zero mean, so that A x = b
    // has solutions; otherwise b = 1.
    const Vector<double> b = c.singular ? zero_mean(e, n, 21) : Vector<double>(e, n, 1.0);
    for (auto relaxation : {PfmgRelaxation::weighted_jacobi, PfmgRelaxation::red_black_gauss_seidel}) {
      PfmgParams params;
      params.relaxation = relaxation;
      const structured::Pfmg<double> M(A, params);
      const auto& last = M.level(M.num_levels() - 1);
      if (A->grid().box().extent(2) == 1 && A->grid().ndim() == 3) {
        EXPECT_EQ(M.level(0).stencil_size, 5) << c.name << ": z entries merged";
      }
      if (c.singular) {
        // Down to one cell whose wrapped entries all merged into the centre
        // (zero up to rounding): the singular coarsest level is not relaxed.
        EXPECT_EQ(last.extent, (std::array<std::int64_t, 3>{1, 1, 1})) << c.name;
        EXPECT_EQ(last.stencil_size, 1) << c.name;
        EXPECT_FALSE(last.relaxed) << c.name;
      } else {
        EXPECT_TRUE(last.relaxed) << c.name;
      }
      Vector<double> x(e, n, 0.0);
      const auto info = pfmg_pcg(op, M, b, x);
      std::printf("PFMG-PCG %s, %s: %d iterations\n", c.name, to_string(relaxation), info.iterations);
      EXPECT_TRUE(info.converged()) << c.name << ": " << info.message;
      EXPECT_LE(info.iterations, c.max_iterations) << c.name << " " << to_string(relaxation);
      // The true residual through the CSR bridge (independent of the
      // stencil kernels; it wraps the periodic directions too), or, where
      // a one-cell period folds entries onto one column, which the bridge
      // refuses, through the compact stencil product of A as given.
      if (A->grid().box().extent(2) > 2 || A->grid().ndim() == 2) {
        EXPECT_LE(test::relative_residual(A->to_csr(), b, x), 1e-8) << c.name;
      } else {
        Vector<double> r(e, n);
        op.apply(x, r);
        axpby(1.0, b, -1.0, r);
        EXPECT_LE(norm2(r), 1e-8 * norm2(b)) << c.name;
      }
    }
  }
}

TEST_P(StructuredPfmg, PeriodicStructuredAndCsrProductsAndSolvesAgree) {
  const auto e = exec();
  auto A = std::make_shared<const StructMatrix<double>>(
      gallery::anisotropic3d(e, 16, 12, 10, {1.0, 0.5, 2.0}, {true, true, true}));
  auto csr = std::make_shared<const CsrMatrix<double>>(A->to_csr());
  const StructOperator<double> sop(A);
  const CsrOperator<double> cop(csr);
  const size_type n = sop.rows();
  // Rows sum to zero: the constants are in the null space, wrap included.
  Vector<double> ones(e, n, 1.0), y(e, n);
  sop.apply(ones, y);
  EXPECT_LE(norm2(y), 1e-13);
  // The stencil product (compact and ghosted) against the CSR one.
  const Vector<double> x(Array<double>(e, test::random_values(n, 31)));
  Vector<double> ys(e, n), yc(e, n), yg(e, n);
  sop.apply(x, ys);
  spmv(*csr, x, yc);
  StructVector<double> xv(e, A->grid()), yv(e, A->grid());
  xv.copy_from(x);
  matvec(1.0, *A, xv, 0.0, yv);
  yv.copy_to(yg);
  const auto a = ys.to_vector(), b = yc.to_vector(), g = yg.to_vector();
  for (size_type p = 0; p < n; ++p) {
    ASSERT_NEAR(a[p], b[p], 1e-13) << "cell " << p;
    ASSERT_NEAR(g[p], b[p], 1e-13) << "cell " << p;
  }
  // PCG with one PFMG on either operator: the same iterations, the same x.
  const structured::Pfmg<double> M(A);
  const Vector<double> rhs = zero_mean(e, n, 32);
  Vector<double> xs(e, n, 0.0), xc(e, n, 0.0);
  const auto is = pfmg_pcg(sop, M, rhs, xs);
  const auto ic = pfmg_pcg(cop, M, rhs, xc);
  EXPECT_TRUE(is.converged() && ic.converged());
  EXPECT_EQ(is.iterations, ic.iterations);
  const auto u = xs.to_vector(), v = xc.to_vector();
  double diff = 0, scale = 0;
  for (size_type p = 0; p < n; ++p) {
    diff = std::max(diff, std::abs(u[p] - v[p]));
    scale = std::max(scale, std::abs(u[p]));
  }
  EXPECT_LE(diff, 1e-10 * scale);
  // Symmetric storage (centre, +x, +y, +z) of the same matrix: expanded at
  // setup with the wrap, so PFMG-PCG takes the same iterations.
  auto S = std::make_shared<StructMatrix<double>>(
      e, A->grid(), Stencil(3, {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}), Storage::symmetric);
  S->fill_entry(0, 7.0);
  S->fill_entry(1, -1.0);
  S->fill_entry(2, -0.5);
  S->fill_entry(3, -2.0);
  EXPECT_EQ(S->to_csr().values().to_vector(), csr->values().to_vector());
  const structured::Pfmg<double> MS(S);
  const StructOperator<double> oS(S);
  Vector<double> xS(e, n, 0.0);
  EXPECT_EQ(pfmg_pcg(oS, MS, rhs, xS).iterations, is.iterations);
}

TEST_P(StructuredPfmg, PeriodicVCycleIsSymmetricWithOddPeriods) {
  const auto e = exec();
  // 12 -> 6 -> 3 and 10 -> 5 stop at odd periods, 9 is odd from the start:
  // a coarsest level of several cells, red-black colours that meet across
  // the odd periods.
  auto A = std::make_shared<const StructMatrix<double>>(
      gallery::anisotropic3d(e, 12, 10, 9, {1.0, 1.0, 1.0}, {true, true, true}));
  for (auto relaxation : {PfmgRelaxation::weighted_jacobi, PfmgRelaxation::red_black_gauss_seidel}) {
    PfmgParams params;
    params.relaxation = relaxation;
    const structured::Pfmg<double> M(A, params);
    const auto& last = M.level(M.num_levels() - 1);
    EXPECT_EQ(last.extent, (std::array<std::int64_t, 3>{3, 5, 9}));
    const size_type n = M.rows();
    const Vector<double> u = zero_mean(e, n, 41), v = zero_mean(e, n, 42);
    Vector<double> Mu(e, n), Mv(e, n);
    M.apply(u, Mu);
    M.apply(v, Mv);
    const double a = dot(v, Mu), b = dot(u, Mv);
    EXPECT_NEAR(a, b, 1e-12 * std::abs(a)) << to_string(relaxation);
    EXPECT_GT(dot(u, Mu), 0.0) << to_string(relaxation);
    // PCG still converges, more slowly: the coarsest level is relaxed only.
    const StructOperator<double> op(A);
    Vector<double> x(e, n, 0.0);
    const auto info = pfmg_pcg(op, M, u, x);
    std::printf("PFMG-PCG periodic 12x10x9 (odd periods), %s: %d iterations\n",
                to_string(relaxation), info.iterations);
    EXPECT_TRUE(info.converged()) << info.message;
    EXPECT_LE(test::relative_residual(A->to_csr(), u, x), 1e-8);
  }
}

STRATA_INSTANTIATE_ON_EXECUTORS(StructuredPfmg);

}  // namespace
}  // namespace strata::structured

namespace strata::structured {
namespace {

// Host against device on awkward shapes (one-cell directions, rows longer
// than a thread block, more cells than a warp): the same products, the same
// hierarchy, the same iteration counts. Bits may differ where nvcc fuses a
// multiply and an add, so values are compared to rounding.
TEST(StructuredPfmgDevice, ProductsMatchTheHost) {
  STRATA_REQUIRE_DEVICE();
  const auto h = Executor::host();
  const auto d = Executor::cuda();
  std::vector<Index> box27;
  for (int k = -1; k <= 1; ++k)
    for (int j = -1; j <= 1; ++j)
      for (int i = -1; i <= 1; ++i) box27.push_back({i, j, k});
  struct Case {
    StructGrid grid;
    Stencil stencil;
  };
  const std::vector<Case> cases = {
      {StructGrid::from_extents(3, {1, 1, 300}), Stencil::seven_point()},
      {StructGrid::from_extents(3, {600, 1, 3}, {true, false, false}), Stencil(3, box27)},
      {StructGrid::from_extents(2, {1000, 3, 1}), Stencil::five_point()},
      {StructGrid::from_extents(3, {33, 17, 9}, {false, true, true}), Stencil(3, box27)},
  };
  unsigned seed = 40;
  for (const auto& c : cases) {
    const size_type n = c.grid.points();
    StructMatrix<double> Ah(h, c.grid, c.stencil);
    Ah.coefficients() = Array<double>(h, test::random_values(n * c.stencil.size(), seed++));
    StructMatrix<double> Ad(d, c.grid, c.stencil);
    copy(Ah.coefficients(), Ad.coefficients());
    const auto xv = test::random_values(n, seed++);
    StructVector<double> xh(h, c.grid), yh(h, c.grid), xd(d, c.grid), yd(d, c.grid);
    xh.set_box_values(c.grid.box(), Array<double>(h, xv));
    xd.set_box_values(c.grid.box(), Array<double>(d, xv));
    matvec(1.0, Ah, xh, 0.0, yh);
    matvec(1.0, Ad, xd, 0.0, yd);
    Array<double> a(h, n), b(d, n);
    yh.get_box_values(c.grid.box(), a);
    yd.get_box_values(c.grid.box(), b);
    const auto av = a.to_vector(), bv = b.to_vector();
    for (size_type p = 0; p < n; ++p) ASSERT_NEAR(av[p], bv[p], 1e-13) << "cell " << p;
    const auto ch = Ah.to_csr(), cd = Ad.to_csr();
    EXPECT_EQ(ch.row_ptr().to_vector(), cd.row_ptr().to_vector());
    EXPECT_EQ(ch.col_idx().to_vector(), cd.col_idx().to_vector());
    EXPECT_EQ(ch.values().to_vector(), cd.values().to_vector());
    // The lower half of the same coefficients as a symmetric matrix: the
    // product with ghosts, and on plain vectors with its dot.
    const double unchecked = std::numeric_limits<double>::infinity();
    const auto Sh = std::make_shared<const StructMatrix<double>>(Ah.to_symmetric(unchecked));
    const auto Sd = std::make_shared<const StructMatrix<double>>(Ad.to_symmetric(unchecked));
    matvec(1.0, *Sh, xh, 0.0, yh);
    matvec(1.0, *Sd, xd, 0.0, yd);
    yh.get_box_values(c.grid.box(), a);
    yd.get_box_values(c.grid.box(), b);
    const auto sa = a.to_vector(), sb = b.to_vector();
    for (size_type p = 0; p < n; ++p) ASSERT_NEAR(sa[p], sb[p], 1e-13) << "symmetric, cell " << p;
    const Vector<double> ph(Array<double>(h, xv)), pd(Array<double>(d, xv));
    Vector<double> qh(h, n), qd(d, n);
    const double dh = StructOperator<double>(Sh).apply_dot(ph, qh);
    const double dd = StructOperator<double>(Sd).apply_dot(pd, qd);
    EXPECT_NEAR(dh, dd, 1e-12 * std::abs(dh));
    const auto qa = qh.to_vector(), qb = qd.to_vector();
    for (size_type p = 0; p < n; ++p) ASSERT_NEAR(qa[p], qb[p], 1e-13) << "operator, cell " << p;
  }
}

TEST(StructuredPfmgDevice, RecordedCycleEqualsTheLaunchedOne) {
  STRATA_REQUIRE_DEVICE();
  // The single-precision cycle is recorded at its second apply and then
  // replayed as a CUDA graph: every apply must give what launching the
  // kernels gives (the same kernels in the same order: the same bits), for
  // new right-hand sides, with periodic ghosts refreshed inside the cycle,
  // and with red-black Gauss-Seidel (zeroed vectors, more kernels).
  const auto d = Executor::cuda();
  for (const bool periodic : {false, true})
    for (auto relaxation :
         {PfmgRelaxation::weighted_jacobi, PfmgRelaxation::red_black_gauss_seidel}) {
      auto A = std::make_shared<const StructMatrix<double>>(
          gallery::anisotropic3d(d, 40, 33, 18, {1.0, 1.0, 1.0}, {periodic, false, periodic}));
      PfmgParams params;
      params.relaxation = relaxation;
      params.cycle_precision = amg::CyclePrecision::single;
      const Pfmg<double> recorded(A, params);
      params.record_cycle = false;
      const Pfmg<double> launched(A, params);
      const size_type n = A->grid().points();
      for (unsigned k = 0; k < 4; ++k) {
        const Vector<double> b(Array<double>(d, test::random_values(n, 60 + k)));
        Vector<double> xr(d, n), xl(d, n);
        const double dr = recorded.apply_dot(b, xr), dl = launched.apply_dot(b, xl);
        EXPECT_EQ(xr.to_vector(), xl.to_vector()) << "apply " << k << (periodic ? " periodic" : "");
        EXPECT_EQ(dr, dl) << "apply " << k;
      }
    }
}

TEST(StructuredPfmgDevice, HierarchyAndIterationsMatchTheHost) {
  STRATA_REQUIRE_DEVICE();
  const auto h = Executor::host();
  const auto d = Executor::cuda();
  for (const std::string name : {"poisson", "aniso", "jumps", "periodic"}) {
    auto make = [&](const Executor& e) {
      if (name == "poisson") return gallery::poisson3d(e, 40, 33, 17);
      // Periodic in x and y (Dirichlet in z, so b = 1 is consistent).
      if (name == "periodic") {
        return gallery::anisotropic3d(e, 32, 24, 17, {1.0, 1.0, 1.0}, {true, true, false});
      }
      if (name == "aniso") return gallery::anisotropic3d(e, 32, 32, 32, {1.0, 1e-3, 1e-3});
      return gallery::jumps3d(e, 32, 32, 32, 1e6, 2);
    };
    for (const bool symmetric : {false, true})
      for (auto relaxation :
           {PfmgRelaxation::weighted_jacobi, PfmgRelaxation::red_black_gauss_seidel}) {
        auto Ah = std::make_shared<const StructMatrix<double>>(symmetric ? make(h).to_symmetric()
                                                                         : make(h));
        auto Ad = std::make_shared<const StructMatrix<double>>(symmetric ? make(d).to_symmetric()
                                                                         : make(d));
        PfmgParams params;
        params.relaxation = relaxation;
        const structured::Pfmg<double> Mh(Ah, params), Md(Ad, params);
        ASSERT_EQ(Mh.num_levels(), Md.num_levels()) << name;
        for (int l = 0; l < Mh.num_levels(); ++l) {
          EXPECT_EQ(Mh.level(l).coarsening_direction, Md.level(l).coarsening_direction)
              << name << l;
          EXPECT_EQ(Mh.level(l).relaxed, Md.level(l).relaxed) << name << l;
          EXPECT_NEAR(Mh.level(l).weight, Md.level(l).weight, 1e-12) << name << l;
        }
        const StructOperator<double> oh(Ah), od(Ad);
        Vector<double> bh(h, oh.rows(), 1.0), xh(h, oh.rows(), 0.0);
        Vector<double> bd(d, od.rows(), 1.0), xd(d, od.rows(), 0.0);
        Cg cg;
        // A contrast of 1e6 puts the attainable ||b - A x|| / ||b|| near 1e-8
        // (measured: 1.02e-8 on the host with Jacobi), so that case asks for
        // 1e-7 and the comparison is about host against device.
        cg.params.relative_tolerance = name == "jumps" ? 1e-7 : 1e-8;
        const auto ih = solve(KrylovMethod{cg}, oh, bh, xh, &Mh);
        const auto id = solve(KrylovMethod{cg}, od, bd, xd, &Md);
        EXPECT_TRUE(ih.converged() && id.converged())
            << name << ": host " << to_string(ih.status) << ", device " << to_string(id.status);
        EXPECT_EQ(ih.iterations, id.iterations)
            << name << " " << to_string(relaxation) << (symmetric ? " symmetric" : "");
        const auto a = xh.to_vector(), b = xd.to_vector();
        double diff = 0, scale = 0;
        for (std::size_t p = 0; p < a.size(); ++p) {
          diff = std::max(diff, std::abs(a[p] - b[p]));
          scale = std::max(scale, std::abs(a[p]));
        }
        EXPECT_LE(diff, 1e-9 * scale)
            << name << " " << to_string(relaxation) << (symmetric ? " symmetric" : "");
      }
  }
}

}  // namespace
}  // namespace strata::structured
