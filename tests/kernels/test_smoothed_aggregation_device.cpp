// Smoothed aggregation on the device against the host: the same aggregates
// (hence identical block patterns of P and of the coarse operators), P and
// the coarse operators equal to 1e-12, the same PCG iterations, and a
// device resetup equal to a fresh device setup. Each stage is one
// deterministic algorithm written once (kernels/amg/*.ipp), so any
// difference is a bug of the device instantiation.

#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "sa_test_util.hpp"
#include "strata/strata.hpp"
#include "test_util.hpp"

namespace strata {
namespace {

using amg::Hierarchy;
using amg::SmoothedAggregationParams;

std::vector<Vector<double>> on(const std::vector<Vector<double>>& v, const Executor& exec) {
  std::vector<Vector<double>> out;
  for (const auto& x : v) out.push_back(x.to(exec));
  return out;
}

/// The device hierarchy against the host one (test::expect_same_hierarchy),
/// and its transfers on the device.
void expect_same_hierarchy(const Hierarchy<double>& host, const Hierarchy<double>& device,
                           const std::string& what) {
  for (int l = 0; l + 1 < device.num_levels(); ++l) {
    EXPECT_EQ(device.level_interpolation_operator(l).executor().location(), Location::cuda)
        << what << ", level " << l;
  }
  test::expect_same_hierarchy(device, host, what);
}

TEST(SmoothedAggregationDevice, RigidBodyModesAreTheHostOnes) {
  STRATA_REQUIRE_DEVICE();
  const auto problem = gallery::elasticity3d(Executor::host(), 5);
  for (int dim : {2, 3}) {
    // 3D: the mesh's nodes; 2D: the same numbers read as 2D points.
    const auto c = problem.coordinates.to_vector();
    const std::vector<double> points(c.begin(), c.begin() + dim * (c.size() / dim));
    const Vector<double> xy(Array<double>(Executor::host(), points));
    const auto host = amg::rigid_body_modes(xy, dim);
    const auto device = amg::rigid_body_modes(xy.to(Executor::cuda()), dim);
    ASSERT_EQ(host.size(), device.size());
    for (std::size_t m = 0; m < host.size(); ++m) {
      EXPECT_EQ(device[m].executor().location(), Location::cuda);
      EXPECT_EQ(host[m].to_vector(), device[m].to_vector()) << "dim " << dim << ", mode " << m;
    }
  }
}

TEST(SmoothedAggregationDevice, Elasticity3dHierarchyAndIterationsEqualTheHost) {
  STRATA_REQUIRE_DEVICE();
  const auto problem = gallery::elasticity3d(Executor::host(), 8);
  for (const SmoothedAggregationParams& params :
       {SmoothedAggregationParams{}, SmoothedAggregationParams{.smooth_prolongator = false},
        SmoothedAggregationParams{.strength_threshold = 0.1, .filter_weak = true}}) {
    const std::string what = "smooth " + std::to_string(params.smooth_prolongator) + ", filter " +
                             std::to_string(params.filter_weak);
    auto make = [&](const Executor& exec) {
      auto A = share(to_bsr(problem.A.to(exec), 3));
      return std::make_unique<Hierarchy<double>>(
          std::make_shared<const BsrOperator<double>>(A),
          amg::make_smoothed_aggregation_coarsening<double>(
              params, on(problem.rigid_body_modes, exec)),
          amg::HierarchyParams{.coarse_size = 40});
    };
    const auto host = make(Executor::host());
    const auto device = make(Executor::cuda());
    expect_same_hierarchy(*host, *device, what);
    int iterations[2] = {0, 0};
    for (int d = 0; d < 2; ++d) {
      const Executor exec = d ? Executor::cuda() : Executor::host();
      CsrOperator<double> op(share(problem.A.to(exec)));
      Vector<double> b(exec, problem.A.rows(), 1.0), x(exec, problem.A.rows(), 0.0);
      KrylovParams kp;
      kp.relative_tolerance = 1e-8;
      const auto info = solve(KrylovMethod{Cg{kp}}, op, b, x, d ? device.get() : host.get());
      EXPECT_TRUE(info.converged()) << what;
      iterations[d] = info.iterations;
    }
    std::printf("  %s: %d levels, PCG host %d, device %d\n", what.c_str(), host->num_levels(),
                iterations[0], iterations[1]);
    EXPECT_NEAR(iterations[0], iterations[1], 1) << what;
  }
}

TEST(SmoothedAggregationDevice, ScalarSmoothedAggregationOnCsrEqualsTheHost) {
  STRATA_REQUIRE_DEVICE();
  const auto A = gallery::poisson3d(Executor::host(), 20, 17, 9);
  auto make = [&](const Executor& exec) {
    return std::make_unique<Hierarchy<double>>(
        share(A.to(exec)), amg::make_smoothed_aggregation_coarsening<double>({}),
        amg::HierarchyParams{.coarse_size = 40});
  };
  expect_same_hierarchy(*make(Executor::host()), *make(Executor::cuda()), "poisson3d");
  // The 27-point stencil, whose couplings all lie below theta: both fall
  // back to theta 0 on the same levels and build the same hierarchy.
  const auto B = gallery::diffusion3d_27pt(Executor::host(), 14, 13, 12);
  auto make27 = [&](const Executor& exec) {
    return std::make_unique<Hierarchy<double>>(
        share(B.to(exec)), amg::make_smoothed_aggregation_coarsening<double>({}),
        amg::HierarchyParams{.coarse_size = 40});
  };
  const auto host = make27(Executor::host()), device = make27(Executor::cuda());
  EXPECT_GE(host->num_levels(), 2);  // 2184 rows to about 30: one coarsening (none before)
  EXPECT_EQ(device->summary().coarsening, host->summary().coarsening);
  expect_same_hierarchy(*host, *device, "diffusion27");
}

/// A value-only resetup on the device gives the host's resetup (the same
/// kept aggregates, P, R and coarse operators refreshed by the same
/// kernels), whether it re-smooths P (with and without filtering) or keeps
/// it (the default).
TEST(SmoothedAggregationDevice, ResetupEqualsTheHostResetup) {
  STRATA_REQUIRE_DEVICE();
  const auto problem = gallery::elasticity3d(Executor::host(), 8);
  auto changed = to_bsr(problem.A, 3);
  test::permute_and_scale_blocks(changed);
  for (int mode = 0; mode < 3; ++mode) {
    const bool filter = mode == 1, keep = mode == 2;
    const SmoothedAggregationParams params{.strength_threshold = filter ? 0.1 : 0.05,
                                           .filter_weak = filter,
                                           .resetup_keeps_prolongator = keep};
    std::vector<std::shared_ptr<BsrMatrix<double>>> A;
    std::vector<std::unique_ptr<Hierarchy<double>>> H;
    for (const Executor& exec : {Executor::host(), Executor::cuda()}) {
      A.push_back(share(to_bsr(problem.A.to(exec), 3)));
      H.push_back(std::make_unique<Hierarchy<double>>(
          std::make_shared<const BsrOperator<double>>(A.back()),
          amg::make_smoothed_aggregation_coarsening<double>(params,
                                                            on(problem.rigid_body_modes, exec)),
          amg::HierarchyParams{.coarse_size = 40}));
      copy(changed.values(), A.back()->values());
      H.back()->resetup();
    }
    expect_same_hierarchy(*H[0], *H[1],
                          keep     ? "resetup keeping P"
                          : filter ? "resetup, filtered"
                                   : "resetup");
  }
}

}  // namespace
}  // namespace strata
