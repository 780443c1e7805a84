// Distributed aggregation under MPI (1 to 4 processes): MIS(2) across
// process boundaries gives the serial aggregates whatever the number of
// processes and the partition (aggregates span processes), the serial P
// and coarse near-null space for several columns, and the serial hierarchy
// and iteration counts.

#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "core/amg/distributed_aggregation.hpp"
#include "distributed/mpi_test_util.hpp"
#include "strata/amg/aggregation.hpp"
#include "strata/amg/smoothed_aggregation.hpp"
#include "strata/distributed/mpi.hpp"
#include "strata/distributed/operator.hpp"
#include "strata/distributed/reduction.hpp"
#include "strata/gallery/gallery.hpp"
#include "strata/solver/krylov.hpp"

namespace strata {
namespace {

using test::block_of;
using test::world;

/// Every process's values gathered in rank order (the whole vector).
std::vector<int> all_of(const std::vector<int>& mine) {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int count = static_cast<int>(mine.size());
  std::vector<int> counts(static_cast<std::size_t>(size), 0);
  std::vector<int> displacements(static_cast<std::size_t>(size), 0);
  MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  for (int r = 1; r < size; ++r) displacements[r] = displacements[r - 1] + counts[r - 1];
  std::vector<int> all(std::size_t(displacements.back() + counts.back()));
  MPI_Allgatherv(mine.data(), count, MPI_INT, all.data(), counts.data(), displacements.data(),
                 MPI_INT, MPI_COMM_WORLD);
  return all;
}

/// A with some entries (i, j), j > i, removed: a structurally nonsymmetric
/// pattern, whose serial strength graph is made from A + 0 A^T.
CsrMatrix<double> without_some_upper_entries(const CsrMatrix<double>& A) {
  const auto ptr = A.row_ptr().to_vector();
  const auto col = A.col_idx().to_vector();
  const auto val = A.values().to_vector();
  std::vector<offset_type> p{0};
  std::vector<index_type> c;
  std::vector<double> v;
  for (size_type i = 0; i < A.rows(); ++i) {
    for (offset_type k = ptr[i]; k < ptr[i + 1]; ++k) {
      if (col[k] > i && (i + col[k]) % 5 == 0) continue;
      c.push_back(col[k]);
      v.push_back(val[k]);
    }
    p.push_back(static_cast<offset_type>(c.size()));
  }
  const Executor host = Executor::host();
  return CsrMatrix<double>(A.rows(), A.cols(), Array<offset_type>(host, p),
                           Array<index_type>(host, c), Array<double>(host, v));
}

struct Problem {
  std::string name;
  CsrMatrix<double> A;
  double alpha;
};

std::vector<Problem> problems() {
  const Executor host = Executor::host();
  std::vector<Problem> out;
  out.push_back({"poisson2d 23x19", gallery::poisson2d(host, 23, 19), 0.25});
  out.push_back({"poisson3d 9", gallery::poisson3d(host, 9, 9, 9), 0.5});
  out.push_back(
      {"anisotropic2d 24, rotated", gallery::anisotropic2d(host, 24, 24, 0.01, 0.6), 0.25});
  out.push_back({"poisson2d 20, nonsymmetric pattern",
                 without_some_upper_entries(gallery::poisson2d(host, 20, 20)), 0.25});
  return out;
}

std::vector<RowPartition> partitions(const Communicator& comm, size_type rows) {
  return {RowPartition::uniform(comm, rows), test::uneven(comm, rows)};
}

/// The MIS(2) aggregates of every global row (the serial numbering) equal
/// the serial ones, on uniform and uneven partitions (process 0 without
/// rows on several processes). A hash of the local index instead of the
/// global row would change the roots on every process but the first (at np
/// 3 on the uneven partition, the rows of process 1 start at 1/3 of the
/// matrix); a local tie-break would change them along the boundaries.
TEST(DistributedAggregation, Mis2AggregatesAreTheSerialOnes) {
  const Communicator comm = world();
  const Executor host = Executor::host();
  for (const Problem& problem : problems()) {
    const amg::StrengthGraph<double> S = amg::strength_graph(problem.A, problem.alpha);
    for (int level : {0, 2}) {
      const amg::Aggregates serial = amg::aggregate(S, 7, level);
      const std::vector<int> expected = serial.aggregate.to_vector();
      for (const RowPartition& part : partitions(comm, problem.A.rows())) {
        SCOPED_TRACE(problem.name + ", level " + std::to_string(level) + ", first row here " +
                     std::to_string(part.begin()));
        const auto A = scatter_rows(problem.A, part, host);
        const amg::detail::DistributedAggregates d =
            amg::detail::distributed_aggregates(A, problem.alpha, 7, level);
        EXPECT_EQ(d.iterations, serial.iterations);
        EXPECT_EQ(d.global_count, serial.count());
        const std::vector<int> got = all_of(d.aggregate.to_vector());
        ASSERT_EQ(got.size(), expected.size());
        size_type differ = 0;
        for (std::size_t i = 0; i < got.size(); ++i) differ += got[i] != expected[i] ? 1 : 0;
        EXPECT_EQ(differ, 0) << "rows whose aggregate differs from the serial one";
        // Aggregates span processes: some row's aggregate is owned elsewhere
        // (whenever two processes hold rows).
        int holding = part.local_size() > 0 ? 1 : 0, holders = 0;
        MPI_Allreduce(&holding, &holders, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (holders > 1 && level == 0) {
          const auto mine = d.aggregate.to_vector();
          int spanning = 0;
          for (const int a : mine) {
            spanning +=
                a >= 0 && (a < d.first || a >= d.first + static_cast<global_index>(d.owned));
          }
          int total = 0;
          MPI_Allreduce(&spanning, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
          EXPECT_GT(total, 0) << "no aggregate spans two processes";
        }
      }
    }
  }
}

/// Several near-null vectors (rigid-body modes of 3D elasticity, on the
/// scalar matrix; and B = 1): P, R = P^T and the coarse near-null space
/// equal the serial ones to 1e-12, aggregates spanning processes included.
TEST(DistributedAggregation, InterpolationEqualsTheSerialOne) {
  const Communicator comm = world();
  const Executor host = Executor::host();
  struct Case {
    std::string name;
    CsrMatrix<double> A;
    std::vector<Vector<double>> B;
    double alpha;
  };
  std::vector<Case> cases;
  {
    auto problem = gallery::elasticity3d(host, 4);
    cases.push_back({"elasticity3d 4, 6 rigid-body modes", std::move(problem.A),
                     amg::rigid_body_modes(problem.coordinates, 3), 0.25});
  }
  cases.push_back({"poisson3d 8, B = 1", gallery::poisson3d(host, 8, 8, 8), {}, 0.5});
  {
    // A second column proportional to the first: every aggregate drops it,
    // and the kept columns are renumbered across processes.
    const size_type n = 18 * 18;
    std::vector<double> ones(std::size_t(n), 1.0), threes(std::size_t(n), 3.0), smooth;
    for (size_type i = 0; i < n; ++i) smooth.push_back(test::value_at(i));
    std::vector<Vector<double>> B;
    for (const auto* v : {&ones, &threes, &smooth}) {
      B.emplace_back(Array<double>(host, *v));
    }
    cases.push_back({"poisson2d 18, B = [1, 3, smooth] (rank-deficient)",
                     gallery::poisson2d(host, 18, 18), std::move(B), 0.25});
  }
  for (const Case& c : cases) {
    const size_type n = c.A.rows();
    const int k = c.B.empty() ? 1 : static_cast<int>(c.B.size());
    std::vector<double> whole(std::size_t(n) * k, 1.0);
    for (int col = 0; col < k && !c.B.empty(); ++col) {
      const auto v = c.B[std::size_t(col)].values().to_vector();
      std::copy(v.begin(), v.end(), whole.begin() + std::ptrdiff_t(col) * n);
    }
    const amg::Aggregates serial_aggregates =
        amg::aggregate(amg::strength_graph(c.A, c.alpha), 1, 0);
    const amg::PiecewiseConstantInterpolation<double> serial =
        amg::piecewise_constant_interpolation(serial_aggregates, Array<double>(host, whole), k);
    const test::Entries serial_P = test::entries_of(serial.P);
    const auto serial_B = serial.coarse_near_null_space.to_vector();
    const size_type coarse = serial.P.cols();
    for (const RowPartition& part : partitions(comm, n)) {
      SCOPED_TRACE(c.name + ", first row here " + std::to_string(part.begin()));
      const auto A = scatter_rows(c.A, part, host);
      std::vector<double> mine;
      for (int col = 0; col < k; ++col) {
        const auto first = whole.begin() + std::ptrdiff_t(col) * n;
        mine.insert(mine.end(), first + part.begin(), first + part.end());
      }
      const auto d = amg::detail::distributed_aggregates(A, c.alpha, 1, 0);
      const auto interpolation =
          amg::detail::distributed_interpolation(A, d, Array<double>(host, mine), k);
      EXPECT_EQ(interpolation.dropped, serial.dropped);
      if (c.name.find("rank-deficient") != std::string::npos) {
        EXPECT_GT(serial.dropped, 0u);
      }
      ASSERT_EQ(interpolation.P->global_cols(), coarse);
      const test::Entries P = test::gathered(*interpolation.P);
      ASSERT_EQ(P.size(), serial_P.size());
      for (const auto& [key, value] : serial_P) {
        const auto it = P.find(key);
        ASSERT_NE(it, P.end()) << "P(" << key.first << ", " << key.second << ") missing";
        EXPECT_NEAR(it->second, value, 1e-12 * std::abs(value) + 1e-300)
            << "P(" << key.first << ", " << key.second << ")";
      }
      const test::Entries R = test::gathered(*interpolation.R);
      ASSERT_EQ(R.size(), serial_P.size());
      for (const auto& [key, value] : R) {
        EXPECT_EQ(value, P.at({key.second, key.first})) << "R is not P^T";
      }
      // The coarse near-null space: the owner's rows of the serial one.
      const global_index cb = interpolation.P->col_partition().begin();
      const size_type local = interpolation.P->col_partition().local_size();
      const auto Bc = interpolation.coarse_near_null_space.to_vector();
      ASSERT_EQ(Bc.size(), std::size_t(local * k));
      for (int col = 0; col < k; ++col) {
        for (size_type r = 0; r < local; ++r) {
          const double want = serial_B[std::size_t(col * coarse + cb + r)];
          EXPECT_NEAR(Bc[std::size_t(col * local + r)], want, 1e-12 * std::abs(want) + 1e-14);
        }
      }
    }
  }
}

struct Outcome {
  SolveInfo info;
  amg::HierarchySummary summary;
};

/// Aggregation AMG (`cycle` with damped Jacobi) as the preconditioner of
/// `method` on A, b from the global index. The serial hierarchy forms
/// R A P by the same two sparse products as a distributed level.
Outcome solve_with(std::shared_ptr<const LevelOperator<double>> A,
                   std::shared_ptr<const Reduction<double>> reduction, const Vector<double>& b,
                   amg::CycleType cycle, const KrylovMethod& method, int dimension) {
  amg::HierarchyParams h;
  h.cycle = cycle;
  h.smoother = JacobiParams{.estimate_omega = true};
  h.coarse_size = 40;
  amg::Hierarchy<double> H(A,
                           amg::make_aggregation_coarsening<double>(
                               {.dimension = dimension, .galerkin_by_spgemm = true}),
                           h, reduction);
  Vector<double> x(b.executor(), b.size(), 0.0);
  Outcome o;
  o.info = solve(method, *A, b, x, &H, *reduction);
  o.summary = H.summary();
  return o;
}

/// Several near-null vectors through the whole hierarchy: the coarse
/// near-null space stays on the aggregates' owners from level to level, so
/// the levels and iterations are the serial ones.
TEST(DistributedAggregation, RigidBodyModesGiveTheSerialHierarchy) {
  const Communicator comm = world();
  const Executor host = Executor::host();
  auto problem = gallery::elasticity3d(host, 6);
  const auto modes = amg::rigid_body_modes(problem.coordinates, 3);
  const size_type n = problem.A.rows();
  amg::HierarchyParams h;
  h.smoother = JacobiParams{.estimate_omega = true};
  h.coarse_size = 60;
  const auto pcg = KrylovMethod{Cg{.params = test::relative_tolerance(1e-8)}};
  const auto coarsening = [](std::vector<Vector<double>> B) {
    return amg::make_aggregation_coarsening<double>(
        {.strength_threshold = 0.25, .galerkin_by_spgemm = true}, std::move(B));
  };
  std::vector<Vector<double>> whole;
  for (const auto& v : modes) whole.push_back(v.clone());
  auto serial_A = std::make_shared<const CsrOperator<double>>(problem.A.clone());
  const amg::Hierarchy<double> serial(serial_A, coarsening(std::move(whole)), h);
  const Vector<double> serial_b = block_of(RowPartition(n));
  Vector<double> serial_x(host, n, 0.0);
  const SolveInfo serial_info = solve(pcg, *serial_A, serial_b, serial_x, &serial);
  ASSERT_GE(serial.num_levels(), 3);
  for (const RowPartition& part : partitions(comm, n)) {
    SCOPED_TRACE("first row here " + std::to_string(part.begin()));
    std::vector<Vector<double>> mine;
    for (const auto& v : modes) {
      const auto all = v.values().to_vector();
      mine.emplace_back(Array<double>(
          host, std::vector<double>(all.begin() + part.begin(), all.begin() + part.end())));
    }
    auto A =
        std::make_shared<const DistributedOperator<double>>(scatter_rows(problem.A, part, host));
    auto reduction = std::make_shared<const DistributedReduction<double>>(comm);
    const amg::Hierarchy<double> dist(A, coarsening(std::move(mine)), h, reduction);
    const Vector<double> b = block_of(part);
    Vector<double> x(host, b.size(), 0.0);
    const SolveInfo info = solve(pcg, *A, b, x, &dist, *reduction);
    EXPECT_TRUE(info.converged()) << to_string(info.status);
    EXPECT_EQ(info.iterations, serial_info.iterations);
    ASSERT_EQ(dist.num_levels(), serial.num_levels());
    const auto s = serial.summary(), d = dist.summary();
    for (std::size_t l = 0; l < s.levels.size(); ++l) {
      EXPECT_EQ(d.levels[l].rows, s.levels[l].rows) << "level " << l;
      EXPECT_EQ(d.levels[l].nnz, s.levels[l].nnz) << "level " << l;
    }
  }
}

/// The whole hierarchy (every level's rows and nonzeros) and the PCG
/// (V-cycle) and FCG (K-cycle) iteration counts equal the serial ones.
TEST(DistributedAggregation, HierarchyAndIterationsEqualTheSerialOnes) {
  const Communicator comm = world();
  const Executor host = Executor::host();
  struct Case {
    std::string name;
    CsrMatrix<double> A;
    int dimension;
  };
  std::vector<Case> cases;
  cases.push_back({"poisson3d 12", gallery::poisson3d(host, 12, 12, 12), 3});
  cases.push_back({"poisson2d 40", gallery::poisson2d(host, 40, 40), 2});
  cases.push_back({"anisotropic2d 32", gallery::anisotropic2d(host, 32, 32, 0.001, 0.0), 2});
  const KrylovParams tolerance = test::relative_tolerance(1e-8);
  const std::vector<std::pair<amg::CycleType, KrylovMethod>> solvers = {
      {amg::CycleType::V, KrylovMethod{Cg{.params = tolerance}}},
      {amg::CycleType::K, KrylovMethod{Fcg{.params = tolerance}}}};
  for (const Case& c : cases) {
    auto serial_A = std::make_shared<const CsrOperator<double>>(c.A.clone());
    for (const auto& [cycle, method] : solvers) {
      const Outcome serial =
          solve_with(serial_A, std::make_shared<const Reduction<double>>(),
                     block_of(RowPartition(c.A.rows())), cycle, method, c.dimension);
      for (const RowPartition& part : partitions(comm, c.A.rows())) {
        SCOPED_TRACE(c.name + (cycle == amg::CycleType::K ? ", K-cycle FCG" : ", V-cycle PCG") +
                     ", first row here " + std::to_string(part.begin()));
        auto A = std::make_shared<const DistributedOperator<double>>(scatter_rows(c.A, part, host));
        const Outcome dist =
            solve_with(A, std::make_shared<const DistributedReduction<double>>(comm),
                       block_of(part), cycle, method, c.dimension);
        EXPECT_TRUE(dist.info.converged()) << to_string(dist.info.status);
        EXPECT_EQ(dist.info.iterations, serial.info.iterations);
        ASSERT_EQ(dist.summary.levels.size(), serial.summary.levels.size());
        for (std::size_t l = 0; l < serial.summary.levels.size(); ++l) {
          EXPECT_EQ(dist.summary.levels[l].rows, serial.summary.levels[l].rows) << "level " << l;
          EXPECT_EQ(dist.summary.levels[l].nnz, serial.summary.levels[l].nnz) << "level " << l;
        }
      }
    }
  }
}

/// A near-null vector of the wrong length on one process only: every
/// process throws (none waits in MIS(2)'s exchanges for it), the process
/// at fault naming the vector.
TEST(DistributedAggregation, AWrongNearNullSpaceOnOneProcessThrowsOnEvery) {
  const Communicator comm = world();
  const Executor host = Executor::host();
  const CsrMatrix<double> whole = gallery::poisson2d(host, 12, 12);
  const RowPartition part = RowPartition::uniform(comm, whole.rows());
  auto A = std::make_shared<const DistributedOperator<double>>(scatter_rows(whole, part, host));
  const bool faulty = comm.rank() == comm.size() - 1;
  std::vector<Vector<double>> B;
  B.emplace_back(host, part.local_size() + (faulty ? 1 : 0), 1.0);
  try {
    const amg::Hierarchy<double> H(A, amg::make_aggregation_coarsening<double>({}, std::move(B)),
                                   {}, std::make_shared<const DistributedReduction<double>>(comm));
    ADD_FAILURE() << "no exception";
  } catch (const error& e) {
    if (faulty) {
      EXPECT_NE(std::string(e.what()).find("near_null_space[0]"), std::string::npos) << e.what();
    } else {
      EXPECT_NE(std::string(e.what()).find("aggregation coarsening"), std::string::npos)
          << e.what();
    }
  }
}

/// On the GPU (one per process where there are enough): the aggregates
/// and P of the device run are the serial host ones (MIS(2) compares
/// integers and the weights' serial expression; Gram-Schmidt rounds each
/// product and sum separately on both backends). The hierarchy beyond is
/// left to DistributedDevice.AggregationAmgMatchesTheHostRun (the device's
/// sparse products contract multiply-adds).
TEST(DistributedAggregationDevice, AggregatesAndInterpolationAreTheSerialOnes) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  const Communicator comm = world();
  const Executor host = Executor::host(), dev = test::rank_device(comm);
  for (const Problem& problem : problems()) {
    const amg::Aggregates serial = amg::aggregate(amg::strength_graph(problem.A, problem.alpha), 3);
    const size_type n = problem.A.rows();
    const std::vector<double> ones(std::size_t(n), 1.0);
    const auto serial_P =
        amg::piecewise_constant_interpolation(serial, Array<double>(host, ones), 1).P;
    for (const RowPartition& part : partitions(comm, n)) {
      SCOPED_TRACE(problem.name + ", first row here " + std::to_string(part.begin()));
      const auto A = scatter_rows(problem.A, part, dev);
      const auto d = amg::detail::distributed_aggregates(A, problem.alpha, 3, 0);
      EXPECT_EQ(d.iterations, serial.iterations);
      EXPECT_EQ(all_of(d.aggregate.to_vector()), serial.aggregate.to_vector());
      const auto interpolation = amg::detail::distributed_interpolation(
          A, d, Array<double>(dev, part.local_size(), 1.0), 1);
      const test::Entries P = test::gathered(interpolation.P->to(host));
      const test::Entries expected = test::entries_of(serial_P);
      ASSERT_EQ(P.size(), expected.size());
      for (const auto& [key, value] : expected) EXPECT_EQ(P.at(key), value);
      // A second column 3 B: every aggregate drops it (the kept rows of R
      // and of the coarse B copied on the device).
      std::vector<double> two(std::size_t(part.local_size()), 1.0);
      two.resize(std::size_t(2 * part.local_size()), 3.0);
      const auto dropped = amg::detail::distributed_interpolation(A, d, Array<double>(dev, two), 2);
      EXPECT_EQ(dropped.dropped, serial.count());
      const test::Entries P2 = test::gathered(dropped.P->to(host));
      ASSERT_EQ(P2.size(), expected.size());
      for (const auto& [key, value] : expected) EXPECT_EQ(P2.at(key), value);
    }
  }
}

}  // namespace
}  // namespace strata
