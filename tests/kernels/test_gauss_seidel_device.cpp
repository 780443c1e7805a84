// The Gauss-Seidel kernels on the device against the host: the same
// coloring, the same sweeps (to rounding) and the same iteration counts,
// since each kernel is one deterministic algorithm written once.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <variant>
#include <vector>

#include "core/smoother/gauss_seidel.hpp"
#include "strata/strata.hpp"
#include "test_util.hpp"

namespace strata {
namespace {

/// Matrices larger than a warp and a thread block, with a nonsymmetric
/// pattern among them.
std::vector<CsrMatrix<double>> matrices() {
  const auto h = Executor::host();
  std::vector<CsrMatrix<double>> out;
  out.push_back(gallery::poisson3d(h, 33, 17, 9));
  out.push_back(gallery::diffusion3d_27pt(h, 20, 20, 20));
  out.push_back(gallery::convdiff3d(h, 16, 16, 16));
  return out;
}

TEST(GaussSeidelDevice, ColoringIsTheSameAsOnTheHost) {
  STRATA_REQUIRE_DEVICE();
  for (const auto& A : matrices()) {
    int host_colors = 0, device_colors = 0;
    const auto on_host = detail::multicolor_coloring(A, 11, host_colors);
    const auto on_device = detail::multicolor_coloring(A.to(Executor::cuda()), 11, device_colors);
    EXPECT_EQ(host_colors, device_colors);
    EXPECT_EQ(on_host, on_device);
  }
}

TEST(GaussSeidelDevice, SweepsMatchTheHost) {
  STRATA_REQUIRE_DEVICE();
  const auto d = Executor::cuda();
  for (const auto& A : matrices()) {
    const auto bv = test::random_values(A.rows(), 1), xv = test::random_values(A.rows(), 2);
    for (const SmootherParams& p :
         {SmootherParams(GaussSeidelParams{.sweep = GaussSeidelSweep::symmetric, .block_rows = 700}),
          SmootherParams(MulticolorGaussSeidelParams{.sweep = GaussSeidelSweep::symmetric}),
          SmootherParams(TwoStageGaussSeidelParams{.sweep = GaussSeidelSweep::symmetric,
                                                   .inner_sweeps = 2})}) {
      auto Sh = make_smoother(test::shared(A), p);
      auto Sd = make_smoother(test::shared(A.to(d)), p);
      Vector<double> bh(Array<double>(Executor::host(), bv)), xh(Array<double>(Executor::host(), xv));
      Vector<double> bd = bh.to(d), xd = xh.to(d);
      Sh->smooth(bh, xh, 2);
      Sd->smooth(bd, xd, 2);
      const auto a = xh.to_vector(), b = xd.to_vector();
      double scale = 0, diff = 0;
      for (std::size_t i = 0; i < a.size(); ++i) {
        scale = std::max(scale, std::abs(a[i]));
        diff = std::max(diff, std::abs(a[i] - b[i]));
      }
      EXPECT_LE(diff, 1e-12 * (1 + scale)) << smoother_name(p);
    }
  }
}

int amg_iterations(const CsrMatrix<double>& A, const SmootherParams& smoother, bool symmetric) {
  amg::Hierarchy<double> H(test::shared(A), amg::make_classical_coarsening<double>({}),
                           amg::HierarchyParams{.smoother = smoother});
  Vector<double> b(A.executor(), A.rows(), 1.0), x(A.executor(), A.rows(), 0.0);
  const KrylovMethod method = symmetric ? KrylovMethod{Cg{}} : KrylovMethod{Gmres{}};
  const auto info = solve(method, CsrOperator<double>(test::shared(A)), b, x, &H);
  EXPECT_TRUE(info.converged()) << smoother_name(smoother) << ": " << info.message;
  return info.iterations;
}

TEST(GaussSeidelDevice, AmgIterationsAreTheSameAsOnTheHost) {
  STRATA_REQUIRE_DEVICE();
  const auto d = Executor::cuda();
  const auto h = Executor::host();
  const std::vector<std::pair<CsrMatrix<double>, bool>> problems = [&] {
    std::vector<std::pair<CsrMatrix<double>, bool>> v;
    v.emplace_back(gallery::poisson3d(h, 48, 48, 48), true);
    v.emplace_back(gallery::jumps3d(h, 32, 32, 32), true);
    v.emplace_back(gallery::convdiff3d(h, 32, 32, 32), false);
    return v;
  }();
  for (const auto& [A, symmetric] : problems) {
    for (const SmootherParams& p :
         {SmootherParams(MulticolorGaussSeidelParams{}),
          SmootherParams(MulticolorGaussSeidelParams{.sweep = GaussSeidelSweep::symmetric}),
          SmootherParams(TwoStageGaussSeidelParams{}),
          SmootherParams(TwoStageGaussSeidelParams{.inner_sweeps = 2}),
          SmootherParams(TwoStageGaussSeidelParams{.l1 = true}),
          // Hybrid Gauss-Seidel runs one device thread per block: small
          // blocks keep that quick.
          SmootherParams(GaussSeidelParams{.block_rows = 256})}) {
      const int on_host = amg_iterations(A, p, symmetric);
      const int on_device = amg_iterations(A.to(d), p, symmetric);
      std::printf("[ amg      ] %zd rows, %s: host %d, device %d iterations\n",
                  static_cast<std::ptrdiff_t>(A.rows()), smoother_name(p).c_str(), on_host,
                  on_device);
      // Two-stage with two inner sweeps or the l1 diagonal, on jumps3d and
      // convdiff3d, is where the device's fused multiply-adds change the
      // count (measured on an H100: 18 against 16 with l1 on jumps3d, 10
      // against 9 with two sweeps on convdiff3d); the algorithm is the
      // same, so two-stage may differ by two. Multicolor and hybrid must
      // match exactly.
      const int slack = std::holds_alternative<TwoStageGaussSeidelParams>(p) ? 2 : 0;
      EXPECT_LE(std::abs(on_host - on_device), slack) << smoother_name(p);
    }
  }
}

}  // namespace
}  // namespace strata
