// The block diagonal and the block smoothers on the device against the host:
// the same inverted blocks and the same applications (to rounding: each
// kernel is one algorithm written once, summing in the same order), on
// matrices larger than a warp and a thread block, for compiled block sizes
// and a run-time one.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "strata/strata.hpp"
#include "test_util.hpp"

namespace strata {
namespace {

double max_difference(const std::vector<double>& a, const std::vector<double>& b) {
  EXPECT_EQ(a.size(), b.size());
  double scale = 0, diff = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    scale = std::max(scale, std::abs(a[i]));
    diff = std::max(diff, std::abs(a[i] - b[i]));
  }
  return diff / (1 + scale);
}

/// A nonsymmetric block-banded matrix of b x b blocks, `half` block columns
/// each side of the diagonal, whose diagonal blocks need pivoting (their
/// anti-diagonals dominate).
BsrMatrix<double> banded(size_type block_rows, int b, size_type half, unsigned seed) {
  const auto h = Executor::host();
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> value(-1, 1);
  std::vector<offset_type> rp{0};
  std::vector<index_type> ci;
  std::vector<double> va;
  for (size_type I = 0; I < block_rows; ++I) {
    for (size_type J = I < half ? 0 : I - half; J <= I + half && J < block_rows; ++J) {
      ci.push_back(static_cast<index_type>(J));
      for (int e = 0; e < b * b; ++e) {
        va.push_back(value(gen) + (I == J && e / b + e % b == b - 1 ? 2.0 * b : 0.0));
      }
    }
    rp.push_back(static_cast<offset_type>(ci.size()));
  }
  return BsrMatrix<double>(block_rows, block_rows, b, b, Array<offset_type>(h, rp),
                           Array<index_type>(h, ci), Array<double>(h, va));
}

/// Block matrices larger than a thread block: elasticity (3x3), the same in
/// 1x1 blocks, a block-pentadiagonal nonsymmetric matrix of 5x5 blocks (no
/// fast path) whose diagonal blocks need pivoting, and one of 6x6 blocks
/// (a fast path, pivoting in registers) with 300 block rows of about a
/// hundred blocks: few, long block rows, which the device's products and
/// sweeps split over several warps.
std::vector<BsrMatrix<double>> matrices() {
  const auto h = Executor::host();
  std::vector<BsrMatrix<double>> out;
  const auto E = gallery::elasticity3d(h, 7).A;
  out.push_back(to_bsr(E, 3));
  out.push_back(to_bsr(E, 1));
  out.push_back(banded(300, 5, 2, 17));
  out.push_back(banded(300, 6, 50, 19));
  return out;
}

TEST(BlockDiagonalDevice, InverseAndApplyMatchTheHost) {
  STRATA_REQUIRE_DEVICE();
  const auto d = Executor::cuda();
  for (const auto& A : matrices()) {
    const auto Ad = A.to(d);
    for (auto kind : {BlockDiagonalKind::plain, BlockDiagonalKind::l1}) {
      const auto Dh = BlockDiagonal<double>::inverse(A, kind);
      auto Dd = BlockDiagonal<double>::inverse(Ad, kind);
      EXPECT_EQ(Dd.executor().location(), Location::cuda);
      EXPECT_LE(max_difference(Dh.values().to_vector(), Dd.values().to_vector()), 1e-13)
          << A.row_block_size();
      Dd.recompute(Ad);
      EXPECT_LE(max_difference(Dh.values().to_vector(), Dd.values().to_vector()), 1e-13);
      const auto xv = test::random_values(A.rows(), 5), yv = test::random_values(A.rows(), 6);
      Vector<double> xh(Array<double>(Executor::host(), xv)),
          yh(Array<double>(Executor::host(), yv));
      Vector<double> xd = xh.to(d), yd = yh.to(d);
      Dh.apply(0.7, xh, -1.5, yh);
      Dd.apply(0.7, xd, -1.5, yd);
      EXPECT_LE(max_difference(yh.to_vector(), yd.to_vector()), 1e-13);
    }
  }
}

TEST(BlockDiagonalDevice, ErrorsNameTheSameBlockRowAsOnTheHost) {
  STRATA_REQUIRE_DEVICE();
  auto A = to_bsr(gallery::elasticity3d(Executor::host(), 6).A, 3);
  // Block rows 200 and 283 (of 294) get a zero diagonal block; the first is
  // named.
  ASSERT_EQ(A.block_rows(), 294);
  auto va = A.values().to_vector();
  const auto rp = A.row_ptr().to_vector();
  const auto ci = A.col_idx().to_vector();
  for (size_type I : {size_type(283), size_type(200)}) {
    for (offset_type k = rp[I]; k < rp[I + 1]; ++k) {
      if (ci[k] == index_type(I)) std::fill(va.begin() + k * 9, va.begin() + k * 9 + 9, 0.0);
    }
  }
  A.values() = Array<double>(Executor::host(), va);
  const auto on_host = test::message_of([&] { BlockDiagonal<double>::inverse(A); });
  const auto on_device =
      test::message_of([&] { BlockDiagonal<double>::inverse(A.to(Executor::cuda())); });
  EXPECT_NE(on_host.find("block row 200 "), std::string::npos) << on_host;
  EXPECT_EQ(on_host, on_device);
}

/// Whether a smoother's weight comes from an Arnoldi estimate of rho.
bool estimates_by_arnoldi(const JacobiParams& p) { return p.estimate_omega; }
bool estimates_by_arnoldi(const ChebyshevParams& p) { return !p.symmetric; }
template <class P>
bool estimates_by_arnoldi(const P&) {
  return false;
}

/// The smoothers each matrix of matrices() can take: the nonsymmetric 5x5
/// one gets no Lanczos estimate; the wide 6x6 one, far from diagonally
/// dominant (its estimates would compare eigenvalues that nearly meet), the
/// fixed-weight sweeps only.
std::vector<SmootherParams> smoothers_for(const BsrMatrix<double>& A) {
  if (A.row_block_size() == 6) return {JacobiParams{.omega = 0.7}, L1JacobiParams{}};
  std::vector<SmootherParams> out = {JacobiParams{.omega = 0.7},
                                     JacobiParams{.estimate_omega = true}, L1JacobiParams{},
                                     ChebyshevParams{.degree = 3, .symmetric = false}};
  if (A.row_block_size() != 5) out.push_back(ChebyshevParams{.degree = 2});
  return out;
}

TEST(BlockSmoothersDevice, SweepsMatchTheHost) {
  STRATA_REQUIRE_DEVICE();
  const auto d = Executor::cuda();
  for (const auto& A : matrices()) {
    const std::shared_ptr<const LevelOperator<double>> host =
        std::make_shared<const BsrOperator<double>>(A.clone());
    const std::shared_ptr<const LevelOperator<double>> device =
        std::make_shared<const BsrOperator<double>>(A.to(d));
    const auto bv = test::random_values(A.rows(), 1), xv = test::random_values(A.rows(), 2);
    for (const auto& p : smoothers_for(A)) {
      const auto Sh = make_smoother(host, p), Sd = make_smoother(device, p);
      EXPECT_NE(Sd->describe().find("block"), std::string::npos) << Sd->describe();
      Vector<double> bh(Array<double>(Executor::host(), bv)),
          xh(Array<double>(Executor::host(), xv));
      Vector<double> bd = bh.to(d), xd = xh.to(d);
      Sh->smooth(bh, xh, 2);
      Sd->smooth(bd, xd, 2);
      // An estimated rho comes from sums reduced in another order on the
      // device: a relative difference near 1e-14 in Lanczos's estimate. The
      // Arnoldi estimate (nonsymmetric) is the largest eigenvalue of a small
      // Hessenberg matrix, which can move by the square root of such a
      // perturbation where two eigenvalues nearly meet: measured 3e-10 on
      // the 5x5-block matrix on an H200.
      const bool arnoldi = std::visit([](const auto& q) { return estimates_by_arnoldi(q); }, p);
      const double tol = arnoldi ? 1e-8 : 1e-11;
      EXPECT_LE(max_difference(xh.to_vector(), xd.to_vector()), tol)
          << A.row_block_size() << " " << Sh->describe();
      Vector<double> x0h(Array<double>(Executor::host(), xv)), yh(Executor::host(), A.rows());
      Vector<double> x0d = x0h.to(d), yd(d, A.rows());
      Sh->post_smooth(bh, x0h, yh, 2);
      Sd->post_smooth(bd, x0d, yd, 2);
      EXPECT_LE(max_difference(yh.to_vector(), yd.to_vector()), tol)
          << A.row_block_size() << " " << Sh->describe();
      Sh->apply(bh, yh);
      Sd->apply(bd, yd);
      EXPECT_LE(max_difference(yh.to_vector(), yd.to_vector()), tol)
          << A.row_block_size() << " " << Sh->describe();
    }
  }
}

TEST(BlockSmoothersDevice, FusedSweepMatchesTheHost) {
  STRATA_REQUIRE_DEVICE();
  const auto d = Executor::cuda();
  for (const auto& A : matrices()) {
    const BsrOperator<double> host(A.clone()), device(A.to(d));
    for (auto kind : {BlockDiagonalKind::plain, BlockDiagonalKind::l1}) {
      const auto Dh = host.block_diagonal(kind), Dd = device.block_diagonal(kind);
      const auto bv = test::random_values(A.rows(), 3), xv = test::random_values(A.rows(), 4);
      Vector<double> bh(Array<double>(Executor::host(), bv)),
          x0h(Array<double>(Executor::host(), xv));
      Vector<double> bd = bh.to(d), x0d = x0h.to(d);
      Vector<double> xh(Executor::host(), A.rows()), xd(d, A.rows());
      host.block_jacobi_sweep(Dh, 0.8, bh, x0h, xh);
      device.block_jacobi_sweep(Dd, 0.8, bd, x0d, xd);
      EXPECT_LE(max_difference(xh.to_vector(), xd.to_vector()), 1e-12) << A.row_block_size();
    }
  }
}

/// The scalar Jacobi sweep (Jacobi, l1-Jacobi) on a block matrix, one pass
/// over A for the compiled block sizes and three for the others, equals the
/// CSR sweep of the same matrix; on the device it equals the host's.
TEST(BlockSmoothers, ScalarSweepOnBlocksEqualsTheCsrSweep) {
  const auto h = Executor::host();
  for (const auto& A : matrices()) {
    const BsrOperator<double> blocked(A.clone());
    const CsrOperator<double> scalar(to_csr(A));
    const auto dv = test::random_values(A.rows(), 7), bv = test::random_values(A.rows(), 8),
               xv = test::random_values(A.rows(), 9);
    const Vector<double> d(Array<double>(h, dv)), b(Array<double>(h, bv));
    Vector<double> x0(Array<double>(h, xv));
    Vector<double> xb(h, A.rows()), xs(h, A.rows());
    blocked.jacobi_sweep(d, b, x0, xb);
    scalar.jacobi_sweep(d, b, x0, xs);
    EXPECT_LE(max_difference(xb.to_vector(), xs.to_vector()), 1e-12) << A.row_block_size();
    EXPECT_THROW(blocked.jacobi_sweep(d, b, x0, x0), invalid_argument);
    if (!cuda_available()) continue;
    const auto dev = Executor::cuda();
    const BsrOperator<double> device(A.to(dev));
    Vector<double> xd(dev, A.rows());
    device.jacobi_sweep(d.to(dev), b.to(dev), x0.to(dev), xd);
    EXPECT_LE(max_difference(xb.to_vector(), xd.to_vector()), 1e-12) << A.row_block_size();
  }
}

TEST(BlockSmoothersDevice, SpectralEstimatesMatchTheHost) {
  STRATA_REQUIRE_DEVICE();
  const auto A = to_bsr(gallery::elasticity3d(Executor::host(), 7).A, 3);
  const BsrOperator<double> host(A.clone()), device(A.to(Executor::cuda()));
  const auto Dh = host.block_diagonal(BlockDiagonalKind::plain);
  const auto Dd = device.block_diagonal(BlockDiagonalKind::plain);
  EXPECT_NEAR(lanczos_max_eigenvalue(host, Dh, 10), lanczos_max_eigenvalue(device, Dd, 10), 1e-10);
  EXPECT_NEAR(arnoldi_spectral_radius(host, Dh, 10), arnoldi_spectral_radius(device, Dd, 10), 1e-8);
}

int pcg_iterations(const std::shared_ptr<const LevelOperator<double>>& A, const SmootherParams& p) {
  const auto M = make_smoother(A, p);
  Vector<double> b(A->executor(), A->rows(), 1.0), x(A->executor(), A->rows(), 0.0);
  const auto info = solve(KrylovMethod{Cg{}}, *A, b, x, M.get());
  EXPECT_TRUE(info.converged()) << M->describe() << ": " << info.message;
  return info.iterations;
}

TEST(BlockSmoothersDevice, PcgIterationsAreTheSameAsOnTheHost) {
  STRATA_REQUIRE_DEVICE();
  const auto A = to_bsr(gallery::elasticity3d(Executor::host(), 8).A, 3);
  const std::shared_ptr<const LevelOperator<double>> host =
      std::make_shared<const BsrOperator<double>>(A.clone());
  const std::shared_ptr<const LevelOperator<double>> device =
      std::make_shared<const BsrOperator<double>>(A.to(Executor::cuda()));
  for (const SmootherParams& p : {SmootherParams(JacobiParams{}), SmootherParams(L1JacobiParams{}),
                                  SmootherParams(ChebyshevParams{.degree = 2})}) {
    const int on_host = pcg_iterations(host, p), on_device = pcg_iterations(device, p);
    EXPECT_LE(std::abs(on_host - on_device), 1) << smoother_name(p);
  }
}

}  // namespace
}  // namespace strata
