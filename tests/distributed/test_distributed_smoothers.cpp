// Gauss-Seidel and ILU across processes (hybrid: the serial smoother on
// each process's rows, Jacobi between processes, the l1 norm of the
// off-process entries on the diagonal) under MPI, 1 to 4 processes: on one
// process exactly the serial smoother; on several, classical AMG with the
// host's default smoother and ILU-preconditioned GMRES still converge
// about as fast; a process that cannot smooth its rows makes all throw.

#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "distributed/mpi_test_util.hpp"
#include "strata/amg/classical.hpp"
#include "strata/distributed/gallery.hpp"
#include "strata/distributed/mpi.hpp"
#include "strata/distributed/operator.hpp"
#include "strata/distributed/reduction.hpp"
#include "strata/gallery/gallery.hpp"
#include "strata/smoother/smoother.hpp"
#include "strata/solver/krylov.hpp"

namespace strata {
namespace {

using test::block_of;
using test::world;

KrylovParams to(double tolerance) { return test::relative_tolerance(tolerance); }

struct Outcome {
  SolveInfo info;
  double true_relative_residual = 0;
  std::string preconditioner;
};

/// `method` on A, preconditioned by what `make` builds for A.
template <class Make>
Outcome solve_on(std::shared_ptr<const LevelOperator<double>> A, const Reduction<double>& reduction,
                 const Vector<double>& b, const KrylovMethod& method, Make&& make) {
  const std::unique_ptr<LinearOperator<double>> M = make(A);
  Vector<double> x(Executor::host(), b.size(), 0.0), r(Executor::host(), b.size());
  Outcome o;
  o.info = solve(method, *A, b, x, M.get(), reduction);
  A->residual(b, x, r);
  o.true_relative_residual = reduction.norm2(r) / reduction.norm2(b);
  o.preconditioner = M->describe();
  return o;
}

TEST(DistributedSmoothers, ClassicalAmgWithHybridGaussSeidel) {
  const Communicator comm = world();
  const Executor host = Executor::host();
  const size_type n = 16;
  const DistributedReduction<double> reduction(comm);
  const auto amg = [&](const Reduction<double>& sums) {
    return [&sums](std::shared_ptr<const LevelOperator<double>> A) {
      amg::HierarchyParams h;
      h.smoother = GaussSeidelParams{};  // the host's default: hybrid l1, forward down, backward up
      h.coarse_size = 40;
      return std::make_unique<amg::Hierarchy<double>>(
          A, amg::make_classical_coarsening<double>({}), h,
          std::shared_ptr<const Reduction<double>>(&sums, [](const Reduction<double>*) {}));
    };
  };
  const Reduction<double> serial_sums;
  const RowPartition whole(n * n * n);
  const Outcome serial = solve_on(
      std::make_shared<const CsrOperator<double>>(gallery::poisson3d(host, n, n, n)), serial_sums,
      block_of(whole), KrylovMethod{Cg{.params = to(1e-8)}}, amg(serial_sums));
  const RowPartition part = RowPartition::uniform(comm, n * n * n);
  const Outcome dist = solve_on(
      std::make_shared<const DistributedOperator<double>>(gallery::poisson3d(part, host, n, n, n)),
      reduction, block_of(part), KrylovMethod{Cg{.params = to(1e-8)}}, amg(reduction));
  EXPECT_TRUE(dist.info.converged()) << to_string(dist.info.status);
  EXPECT_LE(dist.true_relative_residual, 1e-8);
  if (comm.size() == 1) {
    EXPECT_EQ(dist.info.iterations, serial.info.iterations);  // no off-process entries
  } else {
    EXPECT_LE(dist.info.iterations, serial.info.iterations + 3)
        << "serial " << serial.info.iterations;
  }
}

TEST(DistributedSmoothers, SymmetricGaussSeidelAndIluAsPreconditioners) {
  const Communicator comm = world();
  const Executor host = Executor::host();
  const size_type n = 12;
  const DistributedReduction<double> reduction(comm);
  const Reduction<double> serial_sums;
  const RowPartition whole(n * n * n), part = RowPartition::uniform(comm, n * n * n);
  struct Case {
    SmootherParams params;
    KrylovMethod method;
  };
  GaussSeidelParams sgs;
  sgs.sweep = GaussSeidelSweep::symmetric;
  Gmres gmres;
  gmres.params = to(1e-8);
  for (const Case& c :
       {Case{sgs, KrylovMethod{Cg{.params = to(1e-8)}}}, Case{IluParams{}, KrylovMethod{gmres}}}) {
    const auto make = [&](const Reduction<double>& sums) {
      return [&](std::shared_ptr<const LevelOperator<double>> A) {
        return make_smoother<double>(A, c.params, sums);
      };
    };
    const Outcome serial =
        solve_on(std::make_shared<const CsrOperator<double>>(gallery::convdiff3d(host, n, n, n)),
                 serial_sums, block_of(whole), c.method, make(serial_sums));
    const Outcome dist = solve_on(std::make_shared<const DistributedOperator<double>>(
                                      gallery::convdiff3d(part, host, n, n, n)),
                                  reduction, block_of(part), c.method, make(reduction));
    EXPECT_TRUE(dist.info.converged()) << dist.preconditioner;
    EXPECT_LE(dist.true_relative_residual, 1e-8) << dist.preconditioner;
    EXPECT_NE(dist.preconditioner.find("hybrid across processes"), std::string::npos)
        << dist.preconditioner;
    if (comm.size() == 1) {
      EXPECT_EQ(dist.info.iterations, serial.info.iterations) << dist.preconditioner;
    } else {
      // Jacobi between the processes' blocks: more iterations, not many.
      EXPECT_LE(dist.info.iterations, 2 * serial.info.iterations + 5)
          << dist.preconditioner << ", serial " << serial.info.iterations;
    }
  }
}

TEST(DistributedSmoothers, AZeroDiagonalOnOneProcessStopsThemAll) {
  const Communicator comm = world();
  const Executor host = Executor::host();
  const RowPartition part = RowPartition::uniform(comm, 64);
  DistributedCsrMatrix<double> matrix = gallery::poisson2d(part, host, 8, 8);
  if (comm.rank() == comm.size() - 1) {
    // The last process's diagonal entries set to zero (values only).
    std::vector<double> v = matrix.diag_values().to_vector();
    for (double& x : v) {
      if (x > 0) x = 0;
    }
    matrix.diag_values() = Array<double>(host, v);
  }
  auto A = std::make_shared<const DistributedOperator<double>>(std::move(matrix));
  const DistributedReduction<double> reduction(comm);
  try {
    (void)make_smoother<double>(A, GaussSeidelParams{}, reduction);
    FAIL() << "expected the zero diagonal to be refused";
  } catch (const invalid_argument& e) {
    const std::string what = e.what();
    if (comm.size() == 1 || comm.rank() == comm.size() - 1) {
      EXPECT_NE(what.find("diagonal"), std::string::npos) << what;
    } else {
      EXPECT_NE(what.find("hybrid smoother"), std::string::npos) << what;
    }
  }
}

}  // namespace
}  // namespace strata
