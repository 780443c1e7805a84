#pragma once
// Kernel contract of the distributed matrix (strata/distributed/matrix.hpp):
// splitting the rows a process owns, with global column ids, into hypre's
// diagonal block (owned columns, local indices) and off-diagonal block
// (other columns, by position in a sorted column map). Arguments are raw
// pointers in the executor's memory; src/core/distributed/matrix.cpp has
// checked sizes and locations. The bodies are in distributed_kernels.ipp.

#include <cstdint>

#include "strata/core/executor.hpp"
#include "strata/core/types.hpp"

namespace strata::kernels::distributed {

/// The first entry k of cols[0..nnz) outside [0, global_cols), or -1.
template <class Exec>
size_type first_bad_column(const Exec& exec, size_type nnz, const std::int64_t* cols,
                           std::int64_t global_cols);

/// The first i < rows with ptr[i + 1] < ptr[i], or -1: row pointers that
/// run from 0 to nnz and never decrease stay within [0, nnz].
template <class Exec>
size_type first_decreasing_offset(const Exec& exec, size_type rows, const offset_type* ptr);

/// flags[k] = 1 when cols[k] is owned (col_begin <= cols[k] < col_end),
/// else 0, for k < nnz; flags[nnz] = 0 (nnz + 1 entries, ready for an
/// exclusive scan: then flags[k] is the position of entry k in the diagonal
/// block when it is owned, and k - flags[k] its position in the
/// off-diagonal block when not, since rows lie one after another).
template <class Exec>
void owned_flags(const Exec& exec, offset_type nnz, const std::int64_t* cols,
                 std::int64_t col_begin, std::int64_t col_end, offset_type* flags);

/// The two blocks' row pointers from the scanned flags: diag_ptr[i] =
/// position[row_ptr[i]], offd_ptr[i] = row_ptr[i] - diag_ptr[i], i <= rows.
template <class Exec>
void split_pointers(const Exec& exec, size_type rows, const offset_type* row_ptr,
                    const offset_type* position, offset_type* diag_ptr, offset_type* offd_ptr);

/// Where split_entries writes the two blocks' entries; the off-diagonal
/// block's columns are the global ids here (locate_sorted turns them into
/// positions).
template <class T>
struct SplitTarget {
  index_type* diag_col;
  T* diag_val;
  std::int64_t* offd_global;
  T* offd_val;
};

/// Copies every entry into its block at the position the scanned flags
/// give, which keeps the order within each row: an owned column as
/// col - col_begin, another as its global id. A thread per entry.
template <class Exec, class T>
void split_entries(const Exec& exec, offset_type nnz, const std::int64_t* cols, const T* values,
                   const offset_type* position, std::int64_t col_begin, std::int64_t col_end,
                   SplitTarget<T> target);

/// out[k] = the position of ids[k] in the sorted, distinct map[0..map_size)
/// (binary search; every id is in the map).
template <class Exec>
void locate_sorted(const Exec& exec, size_type n, const std::int64_t* ids, const std::int64_t* map,
                   size_type map_size, index_type* out);

/// out[k] = cols[k] as a 64-bit global id (the columns of an assembled
/// block of owned rows, which are global already).
template <class Exec>
void widen_columns(const Exec& exec, size_type n, const index_type* cols, std::int64_t* out);

// ------------------------------------------------- block matrices
// (strata/distributed/bsr.hpp: nodes of b unknowns, node J's unknowns the
// global ids J * b .. J * b + b - 1).

/// out[k] = ids[k] / b for k < n: the node of each unknown.
template <class Exec>
void node_ids(const Exec& exec, size_type n, const std::int64_t* ids, int b, std::int64_t* out);

/// The off-diagonal block's scalar columns renumbered over ghost nodes:
/// entry k's column cols[k] is the ghost unknown column_map[cols[k]], whose
/// node sits at node_position[cols[k]] of the node map; out[k] =
/// node_position[cols[k]] * b + column_map[cols[k]] % b, for k < nnz.
template <class Exec>
void ghost_node_columns(const Exec& exec, offset_type nnz, const index_type* cols,
                        const index_type* node_position, const std::int64_t* column_map, int b,
                        index_type* out);

/// The unknowns of nodes[0..n): out[j * b + a] = nodes[j] * b + a, a < b.
template <class Exec>
void node_unknowns(const Exec& exec, size_type n, const std::int64_t* nodes, int b,
                   std::int64_t* out);

// ------------------------------------------------- rows across processes
// (strata/distributed/rows.hpp: fetching other processes' rows, the
// distributed sparse product and transpose).

/// A distributed matrix's owned rows as its two blocks: the diagonal block
/// (local columns, col_begin added for the global id) and the off-diagonal
/// block (positions in column_map).
template <class T>
struct SplitRows {
  const offset_type* diag_ptr;
  const index_type* diag_col;
  const T* diag_val;
  const offset_type* offd_ptr;
  const index_type* offd_col;
  const T* offd_val;
  const std::int64_t* column_map;
  std::int64_t col_begin;
};

/// lengths[k] = entries (both blocks) of row rows[k] (of row k when rows is
/// null), for k < count; lengths[count] = 0 (ready for an exclusive scan).
template <class Exec, class T>
void row_lengths(const Exec& exec, size_type count, const index_type* rows, SplitRows<T> m,
                 offset_type* lengths);

/// Copies row rows[k] (row k when rows is null) of both blocks into
/// [out_ptr[k], out_ptr[k + 1]) (nnz entries in all) with global column
/// ids: the diagonal block's entries first, then the off-diagonal block's,
/// each in stored order (so the copy is the same on every executor).
template <class Exec, class T>
void gather_global_rows(const Exec& exec, size_type count, const index_type* rows, SplitRows<T> m,
                        const offset_type* out_ptr, offset_type nnz, std::int64_t* out_col,
                        T* out_val);

/// The two blocks side by side as one local CSR matrix [diag | offd]: the
/// off-diagonal block's column c becomes diag_cols + c. out_ptr[i] =
/// diag_ptr[i] + offd_ptr[i] for i <= rows.
template <class Exec>
void hstack_pointers(const Exec& exec, size_type rows, const offset_type* diag_ptr,
                     const offset_type* offd_ptr, offset_type* out_ptr);
/// Entries of [diag | offd] into the row pointers from hstack_pointers
/// (nnz entries in all); out_col may be null when only the values are
/// wanted (a recompute).
template <class Exec, class T>
void hstack_entries(const Exec& exec, size_type rows, SplitRows<T> m, index_type diag_cols,
                    const offset_type* out_ptr, offset_type nnz, index_type* out_col, T* out_val);

/// out[i] = in[i] + shift for i < n (row pointers of rows stacked below
/// others).
template <class Exec>
void shift_offsets(const Exec& exec, size_type n, const offset_type* in, offset_type shift,
                   offset_type* out);

/// lengths[i] = ptr[i + 1] - ptr[i] for i < rows (the row lengths that
/// travel ahead of the rows' entries).
template <class Exec>
void row_lengths_of(const Exec& exec, size_type rows, const offset_type* ptr,
                    offset_type* lengths);

/// flags[i] = 1 when row i of ptr has entries, else 0, for i < rows;
/// flags[rows] = 0 (scanned, the positions of the non-empty rows).
template <class Exec>
void nonempty_row_flags(const Exec& exec, size_type rows, const offset_type* ptr,
                        offset_type* flags);

/// out[position[i]] = i for every row i with position[i + 1] > position[i]
/// (position: the scanned nonempty_row_flags).
template <class Exec>
void list_flagged_rows(const Exec& exec, size_type rows, const offset_type* position,
                       index_type* out);

/// y[rows[k]] = alpha (row rows[k] of the CSR block) x + y[rows[k]] for
/// k < count: the off-diagonal block's product on its non-empty rows only,
/// which on a fine level are the few along the process boundaries (the
/// whole-block product read every row pointer and every y twice).
template <class Exec, class T>
void spmv_listed_rows(const Exec& exec, size_type count, const index_type* rows,
                      const offset_type* ptr, const index_type* cols, const T* values, T alpha,
                      const T* x, T* y);

/// How many of the count / m groups of m consecutive ids[] are not one
/// whole node (ids g m, g m + 1, ..., g m + m - 1 for some g); count must
/// be a multiple of m.
template <class Exec>
size_type split_nodes(const Exec& exec, size_type count, const std::int64_t* ids, int m);

/// spmv_listed_rows with alpha = 1 that also returns the sum over the
/// listed rows of x[rows[k]] times what row rows[k] added to y: the
/// boundary rows' part of x^T (A x).
template <class Exec, class T>
T spmv_listed_rows_dot(const Exec& exec, size_type count, const index_type* rows,
                       const offset_type* ptr, const index_type* cols, const T* values,
                       const T* ghosts, const T* x, T* y);

/// x[rows[k]] -= d[rows[k]] (row rows[k] of the CSR block) ghosts, for
/// k < count: the off-diagonal block's part of a Jacobi sweep.
template <class Exec, class T>
void jacobi_listed_rows(const Exec& exec, size_type count, const index_type* rows,
                        const offset_type* ptr, const index_type* cols, const T* values,
                        const T* d, const T* ghosts, T* x);

/// Global column ids into a compact local numbering: an owned id (in
/// [own_begin, own_begin + own_count)) as id - own_begin, another as
/// own_count + its position in the sorted, distinct foreign[0..foreign_size).
template <class Exec>
void compact_columns(const Exec& exec, size_type n, const std::int64_t* ids, std::int64_t own_begin,
                     std::int64_t own_count, const std::int64_t* foreign, size_type foreign_size,
                     index_type* out);
/// The inverse of compact_columns (also: local columns below own_count
/// widened to global ids, with foreign unused).
template <class Exec>
void expand_columns(const Exec& exec, size_type n, const index_type* cols, std::int64_t own_begin,
                    std::int64_t own_count, const std::int64_t* foreign, std::int64_t* out);

/// keys[e] = rows[k] (k when rows is null) for every entry e of row k of a
/// block with row pointers ptr (count rows, nnz entries): the row each
/// entry belongs to (for received rows, the owner's local row).
template <class Exec>
void row_keys(const Exec& exec, size_type count, const offset_type* ptr, const index_type* rows,
              offset_type nnz, index_type* keys);

/// out[i] = a[i] + b[i] for i < n: the row pointers of rows that take
/// their entries from two blocks of the same rows.
template <class Exec>
void add_offsets(const Exec& exec, size_type n, const offset_type* a, const offset_type* b,
                 offset_type* out);

/// Row r of the result (offsets ptr = a_ptr + b_ptr, nnz entries): row r
/// of a (local columns, made global by adding a_begin) followed by row r
/// of b (global columns), each in stored order.
template <class Exec, class T>
void merge_rows(const Exec& exec, size_type rows, const offset_type* a_ptr,
                const index_type* a_col, std::int64_t a_begin, const T* a_val,
                const offset_type* b_ptr, const std::int64_t* b_col, const T* b_val,
                const offset_type* ptr, offset_type nnz, std::int64_t* col, T* val);

/// row_ptr[i] = the first position whose key is >= i, for i <= rows, in
/// keys[0..n) sorted ascending: the row pointers of entries sorted by row.
template <class Exec>
void offsets_from_sorted_keys(const Exec& exec, size_type rows, const index_type* keys, size_type n,
                              offset_type* row_ptr);

}  // namespace strata::kernels::distributed
