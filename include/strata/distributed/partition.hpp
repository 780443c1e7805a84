#pragma once
/// \file
/// How the rows of a distributed matrix or vector are split over the
/// processes of a communicator: contiguous blocks, process r owning the
/// global rows [offset(r), offset(r + 1)) (hypre's row partitioning).
///
/// Offsets are 64-bit, so a global size may exceed 2^31 while each local
/// block stays within the 32-bit column indices of its diagonal block. The
/// split need not be even, and a process may own no rows at all (a coarse
/// level that has shrunk, a process that only solves). Every process keeps
/// the whole offset table (size() + 1 numbers): owner lookups are a binary
/// search with no communication, at a memory cost that is nothing beside
/// the rows themselves at the process counts of a GPU cluster.

#include <cstdint>
#include <memory>
#include <vector>

#include "strata/core/types.hpp"
#include "strata/distributed/communicator.hpp"

namespace strata {

/// 64-bit global row and column ids of distributed objects.
using global_index = std::int64_t;

class RowPartition {
 public:
  /// All `global_rows` rows on the one process of Communicator::self().
  explicit RowPartition(size_type global_rows = 0);

  /// From the offset table itself (the same on every process; nothing is
  /// communicated). Throws invalid_argument naming `offsets` unless it has
  /// comm.size() + 1 entries, starts at 0 and never decreases.
  RowPartition(Communicator comm, std::vector<global_index> offsets);

  /// Each process passes the number of rows it owns (collective): the
  /// blocks follow in rank order. Throws invalid_argument for a negative
  /// count (on every process, naming the process).
  static RowPartition from_local_rows(Communicator comm, size_type local_rows);

  /// `global_rows` split as evenly as possible, the first global_rows %
  /// size() processes owning one row more (no communication).
  static RowPartition uniform(Communicator comm, size_type global_rows);

  /// The rows of a block problem, `block_size` consecutive rows per node
  /// (a node's unknowns), split by whole nodes: the global_rows /
  /// block_size nodes split as uniform() splits rows, so that no node's
  /// rows straddle two processes (what smoothed aggregation with blocks
  /// needs). uniform_nodes(comm, n, 1) is uniform(comm, n). Throws
  /// invalid_argument naming the values unless block_size >= 1 divides
  /// global_rows.
  static RowPartition uniform_nodes(Communicator comm, size_type global_rows, int block_size);

  const Communicator& communicator() const noexcept { return comm_; }
  /// Processes (comm.size()).
  int processes() const noexcept { return comm_.size(); }
  size_type global_size() const noexcept { return offsets_->back(); }

  /// First global row of process `rank`; offset(size()) is global_size().
  global_index offset(int rank) const;
  /// Rows of process `rank`.
  size_type local_size(int rank) const { return offset(rank + 1) - offset(rank); }
  /// The process that owns global row `row` (invalid_argument naming the
  /// row unless 0 <= row < global_size()). With empty processes in the
  /// table, the one process whose range holds the row.
  int owner(global_index row) const;
  /// The whole table, size() + 1 entries.
  const std::vector<global_index>& offsets() const noexcept { return *offsets_; }

  /// This process's block.
  global_index begin() const noexcept { return (*offsets_)[static_cast<std::size_t>(rank_)]; }
  global_index end() const noexcept { return (*offsets_)[static_cast<std::size_t>(rank_) + 1]; }
  size_type local_size() const noexcept { return end() - begin(); }

  /// Same communicator size and the same offsets (the communicators may
  /// differ: a matrix and a vector made from separate Communicators of one
  /// MPI_Comm still fit together).
  friend bool operator==(const RowPartition& a, const RowPartition& b) noexcept {
    return a.processes() == b.processes() && *a.offsets_ == *b.offsets_;
  }
  friend bool operator!=(const RowPartition& a, const RowPartition& b) noexcept {
    return !(a == b);
  }

 private:
  Communicator comm_;
  int rank_ = 0;
  /// Shared: copies of a partition (every matrix and vector has one) cost
  /// a pointer, not a table.
  std::shared_ptr<const std::vector<global_index>> offsets_;
};

}  // namespace strata
