#pragma once
/// \file
/// Distributed vectors and a distributed CSR matrix in hypre's ParCSR shape.
///
/// Process p owns a contiguous block of rows (RowPartition). Its rows are
/// stored as two CSR matrices on one executor:
///  - the diagonal block: the columns this process also owns (its block of
///    the column partition), with local column indices, so that a square
///    matrix's block is square and holds the diagonal;
///  - the off-diagonal block: every other column, indexed into a compressed
///    column map, the sorted 64-bit global ids of those columns (the
///    "ghosts" this process needs from others).
/// SpMV is y = A_diag x_own + A_offd x_ghost, the ghosts fetched by the
/// matrix's halo exchange (strata/distributed/halo.hpp), whose messages fly
/// while the diagonal block's product runs. No process holds more than its
/// own rows; the only global tables are the partitions' offsets.
///
/// Construction:
///  - from the rows this process owns, with global column ids (RowBlock):
///    the primitive every other way goes through, collective;
///  - scatter_rows(): process 0 holds a whole CsrMatrix and sends each
///    process its rows (for a matrix read once from a MatrixMarket file:
///    one reader and one pass over the file, which is the simplest correct
///    way when the file fits one process's memory; each process reading its
///    own rows would need a seekable row index the format does not have);
///  - the gallery's row-range generators (strata/distributed/gallery.hpp),
///    each process generating only its rows;
///  - distributed assembly (strata/distributed/assembly.hpp).
/// Every construction validates its input and agrees on failure: when one
/// process rejects its part, all of them throw (no process is left waiting
/// in a collective).

#include <memory>
#include <vector>

#include "strata/distributed/halo.hpp"
#include "strata/distributed/partition.hpp"
#include "strata/matrix/csr.hpp"

namespace strata {

/// A vector distributed by a RowPartition: this process's block (a plain
/// Vector of partition().local_size() entries, which is what solvers and
/// operators take) and the partition.
template <class T>
class DistributedVector {
 public:
  /// local_size() uninitialised values on `exec`.
  DistributedVector(RowPartition partition, const Executor& exec)
      : partition_(std::move(partition)), local_(exec, partition_.local_size()) {}
  /// Every value set to `value`.
  DistributedVector(RowPartition partition, const Executor& exec, T value)
      : partition_(std::move(partition)), local_(exec, partition_.local_size(), value) {}
  /// Takes this process's block; throws dimension_mismatch naming `local`
  /// unless it has partition.local_size() entries.
  DistributedVector(RowPartition partition, Vector<T> local);

  const RowPartition& partition() const noexcept { return partition_; }
  Vector<T>& local() noexcept { return local_; }
  const Vector<T>& local() const noexcept { return local_; }
  const Executor& executor() const noexcept { return local_.executor(); }

 private:
  RowPartition partition_;
  Vector<T> local_;
};

/// The rows one process owns, with global column ids: row_ptr has one
/// entry per owned row plus one (64-bit offsets), cols and values one per
/// entry, all on one executor. Within a row the columns need not be sorted
/// but must be distinct.
template <class T>
struct RowBlock {
  Array<offset_type> row_ptr;
  Array<global_index> cols;
  Array<T> values;
  /// Owned rows (row_ptr.size() - 1; 0 for an empty row_ptr).
  size_type rows() const noexcept { return row_ptr.size() > 0 ? row_ptr.size() - 1 : 0; }
  size_type nnz() const noexcept { return cols.size(); }
  const Executor& executor() const noexcept { return row_ptr.executor(); }
};

template <class T>
class DistributedBsrMatrix;

template <class T>
class DistributedCsrMatrix {
 public:
  using value_type = T;

  /// Collective. The rows this process owns under `rows`, with global
  /// column ids under `cols` (for a square operator, the same partition:
  /// see the next constructor), on local's executor. Throws, on every
  /// process when one rejects its part: invalid_argument naming
  /// local.row_ptr when its rows are not rows.local_size(), local.cols and
  /// the entry when a column id is outside [0, cols.global_size()), and
  /// what CsrMatrix::validate names (duplicate columns in a row, values
  /// that are not finite); invalid_argument when the partitions do not
  /// share one communicator size.
  DistributedCsrMatrix(RowPartition rows, RowPartition cols, const RowBlock<T>& local);
  /// A matrix whose columns are split like its rows (a square operator).
  DistributedCsrMatrix(const RowPartition& partition, const RowBlock<T>& local)
      : DistributedCsrMatrix(partition, partition, local) {}

  DistributedCsrMatrix(DistributedCsrMatrix&&) noexcept;
  DistributedCsrMatrix& operator=(DistributedCsrMatrix&&) noexcept;
  ~DistributedCsrMatrix();

  const RowPartition& row_partition() const noexcept { return rows_; }
  const RowPartition& col_partition() const noexcept { return cols_; }
  const Communicator& communicator() const noexcept { return rows_.communicator(); }
  size_type global_rows() const noexcept { return rows_.global_size(); }
  size_type global_cols() const noexcept { return cols_.global_size(); }
  /// Owned rows, and the columns of this process's block of x.
  size_type local_rows() const noexcept { return diag_.rows(); }
  size_type local_cols() const noexcept { return diag_.cols(); }
  /// Entries stored here (both blocks) and over all processes (counted at
  /// construction, so asking costs no communication).
  size_type local_nnz() const noexcept { return diag_.nnz() + offd_.nnz(); }
  size_type global_nnz() const noexcept { return global_nnz_; }

  /// The diagonal block: local_rows() x local_cols(), local column indices.
  const CsrMatrix<T>& diag() const noexcept { return diag_; }
  /// The off-diagonal block: local_rows() x column_map().size(); column j
  /// is global column column_map()[j].
  const CsrMatrix<T>& offd() const noexcept { return offd_; }
  /// Sorted global ids of the off-diagonal block's columns, on executor().
  const Array<global_index>& column_map() const noexcept { return column_map_; }
  const HaloPlan& halo_plan() const noexcept { return *plan_; }
  /// How this matrix's SpMV moves its ghosts (HaloExchange::transfer()).
  const char* halo_transfer() const noexcept;
  const Executor& executor() const noexcept { return diag_.executor(); }

  /// Values may change in place (both blocks); the pattern may not.
  Array<T>& diag_values() noexcept { return diag_.values(); }
  Array<T>& offd_values() noexcept { return offd_.values(); }

  /// A copy on `target` (no communication: the plan is reused).
  DistributedCsrMatrix to(const Executor& target) const;
  DistributedCsrMatrix clone() const { return to(executor()); }

  /// y = alpha A x + beta z on this process's blocks (z may be y, x must
  /// be neither; beta == 0 ignores z). Collective. x has local_cols()
  /// entries, y and z local_rows(), all on executor() (dimension_mismatch,
  /// location_mismatch otherwise, naming the operand; invalid_argument when
  /// x is y or z). Overlaps the halo exchange with the diagonal block's
  /// product. The operands are checked before any message is posted, so a
  /// process that throws leaves no message of its own in flight; the other
  /// processes still wait for it, which is why every process should pass
  /// operands of the same kind (as a solver does), or abort on an error.
  void apply(T alpha, const Vector<T>& x, T beta, const Vector<T>& z, Vector<T>& y) const;

  /// Collective. One Jacobi sweep x = x0 + d .* (b - A x0) on this
  /// process's blocks (d, b, x0, x of local_rows() entries; x0 and x in
  /// separate storage; the checks of apply()): the diagonal block's part in
  /// one pass over it (the serial CSR kernel) while the halo is in flight,
  /// then the boundary rows' off-diagonal part. The general residual,
  /// scale and add took three passes over the vectors.
  void jacobi_sweep(const Vector<T>& d, const Vector<T>& b, const Vector<T>& x0,
                    Vector<T>& x) const;

  /// Collective. y = A x on this process's blocks and this process's part
  /// of x^T y (a square block; the checks of apply()), the diagonal
  /// block's product and its dot in one pass (CG's p^T A p on every
  /// iteration, the K-cycle's on every coarse visit).
  T apply_dot(const Vector<T>& x, Vector<T>& y) const;

 private:
  DistributedCsrMatrix(RowPartition rows, RowPartition cols, CsrMatrix<T> diag, CsrMatrix<T> offd,
                       Array<global_index> column_map, std::shared_ptr<const HaloPlan> plan,
                       size_type global_nnz);

  /// The expansion of a block matrix (strata/distributed/bsr.hpp) builds
  /// the blocks and shares the block matrix's plan, with no communication.
  template <class U>
  friend DistributedCsrMatrix<U> to_csr(const DistributedBsrMatrix<U>& A);

  RowPartition rows_, cols_;
  CsrMatrix<T> diag_, offd_;
  Array<global_index> column_map_;
  std::shared_ptr<const HaloPlan> plan_;
  /// Scratch of apply(); one product at a time per matrix.
  std::unique_ptr<HaloExchange<T>> exchange_;
  size_type global_nnz_ = 0;
  /// The rows of offd_ with entries (ascending): apply() multiplies only
  /// these, the process boundary's rows on a fine level. offd_'s values may
  /// change (offd_values()), its pattern never does.
  Array<index_type> offd_rows_;

  void list_offd_rows();
};

/// y = A x on the distributed vectors (collective); their partitions must
/// be A's column and row partitions (invalid_argument naming the vector).
template <class T>
void spmv(const DistributedCsrMatrix<T>& A, const DistributedVector<T>& x, DistributedVector<T>& y);

/// Collective. Process `root` passes the whole matrix (global rows x
/// global cols, on any executor), the others pass an empty CsrMatrix (it is
/// not read there); every process receives its rows of `partition` and
/// builds its blocks on `exec`. Why: see the file comment (a MatrixMarket
/// file read once). Throws invalid_argument when the root's matrix does not
/// have partition.global_size() rows (on every process), or the root is not
/// a rank of the communicator.
template <class T>
DistributedCsrMatrix<T> scatter_rows(const CsrMatrix<T>& global, const RowPartition& partition,
                                     const Executor& exec, int root = 0);

/// The whole of a vector held by process `root` (size partition.global_size()
/// there, ignored elsewhere), split into each process's block on `exec`.
template <class T>
DistributedVector<T> scatter_vector(const Vector<T>& global, const RowPartition& partition,
                                    const Executor& exec, int root = 0);

/// The opposite, for checks and output: every process's block gathered on
/// process `root` (the whole vector, on the host); an empty vector on the
/// others.
template <class T>
Vector<T> gather_vector(const DistributedVector<T>& x, int root = 0);

}  // namespace strata
