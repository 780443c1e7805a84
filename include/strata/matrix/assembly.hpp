#pragma once
/// \file
/// Assembly of matrices and vectors from (row, col, value) entries with set
/// and add semantics, on the host or the device: hypre's IJ interface with
/// the GPU algorithm of section 4.1 of the hypre paper, and the blocked COO
/// assembly of the blocked GAMG paper.
///
/// Entries arrive in batches, in any order, repeated, over many calls; each
/// batch is either *added* (AddToValues) or *set* (SetValues). Nothing is
/// searched or inserted per entry: batches are appended to flat 1-D buffers
/// (grown by a factor), and assemble() compresses them all at once by a
/// stable sort on (row, col), a reverse exclusive segmented max-scan over
/// the set flags and a segmented reduction. That is what makes assembly fast
/// on a GPU, where per-row searches and reallocations are not.
///
/// Semantics, for one stored position (i, j) and one assemble():
///  - the entries for (i, j) since the previous assemble() are combined in
///    arrival order: the last *set* wins and discards everything before it;
///    *adds* after it are summed onto it (hypre's add-after-set);
///  - if any of them was a set, the result replaces the stored value;
///    otherwise it is added to the stored value (0 for a new position).
/// Concretely the value becomes
///    v_set + a_1 + a_2 + ...          (last set, then the adds after it)
///    old + (a_1 + a_2 + ...)          (adds only)
/// summed left to right, so host and device give identical bits.
///
/// Re-assembly: when the entries of an assemble() have exactly the keys,
/// in the same order, as those of the previous one (a finite-element code
/// re-adding its element matrices each Newton step), the permutation and
/// segments learned then are reused: no sort runs, only the reduction (the
/// reuse is verified on the fly, and a changed pattern falls back to the
/// sort). Entries for positions not yet stored grow the pattern.
///
/// Distribution: an assembler owns the global rows [row_begin, row_end).
/// Entries for other rows are not dropped and are not an error: they are
/// kept apart, in arrival order, for the exchange with their owners that
/// comes with MPI (take_off_process()). Column indices are global; the
/// assembled matrix has the owned rows (renumbered from 0) and all columns.
///
/// Batches are Arrays on the assembler's executor (location_mismatch
/// otherwise). Bad input throws invalid_argument before anything is stored:
/// arrays of different lengths, or an entry with an index out of range or a
/// value that is NaN or infinite, named by its position in the batch and
/// its values.

#include <cstdint>
#include <memory>

#include "strata/core/array.hpp"
#include "strata/matrix/bsr.hpp"
#include "strata/matrix/csr.hpp"
#include "strata/matrix/vector.hpp"

namespace strata {

/// How a batch combines with what is there (hypre's SetValues / AddToValues).
enum class InsertMode : std::uint8_t { add = 0, set = 1 };

/// Parameters shared by the assemblers.
struct AssemblyOptions {
  /// First global row (block row for BlockMatrixAssembler) owned here.
  size_type row_begin = 0;
  /// One past the last owned row; -1 means all rows.
  size_type row_end = -1;
  /// Entries the stash holds before it first grows; 0 lets the first batch
  /// decide. Worth setting when the total is known (a finite-element code
  /// knows it): no growth copies then.
  size_type initial_capacity = 0;
  /// Factor by which a full stash grows; must be > 1. Growing by a factor
  /// keeps the number of reallocations logarithmic in the number of entries.
  double growth_factor = 2.0;
};

/// Entries for rows owned elsewhere, with global indices, in arrival order.
template <class T>
struct OffProcessEntries {
  Array<size_type> rows;
  /// Empty for vectors.
  Array<size_type> cols;
  /// Values per entry: 1, or r*c for blocks (row-major).
  Array<T> values;
  /// InsertMode of each entry (0 add, 1 set): hypre's rule for a remote set
  /// (it discards earlier local contributions) is applied by the exchange.
  Array<std::uint8_t> modes;
  size_type size() const noexcept { return rows.size(); }
};

/// What the last assemble() did (for tests and benchmarks).
struct AssemblyReport {
  /// Entries compressed (owned rows only).
  size_type entries = 0;
  /// Distinct positions among them.
  size_type positions = 0;
  /// True when the previous analysis was reused (no sort).
  bool reused_pattern = false;
  /// True when the stored pattern was created or grew.
  bool pattern_changed = false;
};

namespace detail {
template <class T>
class AssemblyEngine;
}  // namespace detail

/// Assembles a CSR matrix of the owned rows from scalar entries.
template <class T>
class MatrixAssembler {
 public:
  /// An assembler of a global rows x cols matrix on `exec`; the matrix starts
  /// with no stored entries. cols must fit a 32-bit index.
  MatrixAssembler(Executor exec, size_type rows, size_type cols,
                  const AssemblyOptions& options = {});
  ~MatrixAssembler();
  MatrixAssembler(MatrixAssembler&&) noexcept;
  MatrixAssembler& operator=(MatrixAssembler&&) noexcept;

  /// Stashes entries (rows[k], cols[k], values[k]) with `mode`; global indices.
  void insert(InsertMode mode, const Array<size_type>& rows, const Array<size_type>& cols,
              const Array<T>& values);
  void add_values(const Array<size_type>& rows, const Array<size_type>& cols,
                  const Array<T>& values) {
    insert(InsertMode::add, rows, cols, values);
  }
  void set_values(const Array<size_type>& rows, const Array<size_type>& cols,
                  const Array<T>& values) {
    insert(InsertMode::set, rows, cols, values);
  }

  /// Applies every stashed entry to the matrix (see the file comment) and
  /// empties the stash; off-process entries stay where they are.
  void assemble();

  /// The assembled matrix: owned rows x global cols, columns ascending in
  /// each row. Valid until the next assemble() or release().
  const CsrMatrix<T>& matrix() const noexcept { return matrix_; }
  /// Hands the matrix over and starts afresh (no stored entries, nothing
  /// learned); the stash and the off-process entries are kept.
  CsrMatrix<T> release();
  /// Sets every stored value to `value`, keeping the pattern (hypre's
  /// SetConstantValues): fill_values(0) before re-adding element matrices.
  void fill_values(T value);

  /// Owned-row entries waiting for assemble().
  size_type pending() const noexcept;
  const AssemblyReport& last_assembly() const noexcept;
  size_type off_process_count() const noexcept;
  /// The off-process entries (exact-size arrays); the assembler forgets them.
  OffProcessEntries<T> take_off_process();

  const Executor& executor() const noexcept { return matrix_.executor(); }
  size_type row_begin() const noexcept;
  size_type row_end() const noexcept;

 private:
  std::unique_ptr<detail::AssemblyEngine<T>> engine_;
  CsrMatrix<T> matrix_;
};

/// Assembles a BSR matrix of the owned block rows from dense blocks
/// (the blocked COO of the blocked GAMG paper, PETSc's MatCOOUseBlockIndices):
/// one (block row, block col) index pair per r x c block instead of one pair
/// per scalar, so the indices, the sort and the reduction handle r*c times
/// fewer keys. A block is set or added as a whole.
template <class T>
class BlockMatrixAssembler {
 public:
  /// A global block_rows x block_cols block matrix of row_block_size x
  /// col_block_size blocks; options.row_begin/row_end count block rows.
  BlockMatrixAssembler(Executor exec, size_type block_rows, size_type block_cols,
                       int row_block_size, int col_block_size, const AssemblyOptions& options = {});
  ~BlockMatrixAssembler();
  BlockMatrixAssembler(BlockMatrixAssembler&&) noexcept;
  BlockMatrixAssembler& operator=(BlockMatrixAssembler&&) noexcept;

  /// Stashes blocks: block k at (block_rows[k], block_cols[k]) has the r*c
  /// values values[k*r*c ..], row-major.
  void insert(InsertMode mode, const Array<size_type>& block_rows,
              const Array<size_type>& block_cols, const Array<T>& values);
  void add_blocks(const Array<size_type>& block_rows, const Array<size_type>& block_cols,
                  const Array<T>& values) {
    insert(InsertMode::add, block_rows, block_cols, values);
  }
  void set_blocks(const Array<size_type>& block_rows, const Array<size_type>& block_cols,
                  const Array<T>& values) {
    insert(InsertMode::set, block_rows, block_cols, values);
  }

  void assemble();
  /// Owned block rows x global block cols; block columns ascending.
  const BsrMatrix<T>& matrix() const noexcept { return matrix_; }
  BsrMatrix<T> release();
  void fill_values(T value);

  size_type pending() const noexcept;
  const AssemblyReport& last_assembly() const noexcept;
  size_type off_process_count() const noexcept;
  OffProcessEntries<T> take_off_process();

  const Executor& executor() const noexcept { return matrix_.executor(); }
  size_type row_begin() const noexcept;
  size_type row_end() const noexcept;

 private:
  std::unique_ptr<detail::AssemblyEngine<T>> engine_;
  BsrMatrix<T> matrix_;
};

/// Assembles the owned part of a vector; it starts at zero, and every index
/// is a stored position, so the pattern never changes.
template <class T>
class VectorAssembler {
 public:
  VectorAssembler(Executor exec, size_type size, const AssemblyOptions& options = {});
  ~VectorAssembler();
  VectorAssembler(VectorAssembler&&) noexcept;
  VectorAssembler& operator=(VectorAssembler&&) noexcept;

  void insert(InsertMode mode, const Array<size_type>& indices, const Array<T>& values);
  void add_values(const Array<size_type>& indices, const Array<T>& values) {
    insert(InsertMode::add, indices, values);
  }
  void set_values(const Array<size_type>& indices, const Array<T>& values) {
    insert(InsertMode::set, indices, values);
  }

  void assemble();
  /// The owned entries, row_end - row_begin of them.
  const Vector<T>& vector() const noexcept { return vector_; }
  /// Hands the vector over; the assembler restarts from a zero vector.
  Vector<T> release();
  void fill_values(T value);

  size_type pending() const noexcept;
  const AssemblyReport& last_assembly() const noexcept;
  size_type off_process_count() const noexcept;
  OffProcessEntries<T> take_off_process();

  const Executor& executor() const noexcept { return vector_.executor(); }
  size_type row_begin() const noexcept;
  size_type row_end() const noexcept;

 private:
  std::unique_ptr<detail::AssemblyEngine<T>> engine_;
  Vector<T> vector_;
};

}  // namespace strata
