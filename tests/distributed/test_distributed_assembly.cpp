// Distributed assembly under MPI: entries for rows owned by other
// processes travel to their owners, with the serial assembler's set/add
// semantics and the arrival order extended by rank.

#include <gtest/gtest.h>
#include <mpi.h>

#include <vector>

#include "strata/distributed/assembly.hpp"
#include "strata/distributed/mpi.hpp"

namespace strata {
namespace {

Communicator world() { return make_communicator(MPI_COMM_WORLD); }

/// Element e of the 1-D mesh couples nodes e and e + 1 with [1 -1; -1 1].
/// Process r assembles the elements whose first node it owns, so the
/// element on each partition boundary adds to a row of the next process.
void add_elements(const RowPartition& part, size_type nodes,
                  DistributedMatrixAssembler<double>& assembler) {
  std::vector<size_type> rows, cols;
  std::vector<double> values;
  for (global_index e = part.begin(); e < part.end() && e + 1 < nodes; ++e) {
    const size_type node[2] = {e, e + 1};
    const double k[2][2] = {{1.0, -1.0}, {-1.0, 1.0}};
    for (int a = 0; a < 2; ++a) {
      for (int b = 0; b < 2; ++b) {
        rows.push_back(node[a]);
        cols.push_back(node[b]);
        values.push_back(k[a][b]);
      }
    }
  }
  const Executor host = Executor::host();
  assembler.add_values(Array<size_type>(host, rows), Array<size_type>(host, cols),
                       Array<double>(host, values));
}

/// Row `row` of the distributed matrix as a dense row of `n` entries, on
/// the process that owns it (empty elsewhere).
std::vector<double> dense_row(const DistributedCsrMatrix<double>& A, global_index row,
                              size_type n) {
  const RowPartition& part = A.row_partition();
  if (row < part.begin() || row >= part.end()) return {};
  std::vector<double> dense(static_cast<std::size_t>(n), 0.0);
  const size_type i = row - part.begin();
  const auto dp = A.diag().row_ptr().to_vector();
  const auto dc = A.diag().col_idx().to_vector();
  const auto dv = A.diag().values().to_vector();
  for (offset_type k = dp[i]; k < dp[i + 1]; ++k) dense[part.begin() + dc[k]] += dv[k];
  const auto op = A.offd().row_ptr().to_vector();
  const auto oc = A.offd().col_idx().to_vector();
  const auto ov = A.offd().values().to_vector();
  const auto map = A.column_map().to_vector();
  for (offset_type k = op[i]; k < op[i + 1]; ++k) dense[map[oc[k]]] += ov[k];
  return dense;
}

TEST(DistributedAssembly, ElementsAcrossProcessesEqualTheSerialMatrix) {
  const Communicator comm = world();
  const size_type nodes = 4 * comm.size() + 1;
  const RowPartition part = RowPartition::uniform(comm, nodes);
  DistributedMatrixAssembler<double> assembler(part, Executor::host());
  add_elements(part, nodes, assembler);
  // The element on a boundary adds two entries to the next process's first
  // row: (e + 1, e) and (e + 1, e + 1).
  const bool boundary = part.end() < nodes && part.local_size() > 0;
  EXPECT_EQ(assembler.off_process_count(), boundary ? 2 : 0);
  assembler.assemble();
  EXPECT_EQ(assembler.off_process_count(), 0);
  const bool from_left = part.begin() > 0 && part.local_size() > 0;
  EXPECT_EQ(assembler.received_count(), from_left ? 2 : 0);
  const DistributedCsrMatrix<double> A = assembler.matrix();
  EXPECT_EQ(A.global_nnz(), 3 * nodes - 2);
  for (global_index row = part.begin(); row < part.end(); ++row) {
    const std::vector<double> dense = dense_row(A, row, nodes);
    const bool end = row == 0 || row == nodes - 1;
    EXPECT_EQ(dense[static_cast<std::size_t>(row)], end ? 1.0 : 2.0) << "row " << row;
    if (row > 0) {
      EXPECT_EQ(dense[static_cast<std::size_t>(row - 1)], -1.0) << "row " << row;
    }
    if (row + 1 < nodes) {
      EXPECT_EQ(dense[static_cast<std::size_t>(row + 1)], -1.0) << "row " << row;
    }
  }
}

/// hypre's semantics across processes: on the owner its own entries come
/// first, then each other process's in rank order; the last set wins and
/// the adds after it are summed onto it; repeated adds are summed.
TEST(DistributedAssembly, SetAndAddFromEveryProcessKeepTheSemantics) {
  const Communicator comm = world();
  const int p = comm.size(), me = comm.rank();
  const size_type nodes = 2 * p + 1;
  // Process 0 owns nothing when there are several: every entry it makes is remote.
  std::vector<global_index> offsets(static_cast<std::size_t>(p) + 1, 0);
  for (int r = 1; r <= p; ++r) offsets[static_cast<std::size_t>(r)] = p == 1 ? nodes : 2 * r + 1;
  offsets[1] = p == 1 ? nodes : 0;
  const RowPartition part(comm, offsets);
  const Executor host = Executor::host();
  DistributedMatrixAssembler<double> assembler(part, host);
  const global_index first = 0, last = nodes - 1;
  // Everyone: a set of (first, first) to 10 + rank, then an add of 1.
  assembler.set_values(Array<size_type>(host, {first}), Array<size_type>(host, {first}),
                       Array<double>(host, {10.0 + me}));
  assembler.add_values(Array<size_type>(host, {first}), Array<size_type>(host, {first}),
                       Array<double>(host, {1.0}));
  // Everyone: the same add twice on (last, last), and one on (last, first).
  assembler.add_values(Array<size_type>(host, {last, last, last}),
                       Array<size_type>(host, {last, last, first}),
                       Array<double>(host, {0.5, 0.5, 0.25}));
  // The owners of the other rows put their diagonal.
  std::vector<size_type> own;
  for (global_index r = part.begin(); r < part.end(); ++r) {
    if (r != first && r != last) own.push_back(r);
  }
  assembler.add_values(Array<size_type>(host, own), Array<size_type>(host, own),
                       Array<double>(host, std::vector<double>(own.size(), 3.0)));
  assembler.assemble();
  const DistributedCsrMatrix<double> A = assembler.matrix();
  const std::vector<double> row_first = dense_row(A, first, nodes);
  if (!row_first.empty()) {
    // The owner (rank 1, or 0 alone) applies its own set and add first, then
    // those received in rank order: the last set is the highest other
    // rank's, and its add follows it.
    const int last_setter = p <= 2 ? 0 : p - 1;
    EXPECT_EQ(row_first[0], 10.0 + last_setter + 1.0);
  }
  const std::vector<double> row_last = dense_row(A, last, nodes);
  if (!row_last.empty()) {
    EXPECT_EQ(row_last[static_cast<std::size_t>(last)], 1.0 * p);  // 2 x 0.5 per process
    EXPECT_EQ(row_last[0], 0.25 * p);
  }
  for (const size_type r : own) EXPECT_EQ(dense_row(A, r, nodes)[static_cast<std::size_t>(r)], 3.0);
  EXPECT_EQ(A.global_nnz(), nodes + 1);

  // Re-assembly: a set from every process replaces the stored value.
  assembler.set_values(Array<size_type>(host, {last}), Array<size_type>(host, {last}),
                       Array<double>(host, {7.0}));
  assembler.assemble();
  const std::vector<double> again = dense_row(assembler.matrix(), last, nodes);
  if (!again.empty()) {
    EXPECT_EQ(again[static_cast<std::size_t>(last)], 7.0);
  }
}

TEST(DistributedAssembly, VectorEntriesForOtherProcesses) {
  const Communicator comm = world();
  const int p = comm.size(), me = comm.rank();
  const RowPartition part = RowPartition::uniform(comm, 3 * p);
  const Executor host = Executor::host();
  DistributedVectorAssembler<double> assembler(part, host);
  // Every process adds 1 to every entry; the last process then sets entry 0
  // to 5 (a remote set when there are several: it reaches the owner after
  // the owner's own add and those of the processes before it).
  std::vector<size_type> all(static_cast<std::size_t>(3 * p));
  for (size_type i = 0; i < 3 * p; ++i) all[static_cast<std::size_t>(i)] = i;
  assembler.add_values(Array<size_type>(host, all),
                       Array<double>(host, std::vector<double>(all.size(), 1.0)));
  if (me == p - 1) {
    assembler.set_values(Array<size_type>(host, {0}), Array<double>(host, {5.0}));
  }
  assembler.assemble();
  const std::vector<double> mine = assembler.vector().local().to_vector();
  for (size_type i = 0; i < part.local_size(); ++i) {
    const global_index g = part.begin() + i;
    // Entry 0: the owner's add, the adds of the processes before p - 1, then
    // p - 1's add and set: the set discards all of them.
    EXPECT_EQ(mine[static_cast<std::size_t>(i)], g == 0 ? 5.0 : 1.0 * p) << "entry " << g;
  }
}

}  // namespace
}  // namespace strata
