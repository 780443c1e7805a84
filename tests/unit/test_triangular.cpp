// Sparse triangular solves: level-scheduled and Jacobi-sweep, lower and
// upper, unit and non-unit, against dense substitution; the device against
// the host (device variants skip without a GPU).

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/triangular_internal.hpp"
#include "ilu_test_util.hpp"
#include "strata/strata.hpp"
#include "strata/matrix/triangular.hpp"
#include "test_util.hpp"

namespace strata {
namespace {

class Triangular : public test::OnExecutor {};

using test::message_of;

/// The 4 x 4 lower triangle
///   [2 . . .; . 4 . .; 1 . 5 .; . 1 1 2]:
/// rows 0 and 1 have no dependency (level 0), row 2 needs row 0 (level 1),
/// row 3 needs rows 1 and 2 (level 2).
CsrMatrix<double> small_lower(const Executor& exec) {
  const auto host = Executor::host();
  return CsrMatrix<double>(4, 4, Array<offset_type>(host, {0, 1, 2, 4, 7}),
                           Array<index_type>(host, {0, 1, 2, 0, 3, 1, 2}),
                           Array<double>(host, {2, 4, 5, 1, 2, 1, 1}))
      .to(exec);
}

TEST_P(Triangular, HandCheckedLevelsAndSolution) {
  const auto L = small_lower(exec());
  TriangularSolver<double> solver(L, {});
  EXPECT_EQ(solver.levels(), 3);
  EXPECT_EQ(solver.level_ptr(), (std::vector<offset_type>{0, 2, 3, 4}));
  EXPECT_EQ(solver.level_order().to_vector(), (std::vector<index_type>{0, 1, 2, 3}));
  EXPECT_EQ(solver.strict_nnz(), 3);
  // b = L (1, 2, 3, 4): (2, 8, 16, 13).
  Vector<double> b(Array<double>(exec(), {2, 8, 16, 13})), x(exec(), 4, -7.0);
  solver.solve(b, x);
  EXPECT_EQ(x.to_vector(), (std::vector<double>{1, 2, 3, 4}));
  // Unit diagonal: x0 = 2, x1 = 8, x2 = 16 - 2 = 14, x3 = 13 - 8 - 14 = -9.
  TriangularSolver<double> unit(L, {.unit_diagonal = true});
  unit.solve(b, x);
  EXPECT_EQ(x.to_vector(), (std::vector<double>{2, 8, 14, -9}));
  // One Jacobi sweep is D^-1 b; three (the number of levels) are exact.
  TriangularSolver<double> one(L, {.algorithm = TriangularAlgorithm::jacobi, .sweeps = 1});
  one.solve(b, x);
  EXPECT_EQ(x.to_vector(), (std::vector<double>{1, 2, 3.2, 6.5}));
  TriangularSolver<double> three(L, {.algorithm = TriangularAlgorithm::jacobi, .sweeps = 3});
  three.solve(b, x);
  EXPECT_EQ(x.to_vector(), (std::vector<double>{1, 2, 3, 4}));
  EXPECT_EQ(three.levels(), 0);
}

TEST_P(Triangular, EveryKindMatchesDenseSubstitution) {
  const size_type n = 300;  // many warps, rows with no dependency, unsorted rows
  const auto A = test::random_matrix(n, 5, 11);
  const auto D = test::dense(A);
  const auto b_host = test::random_values(n, 3);
  const auto Ad = A.to(exec());
  const Vector<double> b(Array<double>(exec(), b_host));
  for (const bool lower : {true, false}) {
    for (const bool unit : {false, true}) {
      SCOPED_TRACE(std::string(lower ? "lower" : "upper") + (unit ? " unit" : " non-unit"));
      const auto expected = test::dense_triangular_solve(D, n, lower, unit, b_host);
      const double size = test::max_abs(expected);
      const TriangularSolveParams base{.triangle = lower ? Triangle::lower : Triangle::upper,
                                       .unit_diagonal = unit};
      TriangularSolver<double> exact(Ad, base);
      Vector<double> x(exec(), n, 0.0);
      exact.solve(b, x);
      const auto got = x.to_vector();
      for (size_type i = 0; i < n; ++i) EXPECT_NEAR(got[i], expected[i], 1e-12 * size) << i;
      // As many Jacobi sweeps as levels: exact up to rounding.
      auto params = base;
      params.algorithm = TriangularAlgorithm::jacobi;
      params.sweeps = static_cast<int>(exact.levels());
      TriangularSolver<double> jacobi(Ad, params);
      jacobi.solve(b, x);
      const auto swept = x.to_vector();
      for (size_type i = 0; i < n; ++i) EXPECT_NEAR(swept[i], expected[i], 1e-12 * size) << i;
    }
  }
}

TEST_P(Triangular, LevelsOfThe7PointLaplacianAreDiagonals) {
  // Row (i, j, k) of the lower triangle depends on (i-1, j, k), (i, j-1, k)
  // and (i, j, k-1): its level is i + j + k, so 3 n - 2 levels, the same for
  // the upper triangle; level l holds the points with i + j + k = l.
  const int n = 12;
  const auto A = gallery::poisson3d(exec(), n, n, n);
  for (const auto t : {Triangle::lower, Triangle::upper}) {
    TriangularSolver<double> s(A, {.triangle = t});
    EXPECT_EQ(s.levels(), 3 * n - 2);
    const auto& lp = s.level_ptr();
    EXPECT_EQ(lp[1] - lp[0], 1);
    EXPECT_EQ(lp[2] - lp[1], 3);
    EXPECT_EQ(lp[3] - lp[2], 6);
    EXPECT_EQ(lp.back(), n * n * n);
  }
}

TEST_P(Triangular, TheOtherTriangleIsIgnored) {
  const auto A = test::random_matrix(120, 4, 5).to(exec());
  const auto b = Vector<double>(Array<double>(exec(), test::random_values(120, 9)));
  // The lower triangle alone, built on the host.
  const auto H = A.to(Executor::host());
  std::vector<offset_type> rp{0};
  std::vector<index_type> ci;
  std::vector<double> va;
  const auto hrp = H.row_ptr().host_view();
  for (size_type i = 0; i < H.rows(); ++i) {
    for (offset_type e = hrp[i]; e < hrp[i + 1]; ++e) {
      if (H.col_idx().host_view()[e] <= i) {
        ci.push_back(H.col_idx().host_view()[e]);
        va.push_back(H.values().host_view()[e]);
      }
    }
    rp.push_back(static_cast<offset_type>(ci.size()));
  }
  const auto host = Executor::host();
  const auto Lonly = CsrMatrix<double>(120, 120, Array<offset_type>(host, rp),
                                       Array<index_type>(host, ci), Array<double>(host, va))
                         .to(exec());
  Vector<double> x1(exec(), 120), x2(exec(), 120);
  TriangularSolver<double>(A, {}).solve(b, x1);
  TriangularSolver<double>(Lonly, {}).solve(b, x2);
  EXPECT_EQ(x1.to_vector(), x2.to_vector());
}

TEST_P(Triangular, BadInputIsNamed) {
  const auto host = Executor::host();
  // Row 2 (1-based) has a zero diagonal entry; row 3 none at all.
  const auto A = CsrMatrix<double>(3, 3, Array<offset_type>(host, {0, 1, 3, 4}),
                                   Array<index_type>(host, {0, 0, 1, 0}),
                                   Array<double>(host, {1, 1, 0, 1}))
                     .to(exec());
  EXPECT_EQ(message_of([&] { TriangularSolver<double>(A, {}); }),
            "TriangularSolver: row 2 (1-based) of 3 has a zero, missing or non-finite diagonal "
            "entry; the lower triangular solve divides by it (unit_diagonal takes it as 1)");
  EXPECT_NO_THROW(TriangularSolver<double>(A, {.unit_diagonal = true}));
  const auto rectangular =
      CsrMatrix<double>(2, 3, Array<offset_type>(host, {0, 1, 2}),
                        Array<index_type>(host, {0, 1}), Array<double>(host, {1, 1}))
          .to(exec());
  EXPECT_THROW(TriangularSolver<double>(rectangular, {}), dimension_mismatch);
  const auto L = small_lower(exec());
  EXPECT_EQ(message_of([&] {
              TriangularSolver<double>(L, {.algorithm = TriangularAlgorithm::jacobi, .sweeps = 0});
            }),
            "TriangularSolver: sweeps must be >= 1 for the Jacobi solve, got 0");
  TriangularSolver<double> s(L, {});
  Vector<double> v(exec(), 4, 1.0), short_x(exec(), 3);
  EXPECT_THROW(s.solve(v, v), invalid_argument);
  EXPECT_THROW(s.solve(v, short_x), dimension_mismatch);
  if (exec().is_cuda()) {
    Vector<double> on_host(Executor::host(), 4, 1.0);
    EXPECT_THROW(s.solve(on_host, v), location_mismatch);
  }
}

STRATA_INSTANTIATE_ON_EXECUTORS(Triangular);

// ------------------------------------------------------------ device vs host

TEST(TriangularDevice, LevelsOrderAndSolutionsMatchTheHost) {
  STRATA_REQUIRE_DEVICE();
  const auto device = Executor::cuda();
  using Schedule = detail::TriangularDeviceSchedule;
  for (const Schedule schedule :
       {Schedule::per_level, Schedule::recorded, Schedule::launched, Schedule::sync_free}) {
  const Schedule before = detail::triangular_device_schedule(schedule);
  for (const char* name : {"random", "diffusion27"}) {
    SCOPED_TRACE(std::string(name) +
                 (schedule == Schedule::sync_free  ? ", sync-free"
                  : schedule == Schedule::launched ? ", launched per level"
                  : schedule == Schedule::recorded ? ", recorded"
                                                   : ", per level"));
    const auto A = std::string(name) == "random" ? test::random_matrix(5000, 7, 21)
                                                 : gallery::diffusion3d_27pt(Executor::host(), 20,
                                                                             20, 20);
    const auto Ad = A.to(device);
    const auto b_host = test::random_values(A.rows(), 4);
    const Vector<double> bh(Array<double>(Executor::host(), b_host));
    const Vector<double> bd(Array<double>(device, b_host));
    for (const auto t : {Triangle::lower, Triangle::upper}) {
      for (const auto algorithm :
           {TriangularAlgorithm::level_scheduled, TriangularAlgorithm::jacobi}) {
        const TriangularSolveParams p{.triangle = t, .algorithm = algorithm, .sweeps = 4};
        TriangularSolver<double> host(A, p), dev(Ad, p);
        EXPECT_EQ(host.levels(), dev.levels());
        EXPECT_EQ(host.level_ptr(), dev.level_ptr());
        EXPECT_EQ(host.level_order().to_vector(), dev.level_order().to_vector());
        Vector<double> xh(Executor::host(), A.rows()), xd(device, A.rows());
        host.solve(bh, xh);
        dev.solve(bd, xd);
        const auto h = xh.to_vector(), d = xd.to_vector();
        const double size = test::max_abs(h);
        // The host's stored-order sums against the device's (stored order
        // with fused multiply-adds, or by lanes): equal up to rounding.
        for (size_type i = 0; i < A.rows(); ++i) ASSERT_NEAR(h[i], d[i], 1e-13 * size) << i;
        // Again with the same solver: the sync-free schedule's next epoch.
        xd.fill(0.0);
        dev.solve(bd, xd);
        EXPECT_EQ(xd.to_vector(), d);
      }
    }
  }
  detail::triangular_device_schedule(before);
  }
}


/// Sets the device schedule for its scope.
class ScheduleScope {
 public:
  explicit ScheduleScope(detail::TriangularDeviceSchedule s)
      : before_(detail::triangular_device_schedule(s)) {}
  ~ScheduleScope() { detail::triangular_device_schedule(before_); }
  ScheduleScope(const ScheduleScope&) = delete;
  ScheduleScope& operator=(const ScheduleScope&) = delete;

 private:
  detail::TriangularDeviceSchedule before_;
};

/// n x n, 2 on the diagonal and -1 above it: the lower solve is one level
/// of n rows (no strict entries), the upper solve n levels of one row.
CsrMatrix<double> upper_bidiagonal(size_type n) {
  std::vector<offset_type> rp{0};
  std::vector<index_type> ci;
  std::vector<double> va;
  for (size_type i = 0; i < n; ++i) {
    ci.push_back(static_cast<index_type>(i));
    va.push_back(2.0);
    if (i + 1 < n) {
      ci.push_back(static_cast<index_type>(i + 1));
      va.push_back(-1.0);
    }
    rp.push_back(static_cast<offset_type>(ci.size()));
  }
  const auto host = Executor::host();
  return CsrMatrix<double>(n, n, Array<offset_type>(host, rp), Array<index_type>(host, ci),
                           Array<double>(host, va));
}

// The default device schedule records its launches once and replays them
// with the b and x of each call: several solves queued in a row on one
// solver and on moved solvers (the recording moves with the arrays it
// reads) must all give the host's solution, and exactly the solution of
// the same graph without the early start (the same kernels; a missing wait
// would show here). The solver is
// move-only (its arrays are), so there is no copy to test.
static_assert(std::is_move_constructible_v<TriangularSolver<double>> &&
              std::is_move_assignable_v<TriangularSolver<double>>);

TEST(TriangularDevice, RecordedSolveReplaysForEveryVectorAndMove) {
  STRATA_REQUIRE_DEVICE();
  const auto device = Executor::cuda();
  const auto host = Executor::host();
  using Schedule = detail::TriangularDeviceSchedule;
  const ScheduleScope scope(Schedule::per_level);
  for (const std::string name : {"bidiagonal", "poisson7", "diffusion27", "random"}) {
    // bidiagonal: lower, one level; upper, 3000 levels of one row (one
    // run kernel). The stencils: small levels at both ends, levels above a
    // block's rows between.
    const auto A = name == "bidiagonal" ? upper_bidiagonal(3000)
                   : name == "poisson7" ? gallery::poisson3d(host, 24, 24, 24)
                   : name == "diffusion27"
                       ? gallery::diffusion3d_27pt(host, 16, 16, 16)
                       : test::random_matrix(5000, 7, 21);
    const size_type n = A.rows();
    const auto Ad = A.to(device);
    for (const auto t : {Triangle::lower, Triangle::upper}) {
      SCOPED_TRACE(name + (t == Triangle::lower ? " lower" : " upper"));
      // The stored diagonal (dominant): the solutions stay of the size of b.
      const TriangularSolveParams p{.triangle = t};
      const TriangularSolver<double> reference(A, p);
      constexpr int pairs = 3;
      std::vector<Vector<double>> bd;
      std::vector<std::vector<double>> expected;
      for (int v = 0; v < pairs; ++v) {
        const auto values = test::random_values(n, 40 + v);
        bd.emplace_back(Array<double>(device, values));
        const Vector<double> bh(Array<double>(host, values));
        Vector<double> x(host, n);
        reference.solve(bh, x);
        expected.push_back(x.to_vector());
      }
      const auto check = [&](const Vector<double>& x, int v, const std::string& what) {
        SCOPED_TRACE(what + ", b number " + std::to_string(v));
        const auto got = x.to_vector();
        const double size = test::max_abs(expected[v]);
        for (size_type i = 0; i < n; ++i) {
          ASSERT_NEAR(got[i], expected[v][i], 1e-13 * size) << i;
        }
      };
      auto original = std::make_unique<TriangularSolver<double>>(Ad, p);
      if (name == "bidiagonal") {
        EXPECT_EQ(original->levels(), t == Triangle::lower ? 1 : n);
      }
      // Queued back to back, read afterwards: each replay has its own b, x.
      std::vector<Vector<double>> xs;
      for (int v = 0; v <= pairs; ++v) xs.emplace_back(device, n, -3.0);
      for (int v = 0; v < pairs; ++v) original->solve(bd[v], xs[v]);
      original->solve(bd[0], xs[pairs]);
      for (int v = 0; v < pairs; ++v) check(xs[v], v, "one solver");
      check(xs[pairs], 0, "one solver, the first b again");
      // Without the early start: the same kernels, bit for bit the same
      // solution (a missing wait would show here); one launch per level from
      // the host sums each row in stored order: the host's solution. Then
      // the default again (recorded anew: the early start is part of what a
      // recording was made for).
      {
        const ScheduleScope scoped(Schedule::recorded);
        Vector<double> y(device, n, 0.0);
        original->solve(bd[1], y);
        EXPECT_EQ(y.to_vector(), xs[1].to_vector());
      }
      {
        const ScheduleScope scoped(Schedule::launched);
        Vector<double> y(device, n, 0.0);
        original->solve(bd[1], y);
        check(y, 1, "launched per level");
      }
      original->solve(bd[2], xs[0]);
      check(xs[0], 2, "one solver, after the other schedules");
      // Moved, the moved-from solver destroyed: the recording moves along.
      TriangularSolver<double> moved = std::move(*original);
      original.reset();
      Vector<double> x(device, n, 0.0);
      moved.solve(bd[1], x);
      check(x, 1, "moved");
      // Move-assigned over a solver of another matrix that had recorded.
      TriangularSolver<double> target(upper_bidiagonal(n).to(device), p);
      target.solve(bd[0], x);
      target = std::move(moved);
      target.solve(bd[2], x);
      check(x, 2, "move-assigned");
      target.solve(bd[0], x);
      check(x, 0, "move-assigned, again");
      // A new solver of the same matrix records its own graph.
      TriangularSolver<double> fresh(Ad, p);
      fresh.solve(bd[2], x);
      check(x, 2, "a new solver");
    }
  }
}

}  // namespace
}  // namespace strata
