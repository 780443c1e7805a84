#pragma once
// Kernel contract of the incomplete LU factorizations behind
// strata/matrix/ilu.hpp. A factor is one CSR matrix L\U with ascending
// columns in every row: the strictly lower entries are L (unit diagonal
// implied), the diagonal and the entries above it are U.
//
// The numeric factorization is the row-wise (IKJ) ILU of Saad, "Iterative
// Methods for Sparse Linear Systems", Algorithm 10.4, run level by level:
// row i needs the finished rows k < i with l_ik in its pattern, which are
// exactly the dependencies of the lower triangular solve with that
// pattern, so the rows of one level of that solve are factored in parallel
// (on the host and the device alike) and the result is the sequential
// ILU's, whatever the schedule.
//
// Pointers are in the executor's memory; the entry points in src/core/ilu.cpp
// have checked locations and sizes.

#include <cstdint>
#include <vector>

#include "strata/core/executor.hpp"
#include "strata/core/types.hpp"

namespace strata::kernels::ilu {

/// True when the columns of every row strictly ascend.
template <class Exec>
bool rows_sorted(const Exec& exec, size_type rows, const offset_type* row_ptr,
                 const index_type* col_idx);

/// Each row's entries sorted by column into (out_col, out_val), rows in
/// place (row_ptr unchanged). Columns within a row are distinct.
template <class Exec, class T>
void sort_rows(const Exec& exec, size_type rows, size_type nnz, const offset_type* row_ptr,
               const index_type* col_idx, const T* values, index_type* out_col, T* out_val);

/// diag[i] = the position of a_ii in row i (sorted rows) and scale[i] =
/// max_j |a_ij|. Returns the smallest row without a diagonal entry in its
/// pattern, or -1.
template <class Exec, class T>
size_type diagonal_positions(const Exec& exec, size_type rows, const offset_type* row_ptr,
                             const index_type* col_idx, const T* values, offset_type* diag,
                             T* scale);

/// Factors the rows order[q], q in [begin, end), in place, each by
///   for the entries k < i of row i, ascending:
///     l_ik = a_ik / u_kk;
///     a_ij -= l_ik u_kj for every j > k in the patterns of both rows k and i,
/// reading only rows k that earlier levels finished. Both rows are sorted,
/// so the update is a merge of the two.
template <class Exec, class T>
void factor_level(const Exec& exec, size_type begin, size_type end, const index_type* order,
                  const offset_type* row_ptr, const index_type* col_idx, const offset_type* diag,
                  T* values);

/// The device's factorization of every level (level_ptr: on the host, the
/// first position of each level in order, levels + 1 entries), with
/// factor_level's arithmetic in its order: the same factor. A row goes to
/// a group of lanes, each holding up to four of its entries (and, for
/// those left of the diagonal, the pivot row's diagonal and end) in
/// registers; the steps k run in order, each broadcasting l_ik from the
/// lane that holds it and row k's entries right of its diagonal, which
/// every lane matches against the columns it holds. factor_level's thread
/// per row walks both rows with a chain of dependent loads per entry
/// (about 0.25 of the 0.41 s of a 27-point ILU(0) at 256^3 on an H200).
/// Rows longer than the group holds are factored by the group's first
/// lane in factor_level's way.
template <class T>
void factor_levels(const CudaExec& exec, const std::vector<offset_type>& level_ptr, size_type nnz,
                   const index_type* order, const offset_type* row_ptr, const index_type* col_idx,
                   const offset_type* diag, T* values);

/// The smallest row i whose pivot u_ii is not finite or has
/// |u_ii| <= tiny * scale[i], or -1. A bad pivot makes every later row
/// that depends on it non-finite, so the smallest such row is where the
/// sequential factorization breaks down first.
template <class Exec, class T>
size_type first_bad_pivot(const Exec& exec, size_type rows, const offset_type* diag,
                          const T* values, const T* scale, T tiny);

/// ILU(k) symbolic phase on the host: the pattern of the level-of-fill
/// factorization (Saad, section 10.3.3). Entries of A have level 0; a fill
/// entry (i, j) made through pivot k gets lev(i,k) + lev(k,j) + 1, the
/// smallest over all k, and is kept when that is <= level_of_fill. Rows of
/// the input are sorted; so are the output rows.
void iluk_pattern(const HostExec& exec, size_type rows, const offset_type* row_ptr,
                  const index_type* col_idx, int level_of_fill, std::vector<offset_type>& out_ptr,
                  std::vector<index_type>& out_col);

/// ILUT(p, tau) on the host (Saad, Algorithm 10.6): row i is eliminated in
/// a dense work row; a multiplier l_ik below tau ||a_i||_2 is dropped
/// before it is used, and after the elimination so are the entries below
/// tau ||a_i||_2; then at most max_fill entries of L and max_fill of U (the
/// largest) are kept besides the diagonal. Returns the first row whose
/// pivot is zero or not finite (its factor then stops there), or -1.
template <class T>
size_type ilut(const HostExec& exec, size_type rows, const offset_type* row_ptr,
               const index_type* col_idx, const T* values, double drop_tolerance, int max_fill,
               std::vector<offset_type>& out_ptr, std::vector<index_type>& out_col,
               std::vector<T>& out_val);

}  // namespace strata::kernels::ilu
