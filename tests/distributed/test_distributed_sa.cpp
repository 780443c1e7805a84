// Distributed smoothed aggregation under MPI (1 to 4 processes): scalar SA
// (B = 1) and blocked SA for elasticity (b = 3, six rigid-body modes) on a
// DistributedCsrMatrix whose nodes are whole on each process, aggregates
// within each process. Against the serial SA hierarchy: on one process the
// same levels to rounding, on several PCG iterations within a small margin;
// the errors for a partition that splits nodes and for a near-null space
// not split like A.

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "distributed/mpi_test_util.hpp"
#include "strata/amg/smoothed_aggregation.hpp"
#include "strata/distributed/gallery.hpp"
#include "strata/distributed/mpi.hpp"
#include "strata/distributed/operator.hpp"
#include "strata/distributed/reduction.hpp"
#include "strata/gallery/gallery.hpp"
#include "strata/matrix/bsr.hpp"
#include "strata/solver/krylov.hpp"

namespace strata {
namespace {

using test::block_of;
using test::world;

/// This process's rows [part.begin(), part.end()) of a whole vector.
Vector<double> rows_of(const Vector<double>& whole, const RowPartition& part) {
  const auto all = whole.values().to_vector();
  std::vector<double> mine(all.begin() + part.begin(), all.begin() + part.end());
  return Vector<double>(Array<double>(Executor::host(), mine));
}

std::vector<Vector<double>> rows_of(const std::vector<Vector<double>>& whole,
                                    const RowPartition& part) {
  std::vector<Vector<double>> out;
  for (const auto& v : whole) out.push_back(rows_of(v, part));
  return out;
}

std::vector<Vector<double>> clones(const std::vector<Vector<double>>& B) {
  std::vector<Vector<double>> out;
  for (const auto& v : B) out.push_back(v.clone());
  return out;
}

struct Outcome {
  SolveInfo info;
  double true_relative_residual = 0;
  int levels = 0;
};

/// PCG to 1e-8 with b from the global index, x = 0.
Outcome pcg(const LevelOperator<double>& A, const amg::Hierarchy<double>& H,
            const Reduction<double>& reduction, const Vector<double>& b) {
  Vector<double> x(b.executor(), b.size(), 0.0), r(b.executor(), b.size());
  KrylovParams p = test::relative_tolerance(1e-8);
  p.max_iterations = 200;
  Outcome o;
  o.info = solve(KrylovMethod{Cg{p}}, A, b, x, &H, reduction);
  A.residual(b, x, r);
  o.true_relative_residual = reduction.norm2(r) / reduction.norm2(b);
  o.levels = H.num_levels();
  return o;
}

amg::HierarchyParams chebyshev(int coarse_size = 50) {
  amg::HierarchyParams h;
  h.smoother = ChebyshevParams{};
  h.coarse_size = coarse_size;
  return h;
}

/// PCG with blocked SA on elasticity, serial and distributed: the serial
/// hierarchy of the whole problem (BSR levels, point-block Chebyshev, B =
/// serial_modes) and the distributed one on A (scalar CSR levels, nodes
/// whole on each process, scalar Chebyshev, b = 3, B = this process's rows
/// `modes`). Both converge (1e-8 on the true residual), and the distributed
/// iterations stay within a small margin of the serial ones. Prints both
/// counts after `label`; returns the distributed coarsening's summary.
std::string expect_sa_like_serial(const CsrMatrix<double>& whole,
                                  const std::vector<Vector<double>>& serial_modes,
                                  std::shared_ptr<const DistributedOperator<double>> A,
                                  std::vector<Vector<double>> modes, const std::string& label) {
  const Communicator& comm = A->matrix().communicator();
  auto serial_A = std::make_shared<const BsrOperator<double>>(
      std::make_shared<const BsrMatrix<double>>(to_bsr(whole, 3)));
  const amg::Hierarchy<double> serial_H(
      serial_A, amg::make_smoothed_aggregation_coarsening<double>({}, clones(serial_modes)),
      chebyshev());
  const Outcome serial =
      pcg(*serial_A, serial_H, Reduction<double>{}, block_of(RowPartition(whole.rows())));

  auto reduction = std::make_shared<const DistributedReduction<double>>(comm);
  const amg::Hierarchy<double> H(
      A, amg::make_smoothed_aggregation_coarsening<double>({.block_size = 3}, std::move(modes)),
      chebyshev(), reduction);
  const Outcome dist = pcg(*A, H, *reduction, block_of(A->matrix().row_partition()));
  if (comm.rank() == 0) {
    std::printf(
        "  %s (%lld rows), %d processes: serial SA PCG %d (%d levels), distributed SA PCG %d "
        "(%d levels), true relres %.2e\n",
        label.c_str(), (long long)whole.rows(), comm.size(), serial.info.iterations, serial.levels,
        dist.info.iterations, dist.levels, dist.true_relative_residual);
  }
  EXPECT_TRUE(serial.info.converged());
  EXPECT_TRUE(dist.info.converged()) << to_string(dist.info.status);
  EXPECT_LE(dist.true_relative_residual, 1.01e-8);
  EXPECT_GE(dist.levels, 2);
  // Scalar Chebyshev on CSR levels against point-block on BSR levels, and
  // aggregates cut at process boundaries: a few iterations either way.
  EXPECT_LE(dist.info.iterations, serial.info.iterations + 5) << label;
  EXPECT_GE(dist.info.iterations, serial.info.iterations - 5) << label;
  return H.summary().coarsening;
}

/// The whole elasticity problem's rows sent from rank 0, and its modes.
TEST(DistributedSmoothedAggregation, Elasticity3dPcgConvergesLikeTheSerialHierarchy) {
  const Communicator comm = world();
  const Executor host = Executor::host();
  for (const size_type ne : {size_type{8}, size_type{10}}) {
    const auto problem = gallery::elasticity3d(host, ne);
    const auto modes = amg::rigid_body_modes(problem.coordinates, 3);
    const RowPartition part = RowPartition::uniform_nodes(comm, problem.A.rows(), 3);
    const std::string coarsening = expect_sa_like_serial(
        problem.A, modes,
        std::make_shared<const DistributedOperator<double>>(scatter_rows(problem.A, part, host)),
        rows_of(modes, part), "elasticity3d " + std::to_string(ne));
    // One process builds the serial hierarchy (HierarchyParams::serial_on_one_process).
    if (comm.size() > 1) {
      EXPECT_NE(coarsening.find("aggregates within each process"), std::string::npos) << coarsening;
    }
  }
}

/// The elasticity problem generated process by process (no process holds
/// the whole mesh) with its own blocks of the rigid-body modes as the
/// near-null space, on a cube and on the long box a weak-scaling run makes.
TEST(DistributedSmoothedAggregation, GeneratedElasticityWithItsRigidBodyModes) {
  const Communicator comm = world();
  const Executor host = Executor::host();
  struct Box {
    size_type nex, ney, nez;
  };
  for (const Box box : {Box{8, 8, 8}, Box{6, 6, 6 * static_cast<size_type>(comm.size())}}) {
    const auto whole = gallery::elasticity3d(host, box.nex, box.ney, box.nez);
    const RowPartition part = RowPartition::uniform_nodes(comm, whole.A.rows(), 3);
    auto generated = gallery::elasticity3d(part, host, box.nex, box.ney, box.nez);
    (void)expect_sa_like_serial(
        whole.A, whole.rigid_body_modes,
        std::make_shared<const DistributedOperator<double>>(std::move(generated.A)),
        std::move(generated.rigid_body_modes),
        "generated elasticity3d " + std::to_string(box.nex) + " x " + std::to_string(box.ney) +
            " x " + std::to_string(box.nez));
  }
}

/// resetup() after the caller scaled A's values in place: every level of
/// smoothed aggregation is covariant under A -> c A (D^-1 A, hence P, is
/// unchanged; each coarse operator and the coarsest inverse scale), so one
/// application of the refreshed hierarchy is the old one over c. On one
/// process level 0 is a BSR copy of the caller's block, which resetup()
/// must make again from the new values, not refresh from itself.
TEST(DistributedSmoothedAggregation, ResetupTakesTheCallersNewValues) {
  const Communicator comm = world();
  const Executor host = Executor::host();
  const size_type ne = 6;
  const size_type rows = 3 * ne * (ne + 1) * (ne + 1);
  const RowPartition part = RowPartition::uniform_nodes(comm, rows, 3);
  auto generated = gallery::elasticity3d(part, host, ne, ne, ne);
  auto matrix = std::make_shared<DistributedCsrMatrix<double>>(std::move(generated.A));
  const auto A = std::make_shared<const DistributedOperator<double>>(matrix);
  amg::HierarchyParams h;
  h.coarse_size = 50;
  amg::Hierarchy<double> H(
      A,
      amg::make_smoothed_aggregation_coarsening<double>({.block_size = 3},
                                                         std::move(generated.rigid_body_modes)),
      h, std::make_shared<const DistributedReduction<double>>(comm));
  const Vector<double> b = block_of(part);
  Vector<double> before(host, b.size()), after(host, b.size());
  H.apply(b, before);
  const double c = 2.5;
  test::scale_values(*matrix, c);
  H.resetup();
  H.apply(b, after);
  double diff = 0, scale = 0;
  const std::vector<double> x0 = before.to_vector(), x1 = after.to_vector();
  for (std::size_t i = 0; i < x0.size(); ++i) {
    diff = std::max(diff, std::abs(c * x1[i] - x0[i]));
    scale = std::max(scale, std::abs(x0[i]));
  }
  double all[2] = {diff, scale}, most[2] = {0, 0};
  MPI_Allreduce(all, most, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_LT(most[0], 1e-9 * most[1]) << "the refreshed hierarchy times " << c
                                     << " should be the old one";
}

/// Max |a - b| over the max |a|, of two dense matrices.
double relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff = std::max(diff, std::abs(a[i] - b[i]));
    scale = std::max(scale, std::abs(a[i]));
  }
  return diff / scale;
}

/// One process: the distributed path builds the serial hierarchy (same
/// aggregates, hence the same level sizes and, to rounding, the same
/// coarse operators), for blocked SA with rigid-body modes and for scalar
/// SA with B = 1. Several processes: the same finest level and a coarser
/// hierarchy with at least as many coarse rows (aggregates cut at the
/// process boundaries).
TEST(DistributedSmoothedAggregation, OneProcessBuildsTheSerialHierarchy) {
  const Communicator comm = world();
  const Executor host = Executor::host();
  struct Case {
    const char* name;
    CsrMatrix<double> A;
    int b;
    std::vector<Vector<double>> B;
  };
  std::vector<Case> cases;
  {
    auto problem = gallery::elasticity3d(host, 8);
    cases.push_back(Case{"elasticity3d 8, b = 3, k = 6", std::move(problem.A), 3,
                         amg::rigid_body_modes(problem.coordinates, 3)});
  }
  cases.push_back(Case{"poisson3d 12, b = 1, B = 1", gallery::poisson3d(host, 12, 12, 12), 1, {}});
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const size_type rows = c.A.rows();
    auto serial_A = std::make_shared<const BsrOperator<double>>(
        std::make_shared<const BsrMatrix<double>>(to_bsr(c.A, c.b)));
    const amg::Hierarchy<double> serial(
        serial_A, amg::make_smoothed_aggregation_coarsening<double>({}, clones(c.B)),
        chebyshev(30));

    const RowPartition part = RowPartition::uniform_nodes(comm, rows, c.b);
    auto A = std::make_shared<const DistributedOperator<double>>(scatter_rows(c.A, part, host));
    const amg::Hierarchy<double> dist(
        A,
        amg::make_smoothed_aggregation_coarsening<double>({.block_size = c.b},
                                                         rows_of(c.B, part)),
        chebyshev(30), std::make_shared<const DistributedReduction<double>>(comm));
    ASSERT_GE(serial.num_levels(), 3);
    const auto s = serial.summary(), d = dist.summary();
    if (comm.size() == 1) {
      ASSERT_EQ(dist.num_levels(), serial.num_levels());
      for (int l = 0; l < serial.num_levels(); ++l) {
        EXPECT_EQ(d.levels[std::size_t(l)].rows, s.levels[std::size_t(l)].rows) << "level " << l;
        const Array<double> sd = serial.level_operator(l).to_dense();
        const Array<double> dd = dist.level_operator(l).to_dense();
        ASSERT_EQ(sd.size(), dd.size()) << "level " << l;
        EXPECT_LT(relative_difference(sd.to_vector(), dd.to_vector()), 1e-11) << "level " << l;
      }
    } else {
      ASSERT_GE(dist.num_levels(), 2);
      EXPECT_EQ(d.levels[0].rows, s.levels[0].rows);
      EXPECT_GE(d.levels[1].rows, s.levels[1].rows);
    }
  }
}

/// Scalar SA (B = 1) on Poisson with uneven blocks, process 0 owning no
/// rows when there are several, and a value-only resetup that re-smooths P
/// on the kept aggregates (the same values: the same iterations).
TEST(DistributedSmoothedAggregation, ScalarWithAnEmptyProcessAndResmoothingResetup) {
  const Communicator comm = world();
  const Executor host = Executor::host();
  const size_type n = 16;
  const RowPartition part = test::uneven(comm, n * n * n);
  auto A =
      std::make_shared<const DistributedOperator<double>>(gallery::poisson3d(part, host, n, n, n));
  const DistributedReduction<double> reduction(comm);
  amg::Hierarchy<double> H(
      A, amg::make_smoothed_aggregation_coarsening<double>({.resetup_keeps_prolongator = false}),
      chebyshev(), std::make_shared<const DistributedReduction<double>>(comm));
  const Outcome first = pcg(*A, H, reduction, block_of(part));
  EXPECT_TRUE(first.info.converged());
  EXPECT_LE(first.info.iterations, 20);
  EXPECT_GE(first.levels, 3);
  H.resetup(A);
  const Outcome again = pcg(*A, H, reduction, block_of(part));
  EXPECT_TRUE(again.info.converged());
  EXPECT_EQ(again.info.iterations, first.info.iterations);
}

/// A theta above every coupling (the 27-point stencil, 1/26 of the
/// diagonal) falls back to theta 0 on every process together, as the
/// serial coarsening does, instead of stopping at one level.
TEST(DistributedSmoothedAggregation, ThetaAboveEveryCouplingFallsBackOnEveryProcess) {
  const Communicator comm = world();
  const Executor host = Executor::host();
  const size_type n = 16;
  const RowPartition part = test::uneven(comm, n * n * n);
  auto A = std::make_shared<const DistributedOperator<double>>(
      gallery::diffusion3d_27pt(part, host, n, n, n));
  const DistributedReduction<double> reduction(comm);
  amg::Hierarchy<double> H(A, amg::make_smoothed_aggregation_coarsening<double>({}), chebyshev(),
                           std::make_shared<const DistributedReduction<double>>(comm));
  const Outcome o = pcg(*A, H, reduction, block_of(part));
  EXPECT_TRUE(o.info.converged());
  EXPECT_GE(o.levels, 2);
  EXPECT_LE(o.info.iterations, 20);
  EXPECT_NE(H.summary().coarsening.find("0 where no coupling exceeded it, from level 0"),
            std::string::npos)
      << H.summary().coarsening;
}

/// Agglomeration: the coarse levels below 200 rows gathered onto process 0
/// (their near-null space moved with their rows, whole nodes of k rows);
/// the hierarchy still converges as without it.
TEST(DistributedSmoothedAggregation, AgglomeratedCoarseLevelsKeepTheirNearNullSpace) {
  const Communicator comm = world();
  const Executor host = Executor::host();
  const auto problem = gallery::elasticity3d(host, 10);
  const size_type rows = problem.A.rows();
  const RowPartition part = RowPartition::uniform_nodes(comm, rows, 3);
  auto A =
      std::make_shared<const DistributedOperator<double>>(scatter_rows(problem.A, part, host));
  auto reduction = std::make_shared<const DistributedReduction<double>>(comm);
  int iterations[2] = {0, 0};
  for (int agglomerate = 0; agglomerate < 2; ++agglomerate) {
    amg::HierarchyParams h = chebyshev(10);
    h.agglomeration_rows = agglomerate ? 400 : 0;
    const amg::Hierarchy<double> H(
        A,
        amg::make_smoothed_aggregation_coarsening<double>(
            {.block_size = 3}, rows_of(amg::rigid_body_modes(problem.coordinates, 3), part)),
        h, reduction);
    const Outcome o = pcg(*A, H, *reduction, block_of(part));
    EXPECT_TRUE(o.info.converged()) << "agglomeration " << agglomerate;
    EXPECT_GE(o.levels, 3);
    iterations[agglomerate] = o.info.iterations;
    const LevelOperator<double>& coarse = H.level_operator(1);
    ASSERT_LT(coarse.global_rows(), 400);
    if (agglomerate && comm.size() > 1) {  // all of level 1 on process 0
      EXPECT_EQ(coarse.rows(), comm.rank() == 0 ? coarse.global_rows() : 0);
    }
  }
  EXPECT_LE(iterations[1], iterations[0] + 2);
}

/// A partition that gives a process part of a node's rows is refused on
/// every process, naming the process, its rows and the node.
TEST(DistributedSmoothedAggregation, RefusesAPartitionThatSplitsNodes) {
  const Communicator comm = world();
  const Executor host = Executor::host();
  const auto problem = gallery::elasticity3d(host, 3);
  const size_type rows = problem.A.rows();
  // Process 0 owns one row more than whole nodes (one process: a row count
  // that is not a multiple of 3, i.e. its last node cut off).
  std::vector<global_index> offsets = RowPartition::uniform_nodes(comm, rows, 3).offsets();
  if (comm.size() > 1) {
    offsets[1] += 1;
  }
  const size_type used = comm.size() > 1 ? rows : rows - 1;
  offsets.back() = used;
  CsrMatrix<double> A = problem.A.clone();
  if (comm.size() == 1) A = gallery::poisson2d(host, 7, 7);  // 49 rows: 3 does not divide
  const RowPartition part(comm, comm.size() == 1 ? std::vector<global_index>{0, 49} : offsets);
  auto op = std::make_shared<const DistributedOperator<double>>(scatter_rows(A, part, host));
  try {
    amg::Hierarchy<double> H(op, amg::make_smoothed_aggregation_coarsening<double>({.block_size = 3}),
                             chebyshev(10),
                             std::make_shared<const DistributedReduction<double>>(comm));
    FAIL() << "expected invalid_argument";
  } catch (const invalid_argument& e) {
    const std::string what = e.what();
    if (comm.size() == 1) {  // the serial path's check (HierarchyParams::serial_on_one_process)
      EXPECT_NE(what.find("block_size 3 does not divide the 49 rows"), std::string::npos) << what;
      return;
    }
    EXPECT_NE(what.find("splits node"), std::string::npos) << what;
    EXPECT_NE(what.find("process 0 owns global rows [0, "), std::string::npos) << what;
    EXPECT_NE(what.find("of block size 3"), std::string::npos) << what;
  }
}

/// A near-null space whose vectors are not this process's rows (here three
/// entries too many everywhere) is refused on every process, naming the
/// vector, the counts and the process's rows.
TEST(DistributedSmoothedAggregation, RefusesANearNullSpaceNotSplitLikeA) {
  const Communicator comm = world();
  const Executor host = Executor::host();
  const auto problem = gallery::elasticity3d(host, 3);
  const RowPartition part = RowPartition::uniform_nodes(comm, problem.A.rows(), 3);
  auto op =
      std::make_shared<const DistributedOperator<double>>(scatter_rows(problem.A, part, host));
  std::vector<Vector<double>> B;
  for (int c = 0; c < 6; ++c) B.emplace_back(host, part.local_size() + 3, 1.0 + c);
  try {
    amg::Hierarchy<double> H(
        op, amg::make_smoothed_aggregation_coarsening<double>({.block_size = 3}, std::move(B)),
        chebyshev(), std::make_shared<const DistributedReduction<double>>(comm));
    FAIL() << "expected invalid_argument";
  } catch (const invalid_argument& e) {
    const std::string what = e.what();
    if (comm.size() == 1) {  // the serial path's check (HierarchyParams::serial_on_one_process)
      EXPECT_NE(what.find("near_null_space[0] has " + std::to_string(part.local_size() + 3) +
                          " entries, expected " + std::to_string(part.local_size())),
                std::string::npos)
          << what;
      return;
    }
    EXPECT_NE(what.find("near_null_space[0] has " + std::to_string(part.local_size() + 3) +
                        " entries on process " + std::to_string(comm.rank()) + ", expected " +
                        std::to_string(part.local_size())),
              std::string::npos)
        << what;
  }
}

}  // namespace
}  // namespace strata
