#pragma once
/// \file
/// Rows that cross processes: what distributed AMG's setup needs beyond the
/// SpMV's halo of values.
///
///  - owned_rows(): this process's rows with global column ids (the two
///    blocks merged back into one);
///  - fetch_ghost_rows(): the rows another process owns, for the ghost ids
///    of a halo plan (hypre's "external rows": the rows of P that R A P
///    needs for A's off-process columns, the rows of A and of the strength
///    matrix that ext+i interpolation needs for off-process neighbours);
///  - DistributedProduct / multiply(): C = X Y, each process computing its
///    rows of C from its rows of X and the rows of Y its columns reach
///    (its own and the fetched ones), with value-only recompute for resetup;
///  - transpose(): M^T, the off-diagonal block's transposed rows sent to
///    the processes that own them (R = P^T of an interpolation with
///    off-process columns).
///
/// Messages: rows travel as (lengths, 64-bit column ids, values) in three
/// messages per neighbour along the halo plan's neighbours (forward for
/// fetching, the reverse direction for the transpose), so no process has
/// to ask whom it will hear from. Setup-time messages are staged through
/// host memory (a copy of the packed rows each way); the gathers and the
/// local products run where the matrices live.

#include <memory>

#include "strata/distributed/matrix.hpp"

namespace strata {

/// This process's rows of M, with 64-bit global column ids: in each row the
/// diagonal block's entries first, then the off-diagonal block's, each in
/// stored order. On M's executor.
template <class T>
RowBlock<T> owned_rows(const DistributedCsrMatrix<T>& M);

/// Collective. The rows of M for the ghost ids of `plan`: plan.ghost_count()
/// rows, in the plan's ghost order, with global column ids (ordered as in
/// owned_rows), on M's executor. plan.partition() must be M's row partition
/// (invalid_argument otherwise). The plan of a matrix X with X's columns
/// split like M's rows fetches what the product X M needs.
template <class T>
RowBlock<T> fetch_ghost_rows(const DistributedCsrMatrix<T>& M, const HaloPlan& plan);

/// The node sizes of a product C = X Y whose unknowns come in nodes
/// (systems such as elasticity: 3 unknowns per node on the fine level, the
/// near-null space's k per coarse node below): X's rows in nodes of `rows`,
/// X's columns and Y's rows of `inner`, Y's columns of `cols`. All 1: a
/// scalar product.
struct ProductBlocks {
  int rows = 1;
  int inner = 1;
  int cols = 1;
};

/// C = X Y for distributed matrices, kept so that C's values can be
/// recomputed when only the values of X and Y change (the Galerkin product
/// of a value-only AMG resetup). Each process forms its rows of C as one
/// local sparse product [X_diag | X_offd] [Y_own; Y_ghost] over a compact
/// numbering of the columns those rows reach (its own block of Y's column
/// partition, then the other global ids in ascending order), with the
/// library's SpGEMM (SparseProduct), so its rows are the rows a serial
/// product of the whole matrices would give (same entries, same sums).
///
/// With node sizes (`blocks`), each process multiplies in blocks (the BSR
/// SpGEMM, SparseProduct<BsrMatrix<T>>) when its operands line up with
/// them: its rows and its own columns whole nodes, and every other column
/// id reached in whole aligned nodes. The scalar product of
/// smoothed-aggregation operands (3 x 6 blocks of P, 6 x 6 below) hashes
/// every scalar and took 16 times the blocked product on one GPU. C then
/// holds whole blocks, zeros included (as the serial blocked hierarchy
/// does), with the same values up to the order of the sums. A process
/// whose operands do not line up multiplies scalars (blocked() says which).
template <class T>
class DistributedProduct {
 public:
  /// Collective. X's column partition must equal Y's row partition, and
  /// both must live on one executor (invalid_argument, location_mismatch
  /// otherwise); node sizes must be >= 1 (invalid_argument).
  DistributedProduct(const DistributedCsrMatrix<T>& X, const DistributedCsrMatrix<T>& Y,
                     ProductBlocks blocks = {});
  ~DistributedProduct();
  DistributedProduct(DistributedProduct&&) noexcept;
  DistributedProduct& operator=(DistributedProduct&&) noexcept;

  /// C: rows split like X's rows, columns like Y's columns. The object is
  /// the same across recompute(), whose new values it then holds.
  const std::shared_ptr<DistributedCsrMatrix<T>>& result() const noexcept { return C_; }

  /// Collective. New values of X and Y with the patterns of construction
  /// (checked by the local product: invalid_argument otherwise).
  void recompute(const DistributedCsrMatrix<T>& X, const DistributedCsrMatrix<T>& Y);

  /// Whether this process multiplies in blocks (see the class comment).
  bool blocked() const noexcept;

 private:
  struct Local;
  std::unique_ptr<Local> local_;
  std::shared_ptr<DistributedCsrMatrix<T>> C_;
};

/// C = X Y (a DistributedProduct's result, without its recompute plan).
template <class T>
DistributedCsrMatrix<T> multiply(const DistributedCsrMatrix<T>& X,
                                 const DistributedCsrMatrix<T>& Y);

/// Collective. M^T: rows split like M's columns, columns like M's rows, on
/// M's executor. In each row of M^T the entries from this process's
/// diagonal block come first, then those received from other processes in
/// rank order.
template <class T>
DistributedCsrMatrix<T> transpose(const DistributedCsrMatrix<T>& M);

/// Collective. A matrix whose rows reach only columns of their own process:
/// `local` is this process's diagonal block (rows.local_size() x
/// cols.local_size(), local column indices, on any executor), and nothing
/// lies off it. Smoothed aggregation's tentative P, whose aggregates lie
/// within each process, is one (and so its transpose).
template <class T>
DistributedCsrMatrix<T> from_diagonal_block(RowPartition rows, RowPartition cols,
                                            const CsrMatrix<T>& local);

}  // namespace strata
