// PFMG: the Galerkin stencil product against a dense P^T A P, the choice of
// directions, the symmetry of the V-cycle, and iteration counts of
// PFMG-PCG and stand-alone PFMG (issue 18's targets, at host sizes).

#include <gtest/gtest.h>

#include <cmath>
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
                                        const std::vector<double>& wr) {
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
          P[f * coarse + col((t - 1) / 2)] = wl[f];
          if ((t + 1) / 2 < nc[d]) P[f * coarse + col((t + 1) / 2)] = wr[f];
        }
      }
  return P;
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
    // AP then P^T (AP).
    std::vector<double> AP(nf * nc, 0.0), PtAP(nc * nc, 0.0);
    for (std::int64_t i = 0; i < nf; ++i)
      for (std::int64_t k = 0; k < nf; ++k)
        if (Af[i * nf + k] != 0)
          for (std::int64_t j = 0; j < nc; ++j) AP[i * nc + j] += Af[i * nf + k] * P[k * nc + j];
    for (std::int64_t k = 0; k < nf; ++k)
      for (std::int64_t i = 0; i < nc; ++i)
        if (P[k * nc + i] != 0)
          for (std::int64_t j = 0; j < nc; ++j) PtAP[i * nc + j] += P[k * nc + i] * AP[k * nc + j];
    double scale = 0;
    for (double v : PtAP) scale = std::max(scale, std::abs(v));
    for (std::int64_t q = 0; q < nc * nc; ++q) {
      ASSERT_NEAR(Ac[q], PtAP[q], 1e-12 * scale)
          << "level " << l + 1 << " entry (" << q / nc << ", " << q % nc << ")";
    }
  }
}

TEST_P(StructuredPfmg, InterpolationCollapsesTheStencil) {
  const auto e = exec();
  auto A = std::make_shared<StructMatrix<double>>(gallery::poisson3d(e, 8, 8, 8));
  const structured::Pfmg<double> pfmg(A);
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
  // 14 at 128^3, 16 at 256^3; this rule 9, 10, 11).
  const int small = pcg_iterations(
      std::make_shared<StructMatrix<double>>(
          gallery::anisotropic3d(e, 32, 32, 32, {1.0, 1e-3, 1e-3})),
      {});
  const int large = pcg_iterations(A, {});
  std::printf("PFMG-PCG anisotropic (1, 0.001, 0.001): 32^3 %d, 64^3 %d iterations\n", small,
              large);
  EXPECT_LE(large, 10);  // measured 9
  EXPECT_LE(std::abs(large - small), 0.2 * small + 1e-12);
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

TEST_P(StructuredPfmg, RejectsWhatItCannotSolve) {
  const auto e = exec();
  auto periodic = std::make_shared<StructMatrix<double>>(
      e, StructGrid::from_extents(3, {4, 4, 4}, {true, false, false}), Stencil::seven_point());
  EXPECT_THROW(structured::Pfmg<double>{periodic}, not_implemented);
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
  }
}

TEST(StructuredPfmgDevice, HierarchyAndIterationsMatchTheHost) {
  STRATA_REQUIRE_DEVICE();
  const auto h = Executor::host();
  const auto d = Executor::cuda();
  for (const std::string name : {"poisson", "aniso", "jumps"}) {
    auto make = [&](const Executor& e) {
      if (name == "poisson") return gallery::poisson3d(e, 40, 33, 17);
      if (name == "aniso") return gallery::anisotropic3d(e, 32, 32, 32, {1.0, 1e-3, 1e-3});
      return gallery::jumps3d(e, 32, 32, 32, 1e6, 2);
    };
    auto Ah = std::make_shared<const StructMatrix<double>>(make(h));
    auto Ad = std::make_shared<const StructMatrix<double>>(make(d));
    for (auto relaxation : {PfmgRelaxation::weighted_jacobi, PfmgRelaxation::red_black_gauss_seidel}) {
      PfmgParams params;
      params.relaxation = relaxation;
      const structured::Pfmg<double> Mh(Ah, params), Md(Ad, params);
      ASSERT_EQ(Mh.num_levels(), Md.num_levels()) << name;
      for (int l = 0; l < Mh.num_levels(); ++l) {
        EXPECT_EQ(Mh.level(l).coarsening_direction, Md.level(l).coarsening_direction) << name << l;
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
      EXPECT_EQ(ih.iterations, id.iterations) << name << " " << to_string(relaxation);
      const auto a = xh.to_vector(), b = xd.to_vector();
      double diff = 0, scale = 0;
      for (std::size_t p = 0; p < a.size(); ++p) {
        diff = std::max(diff, std::abs(a[p] - b[p]));
        scale = std::max(scale, std::abs(a[p]));
      }
      EXPECT_LE(diff, 1e-9 * scale) << name << " " << to_string(relaxation);
    }
  }
}

}  // namespace
}  // namespace strata::structured
