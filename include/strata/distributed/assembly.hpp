#pragma once
/// \file
/// Distributed assembly: hypre's IJ interface across processes. Each
/// process adds and sets entries (i, j, v) with global indices, for any
/// row; entries of rows it owns go to its local assembler
/// (strata/matrix/assembly.hpp: the sort, segmented scan and reduction of
/// the hypre paper), entries of rows owned elsewhere are stashed apart, in
/// arrival order, and assemble() sends them to their owners.
///
/// Semantics, per position and assemble(), as the serial assembler's with
/// the arrival order extended across processes: on the owner, its own
/// entries come first, then those received, process after process in rank
/// order, each process's in the order it made them. So the last set wins
/// and discards everything before it, local contributions included (hypre's
/// rule for a remote set), the adds after it are summed onto it, and adds
/// alone are added to the stored value. The order is fixed, so the result
/// is the same bits run after run for a fixed number of processes.
///
/// The exchange: the off-process entries are grouped by owner (a stable
/// sort by owner on the host, where they go through MPI anyway: they are
/// the entries on partition boundaries, few beside the owned ones), the
/// owners learn the counts from one all-to-all and receive the entries in
/// one message per array and sender, and insert them, in runs of equal
/// mode, into their local assembler before it assembles.
///
/// Limits: the columns are global, so the assembled owned rows (a
/// CsrMatrix of owned rows x all columns, the local assembler's output)
/// need a global column count that fits a 32-bit index (checked:
/// invalid_argument at construction). matrix() then splits them into the
/// distributed matrix's blocks.

#include <memory>

#include "strata/distributed/matrix.hpp"
#include "strata/matrix/assembly.hpp"

namespace strata {

template <class T>
class DistributedMatrixAssembler {
 public:
  /// Assembles the square matrix whose rows and columns are split by
  /// `partition`, on `exec`. options.row_begin/row_end are taken from the
  /// partition (values passed there are ignored); the capacity and growth
  /// options apply to the local stash.
  DistributedMatrixAssembler(RowPartition partition, const Executor& exec,
                             const AssemblyOptions& options = {});

  /// Stashes entries with global indices (any rows; see the file comment).
  /// Same checks as MatrixAssembler::insert.
  void insert(InsertMode mode, const Array<size_type>& rows, const Array<size_type>& cols,
              const Array<T>& values) {
    local_.insert(mode, rows, cols, values);
  }
  void add_values(const Array<size_type>& rows, const Array<size_type>& cols,
                  const Array<T>& values) {
    insert(InsertMode::add, rows, cols, values);
  }
  void set_values(const Array<size_type>& rows, const Array<size_type>& cols,
                  const Array<T>& values) {
    insert(InsertMode::set, rows, cols, values);
  }

  /// Collective: sends the off-process entries to their owners and
  /// assembles the owned rows with everything received.
  void assemble();

  /// Collective: the distributed matrix of what has been assembled so far
  /// (a copy; the assembler keeps its pattern for re-assembly).
  DistributedCsrMatrix<T> matrix() const;

  /// Entries for rows owned elsewhere, waiting for assemble().
  size_type off_process_count() const noexcept { return local_.off_process_count(); }
  /// Entries received from other processes by the last assemble().
  size_type received_count() const noexcept { return received_; }
  const RowPartition& partition() const noexcept { return partition_; }
  const Executor& executor() const noexcept { return local_.executor(); }

 private:
  RowPartition partition_;
  MatrixAssembler<T> local_;
  size_type received_ = 0;
};

/// The same for a vector distributed by `partition` (a right-hand side
/// assembled from element vectors): owned entries start at zero.
template <class T>
class DistributedVectorAssembler {
 public:
  DistributedVectorAssembler(RowPartition partition, const Executor& exec,
                             const AssemblyOptions& options = {});

  void insert(InsertMode mode, const Array<size_type>& indices, const Array<T>& values) {
    local_.insert(mode, indices, values);
  }
  void add_values(const Array<size_type>& indices, const Array<T>& values) {
    insert(InsertMode::add, indices, values);
  }
  void set_values(const Array<size_type>& indices, const Array<T>& values) {
    insert(InsertMode::set, indices, values);
  }

  /// Collective, as DistributedMatrixAssembler::assemble().
  void assemble();
  /// A copy of the owned entries as a distributed vector.
  DistributedVector<T> vector() const;

  size_type off_process_count() const noexcept { return local_.off_process_count(); }
  size_type received_count() const noexcept { return received_; }
  const RowPartition& partition() const noexcept { return partition_; }

 private:
  RowPartition partition_;
  VectorAssembler<T> local_;
  size_type received_ = 0;
};

}  // namespace strata
