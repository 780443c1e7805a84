// Rows across processes (strata/distributed/rows.hpp) under MPI, 1 to 4
// processes: the distributed product, transpose and Galerkin triple product
// against the serial ones on the whole matrices, including partitions with
// a process that owns nothing, and value-only recompute.

#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <map>
#include <utility>
#include <vector>

#include "distributed/mpi_test_util.hpp"
#include "strata/distributed/mpi.hpp"
#include "strata/distributed/rows.hpp"
#include "strata/gallery/gallery.hpp"
#include "strata/matrix/spgemm.hpp"
#include "strata/matrix/transpose.hpp"

namespace strata {
namespace {

using test::Entries;
using test::entries_of;
using test::gathered;
using test::world;
using test::rows_of;

void expect_same(const Entries& got, const Entries& want, double scale = 1.0) {
  ASSERT_EQ(got.size(), want.size());
  for (const auto& [key, value] : want) {
    const auto it = got.find(key);
    ASSERT_NE(it, got.end()) << "missing (" << key.first << ", " << key.second << ")";
    EXPECT_NEAR(it->second, scale * value, 1e-13 * (1.0 + std::abs(value)))
        << "(" << key.first << ", " << key.second << ")";
  }
}

/// A rectangular interpolation-like matrix: fine row i interpolates from
/// coarse points i / 3 and a far one, so rows reach other processes' coarse
/// blocks and coarse points are reached from other processes' rows.
CsrMatrix<double> interpolation(size_type fine, size_type coarse) {
  std::vector<offset_type> p{0};
  std::vector<index_type> c;
  std::vector<double> v;
  for (size_type i = 0; i < fine; ++i) {
    const index_type near = static_cast<index_type>(std::min(coarse - 1, i / 3));
    const index_type far = static_cast<index_type>((i * 7 + 5) % coarse);
    c.push_back(std::min(near, far));
    v.push_back(0.5 + 0.01 * double(i % 11));
    if (far != near) {
      c.push_back(std::max(near, far));
      v.push_back(0.25 - 0.02 * double(i % 5));
    }
    p.push_back(static_cast<offset_type>(c.size()));
  }
  const Executor host = Executor::host();
  return CsrMatrix<double>(fine, coarse, Array<offset_type>(host, p), Array<index_type>(host, c),
                           Array<double>(host, v));
}

/// Partitions to try: even, and uneven with process 0 owning nothing.
std::vector<RowPartition> partitions(const Communicator& comm, size_type n) {
  std::vector<RowPartition> out{RowPartition::uniform(comm, n)};
  if (comm.size() > 1) {
    std::vector<global_index> offsets(static_cast<std::size_t>(comm.size()) + 1, 0);
    for (int r = 1; r <= comm.size(); ++r) {
      offsets[static_cast<std::size_t>(r)] = r == 1 ? 0 : n * (r - 1) / (comm.size() - 1);
    }
    offsets.back() = n;
    out.emplace_back(comm, offsets);
  }
  return out;
}

TEST(DistributedRows, ProductTransposeAndGalerkinEqualTheSerialOnes) {
  const Communicator comm = world();
  const CsrMatrix<double> A = gallery::poisson2d(Executor::host(), 17, 13);
  const size_type fine = A.rows(), coarse = 37;
  const CsrMatrix<double> P = interpolation(fine, coarse);
  const CsrMatrix<double> R = transpose(P);
  const CsrMatrix<double> AP = spgemm(A, P);
  const CsrMatrix<double> RAP = spgemm(R, AP);
  for (const RowPartition& rows : partitions(comm, fine)) {
    for (const RowPartition& cols : partitions(comm, coarse)) {
      const DistributedCsrMatrix<double> dA(rows, rows, rows_of(A, rows));
      const DistributedCsrMatrix<double> dP(rows, cols, rows_of(P, rows));
      const DistributedCsrMatrix<double> dAP = multiply(dA, dP);
      expect_same(gathered(dAP), entries_of(AP));
      const DistributedCsrMatrix<double> dR = transpose(dP);
      EXPECT_EQ(dR.row_partition(), cols);
      EXPECT_EQ(dR.col_partition(), rows);
      expect_same(gathered(dR), entries_of(R));
      expect_same(gathered(multiply(dR, dAP)), entries_of(RAP));
    }
  }
}

TEST(DistributedRows, RecomputeTakesNewValuesOnTheSamePattern) {
  const Communicator comm = world();
  const CsrMatrix<double> A = gallery::poisson3d(Executor::host(), 6, 5, 7);
  const CsrMatrix<double> P = interpolation(A.rows(), 41);
  const RowPartition rows = RowPartition::uniform(comm, A.rows());
  const RowPartition cols = RowPartition::uniform(comm, P.cols());
  DistributedCsrMatrix<double> dA(rows, rows, rows_of(A, rows));
  const DistributedCsrMatrix<double> dP(rows, cols, rows_of(P, rows));
  DistributedProduct<double> product(dA, dP);
  const Entries before = gathered(*product.result());
  expect_same(before, entries_of(spgemm(A, P)));
  test::scale_values(dA, 3.0);
  const DistributedCsrMatrix<double>* same = product.result().get();
  product.recompute(dA, dP);
  EXPECT_EQ(product.result().get(), same);
  expect_same(gathered(*product.result()), before, 3.0);
}

/// Each entry v of `nodes` as an r x c block of distinct values v (1 + a /
/// 10 + b / 100): a matrix whose unknowns come in nodes, as smoothed
/// aggregation's operators do.
CsrMatrix<double> in_blocks(const CsrMatrix<double>& nodes, int r, int c) {
  const std::vector<offset_type> np = nodes.row_ptr().to_vector();
  const std::vector<index_type> nc = nodes.col_idx().to_vector();
  const std::vector<double> nv = nodes.values().to_vector();
  std::vector<offset_type> p{0};
  std::vector<index_type> cols;
  std::vector<double> v;
  for (size_type I = 0; I < nodes.rows(); ++I) {
    for (int a = 0; a < r; ++a) {
      for (offset_type e = np[I]; e < np[I + 1]; ++e) {
        for (int b = 0; b < c; ++b) {
          cols.push_back(static_cast<index_type>(nc[e] * c + b));
          v.push_back(nv[e] * (1.0 + a / 10.0 + b / 100.0));
        }
      }
      p.push_back(static_cast<offset_type>(cols.size()));
    }
  }
  const Executor host = Executor::host();
  return CsrMatrix<double>(nodes.rows() * r, nodes.cols() * c, Array<offset_type>(host, p),
                           Array<index_type>(host, cols), Array<double>(host, v));
}

TEST(DistributedRows, ProductsInNodesEqualTheScalarOnes) {
  const Communicator comm = world();
  // A with 3 x 3 blocks, P with 3 x 6 (smoothed aggregation's shapes).
  const CsrMatrix<double> nodes = gallery::poisson2d(Executor::host(), 7, 6);
  const CsrMatrix<double> A = in_blocks(nodes, 3, 3);
  const CsrMatrix<double> P = in_blocks(interpolation(nodes.rows(), 11), 3, 6);
  const CsrMatrix<double> AP = spgemm(A, P);
  const CsrMatrix<double> RAP = spgemm(transpose(P), AP);
  const RowPartition rows = RowPartition::uniform_nodes(comm, A.rows(), 3);
  const RowPartition cols = RowPartition::uniform_nodes(comm, P.cols(), 6);
  DistributedCsrMatrix<double> dA(rows, rows, rows_of(A, rows));
  const DistributedCsrMatrix<double> dP(rows, cols, rows_of(P, rows));
  DistributedProduct<double> ap(dA, dP, {3, 3, 6});
  EXPECT_TRUE(ap.blocked());
  expect_same(gathered(*ap.result()), entries_of(AP));
  const DistributedCsrMatrix<double> dR = transpose(dP);
  DistributedProduct<double> rap(dR, *ap.result(), {6, 3, 6});
  EXPECT_TRUE(rap.blocked());
  expect_same(gathered(*rap.result()), entries_of(RAP));
  // Value-only recompute keeps the blocked path.
  test::scale_values(dA, 2.0);
  ap.recompute(dA, dP);
  rap.recompute(dR, *ap.result());
  expect_same(gathered(*rap.result()), entries_of(RAP), 2.0);

  // Rows split inside a node: the scalar product, with the same result.
  if (comm.size() > 1) {
    const RowPartition split = RowPartition::uniform(comm, A.rows() - 1);
    const CsrMatrix<double> A1 = gallery::poisson2d(Executor::host(), 1, A.rows() - 1);
    const DistributedCsrMatrix<double> dA1(split, split, rows_of(A1, split));
    const DistributedProduct<double> scalar(dA1, dA1, {3, 3, 3});
    // 125 rows: no process holds whole aligned nodes, nor whole ghost nodes.
    EXPECT_FALSE(scalar.blocked());
    expect_same(gathered(*scalar.result()), entries_of(spgemm(A1, A1)));
  }
}

TEST(DistributedRows, NodeSizesBelowOneAreRefused) {
  const Communicator comm = world();
  const CsrMatrix<double> A = gallery::poisson2d(Executor::host(), 4, 4);
  const RowPartition rows = RowPartition::uniform(comm, A.rows());
  const DistributedCsrMatrix<double> dA(rows, rows, rows_of(A, rows));
  try {
    const DistributedProduct<double> product(dA, dA, {1, 0, 1});
    FAIL() << "expected invalid_argument";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("expected sizes >= 1"), std::string::npos) << e.what();
  }
}

TEST(DistributedRows, MismatchedPartitionsAreNamed) {
  const Communicator comm = world();
  const CsrMatrix<double> A = gallery::poisson2d(Executor::host(), 8, 8);
  const RowPartition rows = RowPartition::uniform(comm, A.rows());
  const DistributedCsrMatrix<double> dA(rows, rows, rows_of(A, rows));
  const CsrMatrix<double> P = interpolation(A.rows(), 9);
  const RowPartition cols = RowPartition::uniform(comm, 9);
  const DistributedCsrMatrix<double> dP(rows, cols, rows_of(P, rows));
  try {
    (void)multiply(dP, dA);  // P's 9 columns against A's 64 rows
    FAIL() << "expected invalid_argument";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("expected X's columns split like Y's rows"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace strata
