#pragma once
/// \file
/// A distributed block CSR matrix: DistributedCsrMatrix's ParCSR shape one
/// level up, for systems whose unknowns come in nodes (elasticity: three
/// displacements per node).
///
/// Process p owns a contiguous block of block rows (nodes) under a
/// RowPartition of nodes, and its block rows are stored as two BsrMatrix
/// blocks of row_block_size() x col_block_size() values (independent, as
/// in BsrMatrix): the diagonal block over the node columns this process
/// owns (local block column indices) and the off-diagonal block over the
/// other node columns, compressed into a column map of sorted 64-bit global
/// node ids. Vectors stay scalar, as everywhere else: this process's block
/// of x has local_cols() = local node columns x col_block_size() entries,
/// node J's unknowns at J * c .. J * c + c - 1, split by col_partition(),
/// the scalar partition whose offsets are the node offsets times c.
///
/// The halo moves whole nodes, and is planned at the level of the unknowns:
/// the matrix's HaloPlan fetches the c unknowns of every ghost node, built
/// by the scalar HaloPlan from the ghost nodes expanded to their unknowns.
/// Why not a node-level plan with a value width: the dof-level plan is the
/// one the scalar matrix uses, unchanged, so every transfer it has (host
/// memory, NCCL, CUDA-aware MPI, staged through pinned host memory) and
/// every check of its ghost ids serves the block matrix too, with no second
/// packing kernel and no width threaded through the device transport; its
/// ghosts come out node after node, which is the layout the off-diagonal
/// block's SpMV reads; and the expansion to a DistributedCsrMatrix (to_csr)
/// shares the plan as it is, without communicating. The cost is one 32-bit
/// send index per unknown instead of per node in the plan (c - 1 more index
/// reads per node sent), which is small beside the values sent.
///
/// SpMV overlaps the halo exchange with the diagonal block's product, as
/// the scalar matrix's does, on the host and on a device (the serial BSR
/// kernels multiply the blocks).

#include <memory>
#include <string>

#include "strata/distributed/halo.hpp"
#include "strata/distributed/matrix.hpp"
#include "strata/distributed/partition.hpp"
#include "strata/matrix/bsr.hpp"

namespace strata {

template <class T>
class DistributedBsrMatrix {
 public:
  using value_type = T;

  /// Collective. The block form of A, blocks of row_block_size x
  /// col_block_size entries, on A's executor. A's rows must be split at
  /// node boundaries of row_block_size rows and its columns at node
  /// boundaries of col_block_size columns (every process's first row and
  /// column a multiple of the block size, the global sizes too), with the
  /// same block sizes on every process. A block is stored where any of its
  /// entries is stored in A; its other entries become explicit zeros (as
  /// to_bsr of a serial matrix). Throws invalid_argument, on every process
  /// alike, naming the process and the row (or column) whose split cuts a
  /// node, the global size a block size does not divide, a block size
  /// below 1, or the processes whose block sizes differ.
  DistributedBsrMatrix(const DistributedCsrMatrix<T>& A, int row_block_size, int col_block_size);

  DistributedBsrMatrix(DistributedBsrMatrix&&) noexcept;
  DistributedBsrMatrix& operator=(DistributedBsrMatrix&&) noexcept;
  ~DistributedBsrMatrix();

  int row_block_size() const noexcept { return diag_.row_block_size(); }
  int col_block_size() const noexcept { return diag_.col_block_size(); }
  /// How the block rows (nodes) and block columns are split.
  const RowPartition& block_row_partition() const noexcept { return block_rows_; }
  const RowPartition& block_col_partition() const noexcept { return block_cols_; }
  /// How the scalar rows and columns are split: the vectors' partitions.
  const RowPartition& row_partition() const noexcept { return rows_; }
  const RowPartition& col_partition() const noexcept { return cols_; }
  const Communicator& communicator() const noexcept { return rows_.communicator(); }

  /// Scalar sizes over all processes and on this one (local_cols() is the
  /// size of this process's block of x).
  size_type global_rows() const noexcept { return rows_.global_size(); }
  size_type global_cols() const noexcept { return cols_.global_size(); }
  size_type local_rows() const noexcept { return diag_.rows(); }
  size_type local_cols() const noexcept { return diag_.cols(); }
  /// Stored scalar entries (zeros inside stored blocks included), here and
  /// over all processes (counted at construction).
  size_type local_nnz() const noexcept { return diag_.nnz() + offd_.nnz(); }
  size_type global_nnz() const noexcept { return global_nnz_; }
  /// Stored blocks here (both blocks).
  size_type local_blocks() const noexcept { return diag_.num_blocks() + offd_.num_blocks(); }

  /// The diagonal block: this process's block rows x its block columns,
  /// local block column indices.
  const BsrMatrix<T>& diag() const noexcept { return diag_; }
  /// The off-diagonal block: this process's block rows x
  /// column_map().size() block columns; block column j is global node
  /// column column_map()[j].
  const BsrMatrix<T>& offd() const noexcept { return offd_; }
  /// Sorted global node ids of the off-diagonal block's block columns, on
  /// executor().
  const Array<global_index>& column_map() const noexcept { return column_map_; }
  /// The plan of the unknowns of the ghost nodes (see the file comment):
  /// column_map().size() * col_block_size() ghosts under col_partition().
  const HaloPlan& halo_plan() const noexcept { return *plan_; }
  /// How this matrix's SpMV moves its ghosts (HaloExchange::transfer()).
  const char* halo_transfer() const noexcept;
  const Executor& executor() const noexcept { return diag_.executor(); }

  /// Values may change in place (both blocks); the pattern may not.
  Array<T>& diag_values() noexcept { return diag_.values(); }
  Array<T>& offd_values() noexcept { return offd_.values(); }

  /// A copy on `target` (no communication: the plan is reused).
  DistributedBsrMatrix to(const Executor& target) const;
  DistributedBsrMatrix clone() const { return to(executor()); }

  /// "distributed BSR 3x3 3000x3000, 750 local rows, 9000 local nonzeros
  /// (1000 blocks), 4 processes".
  std::string describe() const;

  /// y = alpha A x + beta z on this process's blocks, as
  /// DistributedCsrMatrix::apply (same checks, same errors, naming
  /// DistributedBsrMatrix::apply; collective; the halo exchange overlaps
  /// the diagonal block's product). x has local_cols() entries, y and z
  /// local_rows().
  void apply(T alpha, const Vector<T>& x, T beta, const Vector<T>& z, Vector<T>& y) const;

 private:
  DistributedBsrMatrix(RowPartition block_rows, RowPartition block_cols, BsrMatrix<T> diag,
                       BsrMatrix<T> offd, Array<global_index> column_map,
                       std::shared_ptr<const HaloPlan> plan, size_type global_nnz);

  template <class U>
  friend DistributedCsrMatrix<U> to_csr(const DistributedBsrMatrix<U>& A);

  RowPartition block_rows_, block_cols_, rows_, cols_;
  BsrMatrix<T> diag_, offd_;
  Array<global_index> column_map_;
  std::shared_ptr<const HaloPlan> plan_;
  /// Scratch of apply(); one product at a time per matrix.
  std::unique_ptr<HaloExchange<T>> exchange_;
  size_type global_nnz_ = 0;
};

/// y = A x on the distributed vectors (collective); their partitions must
/// be A's scalar column and row partitions (invalid_argument naming the
/// vector).
template <class T>
void spmv(const DistributedBsrMatrix<T>& A, const DistributedVector<T>& x, DistributedVector<T>& y);

/// DistributedBsrMatrix(A, row_block_size, col_block_size).
template <class T>
DistributedBsrMatrix<T> to_bsr(const DistributedCsrMatrix<T>& A, int row_block_size,
                               int col_block_size) {
  return DistributedBsrMatrix<T>(A, row_block_size, col_block_size);
}
template <class T>
DistributedBsrMatrix<T> to_bsr(const DistributedCsrMatrix<T>& A, int block_size) {
  return DistributedBsrMatrix<T>(A, block_size, block_size);
}

/// A as a DistributedCsrMatrix on A's executor (the form the AMG
/// coarsenings take): every entry of every stored block, zeros included,
/// as the serial to_csr. Not collective: the blocks expand where they are
/// and the scalar matrix shares A's halo plan, which already moves the
/// ghost nodes' unknowns.
template <class T>
DistributedCsrMatrix<T> to_csr(const DistributedBsrMatrix<T>& A);

}  // namespace strata
