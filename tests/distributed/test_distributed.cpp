// The distributed layer under MPI (run with 1 to 4 processes): partitions,
// the halo plan, SpMV against the serial SpMV, the deterministic reduction,
// Krylov solves and smoothers against their serial runs, and bad input.
//
// The serial reference matrices are small and built on every process for
// comparison only; the distributed matrices hold each process's share.

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "distributed/mpi_test_util.hpp"
#include "strata/distributed/gallery.hpp"
#include "strata/distributed/mpi.hpp"
#include "strata/distributed/operator.hpp"
#include "strata/distributed/reduction.hpp"
#include "strata/io/matrix_market.hpp"
#include "strata/smoother/smoother.hpp"
#include "strata/solver/krylov.hpp"
#include "strata/solver/spectral.hpp"

namespace strata {
namespace {

using test::expected_device_transfer;
using test::rank_device;
using test::uneven;
using test::value_at;
using test::world;
using test::serial_vector;

DistributedVector<double> distributed_vector(const RowPartition& partition) {
  return DistributedVector<double>(partition, test::block_of(partition));
}

/// Checks, on rank 0, that the gathered y equals y_serial to rounding.
void expect_same_vector(const DistributedVector<double>& y, const Vector<double>& y_serial,
                        double tolerance = 1e-13) {
  const Vector<double> gathered = gather_vector(y);
  if (y.partition().communicator().rank() != 0) return;
  const auto a = gathered.to_vector(), b = y_serial.to_vector();
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_NEAR(a[i], b[i], tolerance * (1.0 + std::abs(b[i]))) << "row " << i;
  }
}

/// The distributed SpMV of A (generated per process) against the serial one.
void check_spmv(const DistributedCsrMatrix<double>& A, const CsrMatrix<double>& serial) {
  const DistributedVector<double> x = distributed_vector(A.col_partition());
  DistributedVector<double> y(A.row_partition(), Executor::host(), 0.0);
  spmv(A, x, y);
  Vector<double> y_serial(Executor::host(), serial.rows());
  spmv(serial, serial_vector(serial.cols()), y_serial);
  expect_same_vector(y, y_serial);
}

// ------------------------------------------------------------------ partitions

TEST(Partition, UniformAndOwner) {
  const Communicator comm = world();
  const RowPartition p = RowPartition::uniform(comm, 10);
  EXPECT_EQ(p.global_size(), 10);
  size_type total = 0;
  for (int r = 0; r < comm.size(); ++r) {
    total += p.local_size(r);
    EXPECT_LE(p.local_size(r) - p.local_size(comm.size() - 1), 1);
    for (global_index g = p.offset(r); g < p.offset(r + 1); ++g) EXPECT_EQ(p.owner(g), r);
  }
  EXPECT_EQ(total, 10);
  EXPECT_EQ(p.local_size(), p.end() - p.begin());
}

TEST(Partition, FromLocalRowsWithEmptyProcesses) {
  const Communicator comm = world();
  // Odd ranks own nothing; even rank r owns r + 1 rows.
  const size_type mine = comm.rank() % 2 == 1 ? 0 : comm.rank() + 1;
  const RowPartition p = RowPartition::from_local_rows(comm, mine);
  EXPECT_EQ(p.local_size(), mine);
  size_type expected = 0;
  for (int r = 0; r < comm.size(); ++r) expected += r % 2 == 1 ? 0 : r + 1;
  EXPECT_EQ(p.global_size(), expected);
  for (global_index g = 0; g < p.global_size(); ++g) {
    const int owner = p.owner(g);
    EXPECT_TRUE(g >= p.offset(owner) && g < p.offset(owner + 1));
    EXPECT_GT(p.local_size(owner), 0);
  }
}

TEST(Partition, BadOffsetsNameTheArgument) {
  const Communicator comm = world();
  std::vector<global_index> short_table(static_cast<std::size_t>(comm.size()), 0);
  try {
    RowPartition(comm, short_table);
    FAIL() << "a table without size() + 1 entries was accepted";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("offsets has " + std::to_string(comm.size()) +
                                         " entries; expected one per process plus one"),
              std::string::npos)
        << e.what();
  }
  std::vector<global_index> decreasing(static_cast<std::size_t>(comm.size()) + 1, 5);
  decreasing[0] = 0;
  decreasing.back() = -1;  // below its predecessor for any process count
  EXPECT_THROW(RowPartition(comm, decreasing), invalid_argument);
  const RowPartition p = RowPartition::uniform(comm, 4);
  EXPECT_THROW((void)p.owner(4), invalid_argument);
  EXPECT_THROW((void)p.owner(-1), invalid_argument);
}

// ------------------------------------------------------------------ halo plan

/// The 1-D Laplacian (poisson2d with ny = 1), 3 rows per process: each
/// process needs the last row of its left neighbour and the first row of
/// its right one, and sends them its own first and last rows.
TEST(HaloPlan, TridiagonalCountsByHand) {
  const Communicator comm = world();
  const int p = comm.size(), me = comm.rank();
  const RowPartition part = RowPartition::uniform(comm, 3 * p);
  const DistributedCsrMatrix<double> A = gallery::poisson2d(part, Executor::host(), 3 * p, 1);
  const HaloPlan& plan = A.halo_plan();
  const int neighbours = (me > 0 ? 1 : 0) + (me + 1 < p ? 1 : 0);
  EXPECT_EQ(plan.ghost_count(), neighbours);
  EXPECT_EQ(plan.send_count(), neighbours);
  ASSERT_EQ(plan.receives().size(), static_cast<std::size_t>(neighbours));
  ASSERT_EQ(plan.sends().size(), static_cast<std::size_t>(neighbours));
  const std::vector<global_index> map = A.column_map().to_vector();
  const std::vector<index_type> send = plan.send_indices().to_vector();
  std::size_t k = 0;
  if (me > 0) {
    EXPECT_EQ(plan.receives()[k].rank, me - 1);
    EXPECT_EQ(plan.receives()[k].count, 1);
    EXPECT_EQ(map[k], 3 * me - 1);  // the left neighbour's last row
    EXPECT_EQ(plan.sends()[k].rank, me - 1);
    EXPECT_EQ(send[k], 0);  // my first row goes left
    ++k;
  }
  if (me + 1 < p) {
    EXPECT_EQ(plan.receives()[k].rank, me + 1);
    EXPECT_EQ(map[k], 3 * me + 3);  // the right neighbour's first row
    EXPECT_EQ(plan.sends()[k].rank, me + 1);
    EXPECT_EQ(send[k], 2);  // my last row goes right
  }
  // Every row: 3 entries in the interior, split between the blocks.
  EXPECT_EQ(A.diag().rows(), 3);
  EXPECT_EQ(A.offd().cols(), neighbours);
  EXPECT_EQ(A.offd().nnz(), neighbours);
  EXPECT_EQ(A.global_nnz(), 3 * (3 * p) - 2);
}

/// 2-D 5-point Laplacian on a 4 x (2p) grid, two grid lines per process:
/// each neighbouring process exchanges one grid line of 4 values.
TEST(HaloPlan, GridLinesOf2dLaplacian) {
  const Communicator comm = world();
  const int p = comm.size(), me = comm.rank();
  const RowPartition part = RowPartition::uniform(comm, 8 * p);
  const DistributedCsrMatrix<double> A = gallery::poisson2d(part, Executor::host(), 4, 2 * p);
  const int neighbours = (me > 0 ? 1 : 0) + (me + 1 < p ? 1 : 0);
  EXPECT_EQ(A.halo_plan().ghost_count(), 4 * neighbours);
  for (const HaloNeighbour& n : A.halo_plan().receives()) EXPECT_EQ(n.count, 4);
  for (const HaloNeighbour& n : A.halo_plan().sends()) EXPECT_EQ(n.count, 4);
  check_spmv(A, gallery::poisson2d(Executor::host(), 4, 2 * p));
}

/// The exchange on its own: the ghosts are the owners' values of the
/// column map's ids, and begin/finish must alternate.
TEST(HaloExchangeTest, GhostsAreTheOwnersValues) {
  const Communicator comm = world();
  const RowPartition part = uneven(comm, 6 * 6 * 4);
  const DistributedCsrMatrix<double> A = gallery::poisson3d(part, Executor::host(), 6, 6, 4);
  auto plan = std::make_shared<const HaloPlan>(A.halo_plan().to(Executor::host()));
  HaloExchange<double> exchange(plan, Executor::host());
  const DistributedVector<double> x = distributed_vector(part);
  exchange.begin(x.local());
  EXPECT_THROW(exchange.begin(x.local()), invalid_argument);  // one exchange at a time
  const std::vector<double> ghosts = exchange.finish().to_vector();
  const std::vector<global_index> ids = A.column_map().to_vector();
  ASSERT_EQ(ghosts.size(), ids.size());
  for (std::size_t k = 0; k < ids.size(); ++k) EXPECT_EQ(ghosts[k], value_at(ids[k])) << ids[k];
  EXPECT_THROW((void)exchange.finish(), invalid_argument);  // nothing begun
  // Aliased operands are refused before any message is posted (on every
  // process with rows; on one without, x and y are empty and cannot alias).
  Vector<double> v = x.local().clone();
  if (v.size() > 0) {
    EXPECT_THROW(A.apply(1.0, v, 0.0, v, v), invalid_argument);
  }
  check_spmv(A, gallery::poisson3d(Executor::host(), 6, 6, 4));  // and the matrix still works
}

/// Global column ids beyond 32 bits: 2e9 columns per process (each block
/// still fits a 32-bit local index), two rows per process, each coupling
/// to a column near the end of the next process's block. Nothing of the
/// column count is allocated: the column map, the plan and its 32-bit send
/// indices are what is checked.
TEST(HaloPlan, GlobalIdsBeyond32Bits) {
  const Communicator comm = world();
  const int p = comm.size(), me = comm.rank();
  constexpr global_index per_process = 2'000'000'000, far = 1'900'000'000;
  const RowPartition rows = RowPartition::uniform(comm, 2 * p);
  const RowPartition cols = RowPartition::uniform(comm, per_process * p);
  const int next = (me + 1) % p;
  const Executor host = Executor::host();
  const global_index own = cols.begin(), theirs = cols.offset(next) + far;
  const RowBlock<double> local{Array<offset_type>(host, {0, 2, 4}),
                               Array<global_index>(host, {own, theirs, own + 1, theirs + 1}),
                               Array<double>(host, {2.0, -1.0, 2.0, -1.0})};
  const DistributedCsrMatrix<double> A(rows, cols, local);
  EXPECT_EQ(A.global_cols(), per_process * p);
  EXPECT_EQ(A.local_cols(), per_process);
  EXPECT_EQ(A.global_nnz(), 4 * p);
  if (p == 1) {  // the "next" block is this one: everything is diagonal
    EXPECT_EQ(A.offd().nnz(), 0);
    EXPECT_EQ(A.diag().nnz(), 4);
    return;
  }
  EXPECT_EQ(A.column_map().to_vector(), (std::vector<global_index>{theirs, theirs + 1}));
  ASSERT_EQ(A.halo_plan().receives().size(), 1u);
  EXPECT_EQ(A.halo_plan().receives()[0].rank, next);
  ASSERT_EQ(A.halo_plan().sends().size(), 1u);
  EXPECT_EQ(A.halo_plan().sends()[0].rank, (me + p - 1) % p);
  EXPECT_EQ(
      A.halo_plan().send_indices().to_vector(),
      (std::vector<index_type>{static_cast<index_type>(far), static_cast<index_type>(far + 1)}));
}

// ------------------------------------------------------------------ SpMV

TEST(DistributedSpmv, EqualsSerialOnStencils) {
  const Communicator comm = world();
  const Executor host = Executor::host();
  check_spmv(gallery::poisson3d(RowPartition::uniform(comm, 6 * 5 * 4), host, 6, 5, 4),
             gallery::poisson3d(host, 6, 5, 4));
  check_spmv(gallery::diffusion3d_27pt(RowPartition::uniform(comm, 5 * 4 * 3), host, 5, 4, 3),
             gallery::diffusion3d_27pt(host, 5, 4, 3));
  check_spmv(gallery::convdiff3d(RowPartition::uniform(comm, 5 * 5 * 5), host, 5, 5, 5),
             gallery::convdiff3d(host, 5, 5, 5));
  check_spmv(gallery::anisotropic2d(RowPartition::uniform(comm, 9 * 7), host, 9, 7, 0.01, 0.5),
             gallery::anisotropic2d(host, 9, 7, 0.01, 0.5));
}

// `strata solve` generates a named problem with generate(name, n, comm,
// exec): each name must give the serial generate(name, n)'s rows.
TEST(DistributedSpmv, NamedProblemsEqualTheSerialOnes) {
  const Communicator comm = world();
  const Executor host = Executor::host();
  for (const std::string name :
       {"poisson2d", "poisson3d", "diffusion27", "aniso2d", "convdiff3d", "elasticity3d"}) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(gallery::has_distributed_generator(name));
    const DistributedCsrMatrix<double> A = gallery::generate(name, 5, comm, host);
    // Elasticity is split by whole nodes (3 rows each), the others evenly.
    EXPECT_EQ(A.row_partition(),
              RowPartition::uniform_nodes(comm, A.global_rows(), name == "elasticity3d" ? 3 : 1));
    check_spmv(A, gallery::generate(name, 5, host));
  }
  EXPECT_FALSE(gallery::has_distributed_generator("jumps3d"));
  EXPECT_THROW(gallery::generate("jumps3d", 4, comm, host), invalid_argument);
}

// ------------------------------------------------------------ elasticity

/// Max |a - b| over max |b| of two vectors (0 for equal ones).
double relative_gap(const std::vector<double>& a, const std::vector<double>& b) {
  EXPECT_EQ(a.size(), b.size());
  double gap = 0, scale = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    gap = std::max(gap, std::abs(a[i] - b[i]));
    scale = std::max(scale, std::abs(b[i]));
  }
  return scale > 0 ? gap / scale : gap;
}

/// Nodes split unevenly, whole on each process: process r owns a share
/// growing with r (process 0 none on several processes).
RowPartition uneven_nodes(const Communicator& comm, size_type rows) {
  const RowPartition nodes = uneven(comm, rows / 3);
  std::vector<global_index> offsets = nodes.offsets();
  for (global_index& o : offsets) o *= 3;
  return RowPartition(comm, offsets);
}

/// Each process's rows, coordinates and rigid-body modes are the serial
/// problem's (the generator sums each row's elements in the serial order,
/// so the rows are equal bit for bit; compared to 1e-14 of the largest
/// entry), on a cube and on a box long in z (the weak-scaling shape), split
/// evenly by nodes and unevenly with an empty process.
TEST(DistributedElasticity, RowsAndNodesEqualTheSerialProblem) {
  const Communicator comm = world();
  const Executor host = Executor::host();
  struct Box {
    size_type nex, ney, nez;
  };
  for (const Box box : {Box{3, 3, 3}, Box{2, 3, 5}}) {
    const gallery::ElasticityProblem serial =
        gallery::elasticity3d(host, box.nex, box.ney, box.nez);
    const size_type rows = serial.A.rows();
    for (const RowPartition& part :
         {RowPartition::uniform_nodes(comm, rows, 3), uneven_nodes(comm, rows)}) {
      SCOPED_TRACE("box " + std::to_string(box.nex) + " x " + std::to_string(box.ney) + " x " +
                   std::to_string(box.nez) + ", rows [" + std::to_string(part.begin()) + ", " +
                   std::to_string(part.end()) + ")");
      const gallery::DistributedElasticityProblem dist =
          gallery::elasticity3d(part, host, box.nex, box.ney, box.nez);
      ASSERT_EQ(dist.A.row_partition(), part);
      // This process's rows, as generated, against the serial rows.
      const RowBlock<double> mine =
          gallery::elasticity3d_rows(host, box.nex, box.ney, box.nez, {}, part.begin(), part.end());
      const RowBlock<double> expected = test::rows_of(serial.A, part);
      EXPECT_EQ(mine.row_ptr.to_vector(), expected.row_ptr.to_vector());
      EXPECT_EQ(mine.cols.to_vector(), expected.cols.to_vector());
      EXPECT_LE(relative_gap(mine.values.to_vector(), expected.values.to_vector()), 1e-14);
      // The whole distributed matrix, gathered, against the serial one.
      const test::Entries got = test::gathered(dist.A), want = test::entries_of(serial.A);
      ASSERT_EQ(got.size(), want.size());
      double scale = 0, gap = 0;
      for (const auto& [key, value] : want) {
        const auto it = got.find(key);
        ASSERT_NE(it, got.end()) << "entry (" << key.first << ", " << key.second << ")";
        scale = std::max(scale, std::abs(value));
        gap = std::max(gap, std::abs(it->second - value));
      }
      EXPECT_LE(gap, 1e-14 * scale);
      // The near-null blocks: this process's nodes.
      const auto block = [&](const Vector<double>& whole) {
        const auto all = whole.to_vector();
        return std::vector<double>(all.begin() + part.begin(), all.begin() + part.end());
      };
      EXPECT_EQ(dist.coordinates.to_vector(), block(serial.coordinates));
      ASSERT_EQ(dist.rigid_body_modes.size(), 6u);
      for (std::size_t m = 0; m < 6; ++m) {
        EXPECT_EQ(dist.rigid_body_modes[m].executor().name(), host.name());
        EXPECT_EQ(dist.rigid_body_modes[m].to_vector(), block(serial.rigid_body_modes[m]))
            << "mode " << m;
      }
    }
  }
  // The cube box is the serial cube.
  const test::Entries cube = test::entries_of(gallery::elasticity3d(host, 3).A);
  EXPECT_EQ(cube, test::entries_of(gallery::elasticity3d(host, 3, 3, 3).A));
}

/// A partition that splits a node's three rows is refused on every process,
/// naming the process and its rows; so are a partition of the wrong size
/// and a bad box.
TEST(DistributedElasticity, BadPartitionsAndSizesAreNamed) {
  const Communicator comm = world();
  const Executor host = Executor::host();
  const size_type rows = 3 * 2 * 3 * 3;  // box 2 x 2 x 2
  const auto message = [&](auto&& f) -> std::string {
    try {
      f();
    } catch (const invalid_argument& e) {
      return e.what();
    }
    return "(nothing thrown)";
  };
  if (comm.size() > 1) {
    // Process 0 owns rows [0, 4): node 1's rows 3..5 are split.
    std::vector<global_index> offsets(static_cast<std::size_t>(comm.size()) + 1, rows);
    offsets[0] = 0;
    offsets[1] = 4;
    const RowPartition split(comm, offsets);
    const std::string what = message([&] { (void)gallery::elasticity3d(split, host, 2, 2, 2); });
    EXPECT_NE(what.find("process 0 owns global rows [0, 4)"), std::string::npos) << what;
    EXPECT_NE(what.find("multiples of 3"), std::string::npos) << what;
  }
  const std::string size = message(
      [&] { (void)gallery::elasticity3d(RowPartition::uniform(comm, rows + 3), host, 2, 2, 2); });
  EXPECT_NE(size.find("the partition splits " + std::to_string(rows + 3) + " rows"),
            std::string::npos)
      << size;
  const std::string box = message(
      [&] { (void)gallery::elasticity3d(RowPartition::uniform(comm, rows), host, 2, 0, 2); });
  EXPECT_NE(box.find("ney must be >= 1, got 0"), std::string::npos) << box;
  const std::string range =
      message([&] { (void)gallery::elasticity3d_rows(host, 2, 2, 2, {}, 0, rows + 1); });
  EXPECT_NE(range.find("[0, " + std::to_string(rows + 1) + ")"), std::string::npos) << range;
}

TEST(DistributedSpmv, UnevenPartitionWithAnEmptyProcess) {
  const Communicator comm = world();
  const Executor host = Executor::host();
  const RowPartition part = uneven(comm, 7 * 6 * 5);
  if (comm.size() > 1 && comm.rank() == 0) {
    EXPECT_EQ(part.local_size(), 0);
  }
  const DistributedCsrMatrix<double> A = gallery::poisson3d(part, host, 7, 6, 5);
  EXPECT_EQ(A.local_rows(), part.local_size());
  check_spmv(A, gallery::poisson3d(host, 7, 6, 5));
  check_spmv(A.clone(), gallery::poisson3d(host, 7, 6, 5));  // a copy reuses the plan
  // y = 2 A x - 3 z through the operator, against the serial operator.
  const DistributedOperator<double> op(std::make_shared<const DistributedCsrMatrix<double>>(
      gallery::poisson3d(part, host, 7, 6, 5)));
  const DistributedVector<double> x = distributed_vector(part);
  DistributedVector<double> y = distributed_vector(part);
  op.apply(2.0, x.local(), -3.0, y.local(), y.local());
  const CsrMatrix<double> serial = gallery::poisson3d(host, 7, 6, 5);
  Vector<double> y_serial = serial_vector(serial.rows());
  spmv(2.0, serial, serial_vector(serial.cols()), -3.0, y_serial);
  expect_same_vector(y, y_serial);
}

/// One Jacobi sweep x = x0 + d .* (b - A x0) through the matrix (the
/// diagonal block fused, the boundary rows after the halo) and the fused
/// y = A x with x^T y equal the serial ones, on an uneven partition with an
/// empty process, and x0 = x is refused.
TEST(DistributedSpmv, JacobiSweepAndApplyDotEqualTheSerialOnes) {
  const Communicator comm = world();
  const Executor host = Executor::host();
  const RowPartition part = uneven(comm, 7 * 6 * 5);
  const auto A = std::make_shared<const DistributedCsrMatrix<double>>(
      gallery::poisson3d(part, host, 7, 6, 5));
  const DistributedOperator<double> op(A);
  const CsrMatrix<double> serial = gallery::poisson3d(host, 7, 6, 5);
  const size_type n = serial.rows();
  // d = 1 / (6 + value_at), b = 2 value_at, x0 = value_at.
  const auto make = [&](auto f, size_type first, size_type count) {
    std::vector<double> v(static_cast<std::size_t>(count));
    for (size_type i = 0; i < count; ++i) v[static_cast<std::size_t>(i)] = f(first + i);
    return Vector<double>(Array<double>(host, v));
  };
  const auto d_of = [](global_index i) { return 1.0 / (6.0 + value_at(i)); };
  const auto b_of = [](global_index i) { return 2.0 * value_at(i); };
  const auto x0_of = [](global_index i) { return value_at(i); };
  const Vector<double> d = make(d_of, part.begin(), part.local_size());
  const Vector<double> b = make(b_of, part.begin(), part.local_size());
  const Vector<double> x0 = make(x0_of, part.begin(), part.local_size());
  Vector<double> x(host, part.local_size());
  op.jacobi_sweep(d, b, x0, x);
  const Vector<double> sd = make(d_of, 0, n), sb = make(b_of, 0, n), sx0 = make(x0_of, 0, n);
  Vector<double> sx(host, n);
  CsrOperator<double>(std::make_shared<const CsrMatrix<double>>(serial.clone()))
      .jacobi_sweep(sd, sb, sx0, sx);
  const std::vector<double> got = x.to_vector(), want = sx.to_vector();
  for (size_type i = 0; i < part.local_size(); ++i) {
    EXPECT_NEAR(got[static_cast<std::size_t>(i)],
                want[static_cast<std::size_t>(part.begin() + i)], 1e-13)
        << "row " << part.begin() + i;
  }
  // apply_dot: y = A x0 and this process's part of x0^T y, summed over
  // the processes, against the serial product.
  Vector<double> y(host, part.local_size());
  double local = op.apply_dot(x0, y), total = 0;
  MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  Vector<double> sy(host, n);
  const double serial_dot = spmv_dot(serial, sx0, sy);
  EXPECT_NEAR(total, serial_dot, 1e-12 * std::abs(serial_dot));
  const std::vector<double> got_y = y.to_vector(), want_y = sy.to_vector();
  for (size_type i = 0; i < part.local_size(); ++i) {
    EXPECT_NEAR(got_y[static_cast<std::size_t>(i)],
                want_y[static_cast<std::size_t>(part.begin() + i)], 1e-13);
  }
  if (part.local_size() > 0) {  // checked before any message, so no process waits
    Vector<double> same = x0.clone();
    EXPECT_THROW(op.jacobi_sweep(d, b, same, same), invalid_argument);
  }
}

TEST(DistributedSpmv, ScatteredFromRankZeroEqualsGenerated) {
  const Communicator comm = world();
  const Executor host = Executor::host();
  const RowPartition part = uneven(comm, 6 * 6 * 3);
  const CsrMatrix<double> serial = gallery::poisson3d(host, 6, 6, 3);
  const CsrMatrix<double> nothing;  // what the other ranks pass
  const DistributedCsrMatrix<double> scattered =
      scatter_rows(comm.rank() == 0 ? serial : nothing, part, host);
  const DistributedCsrMatrix<double> generated = gallery::poisson3d(part, host, 6, 6, 3);
  EXPECT_EQ(scattered.diag().values().to_vector(), generated.diag().values().to_vector());
  EXPECT_EQ(scattered.diag().col_idx().to_vector(), generated.diag().col_idx().to_vector());
  EXPECT_EQ(scattered.offd().col_idx().to_vector(), generated.offd().col_idx().to_vector());
  EXPECT_EQ(scattered.column_map().to_vector(), generated.column_map().to_vector());
  check_spmv(scattered, serial);
  // A vector scattered from rank 0 and gathered back is unchanged.
  const Vector<double> whole = serial_vector(serial.rows());
  const DistributedVector<double> split = scatter_vector(whole, part, host);
  expect_same_vector(split, whole, 0.0);
}

TEST(DistributedMatrix, NoProcessHoldsTheWholeMatrix) {
  const Communicator comm = world();
  const Executor host = Executor::host();
  const RowPartition part = RowPartition::uniform(comm, 8 * 8 * 8);
  const DistributedCsrMatrix<double> A = gallery::poisson3d(part, host, 8, 8, 8);
  const CsrMatrix<double> serial = gallery::poisson3d(host, 8, 8, 8);
  const std::vector<offset_type> ptr = serial.row_ptr().to_vector();
  // Each process holds exactly its rows and their entries, no more.
  EXPECT_EQ(A.local_rows(), part.local_size());
  EXPECT_EQ(A.local_nnz(), ptr[static_cast<std::size_t>(part.end())] -
                               ptr[static_cast<std::size_t>(part.begin())]);
  EXPECT_EQ(A.global_nnz(), serial.nnz());
  if (comm.size() > 1) {
    EXPECT_LT(A.local_rows(), A.global_rows());
    EXPECT_LT(A.local_nnz(), A.global_nnz());
    // The ghosts are one plane per neighbour at most, not the matrix.
    EXPECT_LE(A.column_map().size(), 2 * 8 * 8);
  }
  EXPECT_EQ(A.diag().cols(), part.local_size());
}

TEST(DistributedMatrix, HaloTransferIsReported) {
  const Communicator comm = world();
  const DistributedCsrMatrix<double> A =
      gallery::poisson2d(RowPartition::uniform(comm, 16), Executor::host(), 4, 4);
  const std::string transfer = A.halo_transfer();
  EXPECT_EQ(transfer, comm.size() == 1 ? "single process" : "host memory");
  const std::string device = device_transfer(comm);
  if (comm.size() == 1) {
    EXPECT_EQ(device, "single process");
  } else {
    EXPECT_TRUE(device == "cuda-aware" || device == "staged through host") << device;
  }
  EXPECT_TRUE(mpi_compiled());
}

// ------------------------------------------------------------------ bad input

TEST(DistributedBadInput, ColumnOutOfRangeIsNamedOnEveryProcess) {
  const Communicator comm = world();
  const Executor host = Executor::host();
  const RowPartition part = RowPartition::uniform(comm, 2 * comm.size());
  // Two rows per process, each with its diagonal; the last process puts
  // column 2p (one past the end) in its second row.
  const bool bad = comm.rank() == comm.size() - 1;
  const global_index b = part.begin();
  const global_index last = bad ? 2 * comm.size() : b + 1;
  RowBlock<double> rows{Array<offset_type>(host, {0, 1, 2}), Array<global_index>(host, {b, last}),
                        Array<double>(host, {2.0, 2.0})};
  try {
    DistributedCsrMatrix<double> A(part, rows);
    FAIL() << "an out-of-range column was accepted";
  } catch (const invalid_argument& e) {
    const std::string what = e.what();
    if (bad) {
      EXPECT_NE(what.find("local.cols[1] = " + std::to_string(2 * comm.size()) +
                          " is not a global column id; expected one in [0, " +
                          std::to_string(2 * comm.size()) + ")"),
                std::string::npos)
          << what;
    } else {
      EXPECT_NE(what.find("process " + std::to_string(comm.size() - 1) + " rejected its input"),
                std::string::npos)
          << what;
    }
  }
}

/// Row pointers that start at 0 and end at the entry count but decrease in
/// between are refused before any entry is placed by them.
TEST(DistributedBadInput, DecreasingRowPointersAreNamed) {
  const Communicator comm = world();
  const Executor host = Executor::host();
  const RowPartition part = RowPartition::uniform(comm, 3 * comm.size());
  const global_index b = part.begin();
  RowBlock<double> rows{Array<offset_type>(host, {0, 3, 1, 3}),
                        Array<global_index>(host, {b, b + 1, b + 2}),
                        Array<double>(host, {2.0, -1.0, 2.0})};
  try {
    DistributedCsrMatrix<double> A(part, rows);
    FAIL() << "decreasing row pointers were accepted";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("local.row_ptr decreases at row 1 (3 then 1)"),
              std::string::npos)
        << e.what();
  }
}

TEST(DistributedBadInput, RowsThatDoNotCoverTheBlock) {
  const Communicator comm = world();
  const Executor host = Executor::host();
  const RowPartition part = RowPartition::uniform(comm, 3 * comm.size());
  // Every process passes two rows for its block of three.
  RowBlock<double> rows{Array<offset_type>(host, {0, 1, 2}),
                        Array<global_index>(host, {part.begin(), part.begin() + 1}),
                        Array<double>(host, {1.0, 1.0})};
  try {
    DistributedCsrMatrix<double> A(part, rows);
    FAIL() << "a row block of the wrong size was accepted";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("local.row_ptr has 3 entries; expected 4"),
              std::string::npos)
        << e.what();
  }
  // A partition that does not split the problem's rows.
  try {
    (void)gallery::poisson2d(RowPartition::uniform(comm, 15), host, 4, 4);
    FAIL() << "a partition of 15 rows was accepted for 16";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("the partition splits 15 rows; expected the problem's 16"),
              std::string::npos)
        << e.what();
  }
}

TEST(DistributedBadInput, VectorOfTheWrongLocalSize) {
  const Communicator comm = world();
  const Executor host = Executor::host();
  const RowPartition part = RowPartition::uniform(comm, 4 * comm.size());
  const DistributedCsrMatrix<double> A = gallery::poisson2d(part, host, 4, comm.size());
  Vector<double> x(host, part.local_size() + 1, 1.0), y(host, part.local_size());
  try {
    A.apply(1.0, x, 0.0, y, y);
    FAIL() << "x of the wrong size was accepted";
  } catch (const dimension_mismatch& e) {
    EXPECT_NE(
        std::string(e.what()).find("x has " + std::to_string(part.local_size() + 1) + " entries"),
        std::string::npos)
        << e.what();
  }
  EXPECT_THROW(DistributedVector<double>(part, Vector<double>(host, part.local_size() + 2)),
               dimension_mismatch);
}

// ------------------------------------------------------------------ reduction

TEST(DistributedReductionTest, DeterministicAndEqualToTheSerialSum) {
  const Communicator comm = world();
  const DistributedReduction<double> reduction(comm);
  const RowPartition part = uneven(comm, 1000);
  // Sums of multiples of 1/8 below 2^40 are exact in any order: the
  // distributed sum must equal the serial one bit for bit.
  double exact_local = 0.0, exact_serial = 0.0;
  for (global_index i = 0; i < 1000; ++i) {
    const double v = static_cast<double>(i % 17) / 8.0;
    exact_serial += v;
    if (i >= part.begin() && i < part.end()) exact_local += v;
  }
  EXPECT_EQ(reduction.global(exact_local), exact_serial);
  // Rounded sums: the same bits on every process and on every repetition,
  // and the serial sum to rounding.
  const DistributedVector<double> x = distributed_vector(part);
  const double first = reduction.dot(x.local(), x.local());
  for (int repeat = 0; repeat < 3; ++repeat) {
    EXPECT_EQ(reduction.dot(x.local(), x.local()), first);
  }
  std::vector<double> everyone(static_cast<std::size_t>(comm.size()));
  MPI_Allgather(&first, 1, MPI_DOUBLE, everyone.data(), 1, MPI_DOUBLE, MPI_COMM_WORLD);
  for (const double v : everyone) EXPECT_EQ(v, first);
  const Vector<double> whole = serial_vector(1000);
  const double serial = dot(whole, whole);
  if (comm.size() == 1) {
    EXPECT_EQ(first, serial);
  } else {
    EXPECT_NEAR(first, serial, 1e-13 * serial);
  }
  // Several sums in one combination.
  double pair[2] = {exact_local, 2.0 * exact_local};
  reduction.combine(Span<double>(pair, 2));
  EXPECT_EQ(pair[0], exact_serial);
  EXPECT_EQ(pair[1], 2.0 * exact_serial);
}

// ------------------------------------------------------------------ solvers

KrylovParams tolerance(double relative) { return test::relative_tolerance(relative); }

struct Solve {
  SolveInfo info;
  double true_relative_residual;
};

/// The serial solve of `method` on `serial`, preconditioned by `smoother`.
Solve serial_solve(const KrylovMethod& method, const CsrMatrix<double>& serial,
                   const SmootherParams& smoother) {
  auto A = std::make_shared<const CsrOperator<double>>(serial.clone());
  const std::unique_ptr<Smoother<double>> M = make_smoother<double>(A, smoother);
  const Vector<double> b = serial_vector(serial.rows());
  Vector<double> x(Executor::host(), serial.rows(), 0.0), r(Executor::host(), serial.rows());
  Solve s{solve(method, *A, b, x, M.get()), 0.0};
  A->residual(b, x, r);
  s.true_relative_residual = norm2(r) / norm2(b);
  return s;
}

/// The same solve distributed over `part`, everything unchanged but the
/// operator and the Reduction.
Solve distributed_solve(const KrylovMethod& method, DistributedCsrMatrix<double>&& matrix,
                        const SmootherParams& smoother) {
  const RowPartition part = matrix.row_partition();
  const DistributedReduction<double> reduction(part.communicator());
  auto A = std::make_shared<const DistributedOperator<double>>(std::move(matrix));
  const std::unique_ptr<Smoother<double>> M = make_smoother<double>(A, smoother, reduction);
  const DistributedVector<double> b = distributed_vector(part);
  DistributedVector<double> x(part, Executor::host(), 0.0), r(part, Executor::host());
  Solve s{solve(method, *A, b.local(), x.local(), M.get(), reduction), 0.0};
  A->residual(b.local(), x.local(), r.local());
  s.true_relative_residual = reduction.norm2(r.local()) / reduction.norm2(b.local());
  return s;
}

TEST(DistributedKrylov, CgWithJacobiAndL1JacobiMatchesSerial) {
  const Communicator comm = world();
  const Executor host = Executor::host();
  const KrylovMethod cg = Cg{.params = tolerance(1e-8)};
  for (const SmootherParams& smoother :
       {SmootherParams{JacobiParams{}}, SmootherParams{L1JacobiParams{}}}) {
    const Solve serial = serial_solve(cg, gallery::poisson3d(host, 10, 9, 8), smoother);
    for (const RowPartition& part : {RowPartition::uniform(comm, 720), uneven(comm, 720)}) {
      const Solve dist = distributed_solve(cg, gallery::poisson3d(part, host, 10, 9, 8), smoother);
      EXPECT_TRUE(dist.info.converged()) << to_string(dist.info.status);
      EXPECT_EQ(dist.info.iterations, serial.info.iterations) << smoother_name(smoother);
      EXPECT_LE(dist.true_relative_residual, 1e-8);
      EXPECT_NEAR(dist.info.residual_norm, serial.info.residual_norm,
                  1e-6 * serial.info.residual_norm);
    }
  }
}

/// l1-Jacobi must count the off-diagonal block in its row sums: on a
/// matrix whose rows are not diagonally dominant by the diagonal block
/// alone, leaving it out would change the smoother and the iterations.
TEST(DistributedKrylov, L1JacobiRowSumsIncludeTheOffDiagonalBlock) {
  const Communicator comm = world();
  const Executor host = Executor::host();
  const RowPartition part = RowPartition::uniform(comm, 6 * 6 * 6);
  auto A = std::make_shared<const DistributedOperator<double>>(
      gallery::diffusion3d_27pt(part, host, 6, 6, 6));
  Vector<double> d(host, A->rows());
  ASSERT_EQ(A->scaling(DiagonalScaling::inverse_l1_norm, d), -1);
  const CsrMatrix<double> serial = gallery::diffusion3d_27pt(host, 6, 6, 6);
  Vector<double> d_serial(host, serial.rows());
  ASSERT_EQ(CsrOperator<double>(serial.clone()).scaling(DiagonalScaling::inverse_l1_norm, d_serial),
            -1);
  const auto mine = d.to_vector(), all = d_serial.to_vector();
  for (size_type i = 0; i < A->rows(); ++i) {
    EXPECT_DOUBLE_EQ(mine[static_cast<std::size_t>(i)],
                     all[static_cast<std::size_t>(part.begin() + i)])
        << "global row " << part.begin() + i;
  }
}

TEST(DistributedKrylov, ChebyshevEstimateAndSolveMatchSerial) {
  const Communicator comm = world();
  const Executor host = Executor::host();
  const RowPartition part = uneven(comm, 9 * 8 * 7);
  // The Lanczos estimate hashes global row indices and sums through the
  // Reduction: the same estimate as the serial one, to rounding.
  auto A =
      std::make_shared<const DistributedOperator<double>>(gallery::poisson3d(part, host, 9, 8, 7));
  const DistributedReduction<double> reduction(comm);
  const double rho = lanczos_max_eigenvalue<double>(*A, 10, reduction);
  const double rho_serial =
      lanczos_max_eigenvalue<double>(CsrOperator<double>(gallery::poisson3d(host, 9, 8, 7)), 10);
  EXPECT_NEAR(rho, rho_serial, 1e-10 * rho_serial);
  const double radius = arnoldi_spectral_radius<double>(*A, 6, reduction);
  const double radius_serial =
      arnoldi_spectral_radius<double>(CsrOperator<double>(gallery::poisson3d(host, 9, 8, 7)), 6);
  EXPECT_NEAR(radius, radius_serial, 1e-8 * radius_serial);

  const KrylovMethod cg = Cg{.params = tolerance(1e-8)};
  const SmootherParams chebyshev = ChebyshevParams{};
  const Solve serial = serial_solve(cg, gallery::poisson3d(host, 9, 8, 7), chebyshev);
  const Solve dist = distributed_solve(cg, gallery::poisson3d(part, host, 9, 8, 7), chebyshev);
  EXPECT_TRUE(dist.info.converged());
  EXPECT_EQ(dist.info.iterations, serial.info.iterations);
  EXPECT_LE(dist.true_relative_residual, 1e-8);
}

TEST(DistributedKrylov, NonsymmetricMethodsRunUnchanged) {
  const Communicator comm = world();
  const Executor host = Executor::host();
  const RowPartition part = uneven(comm, 8 * 8 * 8);
  const KrylovParams params = tolerance(1e-8);
  for (const KrylovMethod& method : {KrylovMethod{Bicgstab{.params = params}},
                                     KrylovMethod{Gmres{.params = params, .restart = 20}},
                                     KrylovMethod{Fgmres{.params = params, .restart = 20}}}) {
    const Solve serial = serial_solve(method, gallery::convdiff3d(host, 8, 8, 8), JacobiParams{});
    const Solve dist =
        distributed_solve(method, gallery::convdiff3d(part, host, 8, 8, 8), JacobiParams{});
    EXPECT_TRUE(dist.info.converged()) << method_name(method);
    EXPECT_LE(dist.true_relative_residual, 1e-8) << method_name(method);
    // Rounding differs from the serial run only in the order of row and
    // process sums: the iterations agree to within one.
    EXPECT_LE(std::abs(dist.info.iterations - serial.info.iterations), 1) << method_name(method);
  }
}

/// A MatrixMarket file read once, on rank 0, and scattered to the owners
/// (scatter_rows): SpMV and Jacobi-CG as in the serial run.
/// On the GPU (one per process where there are enough, else shared): a
/// matrix generated on the device multiplies like the serial one, its halo
/// exchanged through device buffers (NCCL with a GPU per process, directly
/// with CUDA-aware MPI, else staged through the host: device_transfer says
/// which, and the test checks it is the one expected), and CG with Jacobi
/// takes the serial iteration count to a true residual that meets the
/// tolerance.
TEST(DistributedDevice, SpmvAndCgMatchTheSerialRun) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  const Communicator comm = world();
  const Executor host = Executor::host(), dev = rank_device(comm);
  const RowPartition part = uneven(comm, 10 * 9 * 8);
  const CsrMatrix<double> serial = gallery::poisson3d(host, 10, 9, 8);
  {
    const DistributedCsrMatrix<double> A = gallery::poisson3d(part, dev, 10, 9, 8);
    EXPECT_EQ(A.diag().executor().location(), Location::cuda);
    const DistributedVector<double> x(part, distributed_vector(part).local().to(dev));
    DistributedVector<double> y(part, dev, 0.0);
    spmv(A, x, y);
    Vector<double> y_serial(host, serial.rows());
    spmv(serial, serial_vector(serial.cols()), y_serial);
    expect_same_vector(DistributedVector<double>(part, y.local().to(host)), y_serial);
    EXPECT_EQ(std::string(A.halo_transfer()), expected_device_transfer(comm));
    EXPECT_EQ(std::string(device_transfer(comm)), expected_device_transfer(comm))
        << device_transfer_reason(comm);
    if (comm.rank() == 0) {
      std::printf("    halo on the device: %s%s%s\n", device_transfer(comm),
                  device_transfer_reason(comm).empty() ? "" : ", because ",
                  device_transfer_reason(comm).c_str());
    }
    // The same product again, and one into a second vector while nothing
    // waits on the host between them: stream order alone keeps the ghosts
    // of one product from being overwritten by the next exchange.
    DistributedVector<double> y2(part, dev, 0.0);
    spmv(A, y, y2);
    spmv(A, x, y);
    expect_same_vector(DistributedVector<double>(part, y.local().to(host)), y_serial);
    Vector<double> y2_serial(host, serial.rows());
    spmv(serial, y_serial, y2_serial);
    expect_same_vector(DistributedVector<double>(part, y2.local().to(host)), y2_serial);
  }
  const KrylovMethod cg = Cg{.params = tolerance(1e-8)};
  const Solve reference = serial_solve(cg, serial, JacobiParams{});
  const DistributedReduction<double> reduction(comm);
  auto A =
      std::make_shared<const DistributedOperator<double>>(gallery::poisson3d(part, dev, 10, 9, 8));
  const std::unique_ptr<Smoother<double>> M =
      make_smoother<double>(A, SmootherParams{JacobiParams{}}, reduction);
  const Vector<double> b = distributed_vector(part).local().to(dev);
  Vector<double> x(dev, part.local_size(), 0.0), r(dev, part.local_size());
  const SolveInfo info = solve(cg, *A, b, x, M.get(), reduction);
  A->residual(b, x, r);
  EXPECT_TRUE(info.converged()) << to_string(info.status);
  EXPECT_EQ(info.iterations, reference.info.iterations);
  EXPECT_LE(reduction.norm2(r) / reduction.norm2(b), 1e-8);
}

/// STRATA_DEVICE_TRANSPORT chooses the device halo's transport: "mpi"
/// stages (or hands device buffers to a CUDA-aware MPI) even where NCCL
/// could be used, with the reason reported, and the product is the same;
/// a value that is none of auto, nccl, mpi is an error naming the variable,
/// on every process.
TEST(DistributedDevice, TransportFromTheEnvironment) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  const Communicator probe = world();
  if (probe.size() == 1) GTEST_SKIP() << "one process sends nothing";
  const Executor host = Executor::host();
  const auto with_setting = [](const char* value, const auto& body) {
    ::setenv("STRATA_DEVICE_TRANSPORT", value, 1);
    try {
      body();
    } catch (...) {
      ::unsetenv("STRATA_DEVICE_TRANSPORT");
      throw;
    }
    ::unsetenv("STRATA_DEVICE_TRANSPORT");
  };
  with_setting("mpi", [&] {
    const Communicator comm = world();  // a fresh one: the choice is made once per communicator
    const Executor dev = rank_device(comm);
    const RowPartition part = uneven(comm, 6 * 7 * 5);
    const DistributedCsrMatrix<double> A = gallery::poisson3d(part, dev, 6, 7, 5);
    EXPECT_EQ(std::string(A.halo_transfer()), expected_device_transfer(comm));
    EXPECT_NE(std::string(A.halo_transfer()), "nccl");
    EXPECT_NE(device_transfer_reason(comm).find("STRATA_DEVICE_TRANSPORT=mpi"), std::string::npos)
        << device_transfer_reason(comm);
    const DistributedVector<double> x(part, distributed_vector(part).local().to(dev));
    DistributedVector<double> y(part, dev, 0.0);
    spmv(A, x, y);
    const CsrMatrix<double> serial = gallery::poisson3d(host, 6, 7, 5);
    Vector<double> y_serial(host, serial.rows());
    spmv(serial, serial_vector(serial.cols()), y_serial);
    expect_same_vector(DistributedVector<double>(part, y.local().to(host)), y_serial);
  });
  with_setting("infiniband", [&] {
    const Communicator comm = world();
    const RowPartition part = uneven(comm, 6 * 7 * 5);
    try {
      (void)gallery::poisson3d(part, rank_device(comm), 6, 7, 5);
      ADD_FAILURE() << "expected invalid_argument";
    } catch (const invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("STRATA_DEVICE_TRANSPORT is 'infiniband'"),
                std::string::npos)
          << e.what();
    }
  });
}

TEST(DistributedSpmv, MatrixMarketFileReadOnRankZero) {
  const std::string dir = STRATA_TEST_DATA_DIR;
  if (dir.empty()) GTEST_SKIP() << "no test matrices (STRATA_TEST_DATA_DIR)";
  const Communicator comm = world();
  const Executor host = Executor::host();
  // The serial reference is read everywhere; the distributed matrix only
  // from rank 0's copy.
  const CsrMatrix<double> serial = io::read_matrix_market(dir + "/kokkos/Laplace3D10.mtx");
  const RowPartition part = uneven(comm, serial.rows());
  const CsrMatrix<double> nothing;
  DistributedCsrMatrix<double> A = scatter_rows(comm.rank() == 0 ? serial : nothing, part, host);
  check_spmv(A, serial);
  const KrylovMethod cg = Cg{.params = tolerance(1e-8)};
  const Solve reference = serial_solve(cg, serial, JacobiParams{});
  const Solve dist = distributed_solve(cg, std::move(A), JacobiParams{});
  EXPECT_TRUE(dist.info.converged());
  EXPECT_EQ(dist.info.iterations, reference.info.iterations);
  EXPECT_LE(dist.true_relative_residual, 1e-8);
}

}  // namespace
}  // namespace strata
