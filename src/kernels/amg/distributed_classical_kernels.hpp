#pragma once
// Kernel contract of classical coarsening on a distributed matrix
// (src/core/amg/distributed_classical.cpp): the pieces that differ from the
// serial kernels (classical_kernels.hpp), which the distributed code reuses
// for strength and interpolation on a local view of its rows.
//
// Notation. A process owns n rows. Its "local view" L is a CSR matrix of
// those n rows whose columns are local: j < n is owned point j, j >= n is
// ghost point j - n (a column of the distributed matrix's off-diagonal block,
// in the order of its column map; localize() below makes L from the rows
// with global column ids). Arrays over points come in two parts, the
// owned part (n entries) and the ghost part (one entry per ghost), so that
// the ghost part can be what a halo exchange returns. `strong` flags L's
// entries (classical_kernels.hpp's strength() on L). Arguments are raw
// pointers in the executor's memory; the core has checked sizes and
// locations. The bodies are in distributed_classical_kernels.ipp.

#include <cstdint>

#include "strata/core/executor.hpp"
#include "strata/core/types.hpp"

namespace strata::kernels::distributed_classical {

/// PMIS influence: for every strong off-diagonal entry (i, j) of L, one more
/// point depends on j: owned_count[j] += 1 (j < n) or ghost_count[j - n] += 1.
/// Both arrays must be zero on entry. (The ghost counts then go to their
/// owners: reverse halo exchange and add_at.)
template <class Exec>
void pmis_influence(const Exec& exec, size_type n, const offset_type* row_ptr,
                    const index_type* col_idx, const std::uint8_t* strong,
                    std::int32_t* owned_count, std::int32_t* ghost_count);

/// target[index[k]] += value[k] for k < count (indices may repeat).
template <class Exec>
void add_at(const Exec& exec, size_type count, const std::int32_t* value, const index_type* index,
            std::int32_t* target);

/// target[index[k]] = 0 where value[k] == 0, for k < count (a logical AND of
/// flags; indices may repeat).
template <class Exec>
void clear_at(const Exec& exec, size_type count, const std::int32_t* value, const index_type* index,
              std::int32_t* target);

/// PMIS set-up of the owned points, as the serial pmis(): weight_i =
/// influence_i + random_unit(seed, hash_begin + h_i), h_i = hash_offset[i]
/// (hash_offset null: i); a point with no strong connection either way is
/// decided (cf = kFine, or kCoarse with isolated_coarse; weight = -1); the
/// others are undecided (cf = kUndecided, cand = 1). Returns the undecided
/// count. (The first pass hashes the global row, hash_begin + i; the second
/// pass of aggressive coarsening, whose rows are C points, hashes their fine
/// global index as the serial second pass does.)
template <class Exec>
size_type pmis_weights(const Exec& exec, size_type n, const offset_type* row_ptr,
                       const index_type* col_idx, const std::uint8_t* strong, std::uint64_t seed,
                       std::int64_t hash_begin, const index_type* hash_offset, bool isolated_coarse,
                       const std::int32_t* influence, double* weight, std::int32_t* cf,
                       std::int32_t* cand);

/// One independent-set pass of PMIS over the owned rows: an undecided point
/// i (weight >= 0) loses its candidacy when a strong neighbour j (either
/// part) that is undecided beats it in (weight, global id); otherwise it
/// clears the candidacy of that neighbour (owned_cand or ghost_cand). The
/// global id of j is row_begin + j for owned points, ghost_id[j - n] for
/// ghosts. Decided points have weight < 0.
template <class Exec>
void pmis_select(const Exec& exec, size_type n, const offset_type* row_ptr,
                 const index_type* col_idx, const std::uint8_t* strong, std::int64_t row_begin,
                 const std::int64_t* ghost_id, const double* owned_weight,
                 const double* ghost_weight, std::int32_t* owned_cand, std::int32_t* ghost_cand);

/// The decisions of a PMIS round over the owned points: an undecided
/// candidate becomes C, an undecided point with a strong connection to a
/// candidate (either part) becomes F; decided points get weight -1.
/// next_cand[i] = 1 for the points still undecided, 0 otherwise. Returns
/// their number.
template <class Exec>
size_type pmis_decide(const Exec& exec, size_type n, const offset_type* row_ptr,
                      const index_type* col_idx, const std::uint8_t* strong,
                      const std::int32_t* owned_cand, const std::int32_t* ghost_cand,
                      std::int32_t* cf, double* weight, std::int32_t* next_cand);

/// out[i] = coarse_begin + cmap[i] for C points (cf[i] == kCoarse), -1 for
/// the others: the global coarse ids of the owned points.
template <class Exec>
void coarse_ids(const Exec& exec, size_type n, const std::int32_t* cf, const index_type* cmap,
                std::int64_t coarse_begin, std::int64_t* out);

/// The candidates for the extended points, ghosts + fetched entries of
/// them: out[k] = ghost_ids[k] for k < ghosts, then each fetched column,
/// an owned one (row_begin <= g < row_end) replaced by ghost_ids[0] so that
/// a later sort and unique drops it (there is a fetched column only when
/// there are ghosts).
template <class Exec>
void extended_candidates(const Exec& exec, size_type ghosts, const std::int64_t* ghost_ids,
                         size_type fetched, const std::int64_t* fetched_cols,
                         std::int64_t row_begin, std::int64_t row_end, std::int64_t* out);

/// From each candidate's position among the sorted distinct extended
/// points (extended_candidates, then a sort and unique): for ghost k,
/// ghost_column[k] = n + position[k] and source[position[k]] = k (the ghost
/// row holding the point's row; the others keep -1); for fetched entry q,
/// fetched_col[q] = its owned local column, or n + position[ghosts + q].
template <class Exec>
void extended_columns(const Exec& exec, size_type n, size_type ghosts, size_type fetched,
                      const index_type* position, const std::int64_t* fetched_cols,
                      std::int64_t row_begin, std::int64_t row_end, index_type* ghost_column,
                      index_type* fetched_col, index_type* source);

/// The local column of each global id: g - row_begin when g is owned
/// (row_begin <= g < row_end), else n + (position of g in the sorted,
/// distinct ids[0..count)), where every non-owned id must appear.
template <class Exec>
void localize(const Exec& exec, size_type m, const std::int64_t* global, std::int64_t row_begin,
              std::int64_t row_end, const std::int64_t* ids, size_type count, index_type* out);

/// Row counts of the extended matrix E (n + count rows): row i < n has
/// local_ptr's length, row n + u has the length of fetched row source[u]
/// (source[u] = -1: an id without a row, length 0); count[n + count] = 0.
template <class Exec>
void extended_counts(const Exec& exec, size_type n, size_type count, const offset_type* local_ptr,
                     const offset_type* fetched_ptr, const index_type* source,
                     offset_type* extended_count);

/// Fills E: row i < n is row i of the local view with its ghost columns
/// j >= n renumbered to ghost_column[j - n]; row n + u is fetched row
/// source[u] with its columns fetched_col (already local). Orders kept.
/// col may be null: values only, on E's existing pattern (refresh).
template <class Exec, class T>
void extended_fill(const Exec& exec, size_type n, size_type count, const offset_type* local_ptr,
                   const index_type* local_col, const T* local_val, const index_type* ghost_column,
                   const offset_type* fetched_ptr, const index_type* fetched_col,
                   const T* fetched_val, const index_type* source, const offset_type* ptr,
                   offset_type nnz, index_type* col, T* val);

/// The roles of E's points for one-stage interpolation of the owned rows:
/// owned C points are targets, owned F points interpolated; a point of the
/// extended set (coarse_id[u] >= 0: C) is a target or an intermediate
/// (kIntermediate: it relays, without a row of P). Coarse columns are
/// numbered in the order of the global coarse ids: the `below` extended
/// targets with ids below the owned ones, then the owned C points
/// (below + cmap[i]), then the rest, so that the local order of P's columns
/// is the global one. extended_rank[u] = #{targets among ids before u}
/// (from an enumerate). Rows of P: owned point i -> i, extended target u ->
/// n + extended_rank[u]. table[c] = the global coarse id of local column c.
template <class Exec>
void extended_roles(const Exec& exec, size_type n, size_type count, const std::int32_t* cf,
                    const index_type* cmap, std::int64_t coarse_begin, size_type owned_coarse,
                    const std::int64_t* coarse_id, const index_type* extended_rank, size_type below,
                    std::int32_t* role, index_type* column, index_type* row, std::int64_t* table);

/// The roles of E's points for the second stage P2 of two-stage
/// interpolation (aggressive coarsening), whose rows are the first-pass C
/// points and whose columns the final C points. The owned points' roles come
/// from classical::two_stage_roles() on the owned points: owned_role,
/// owned_column (final coarse index among the owned final C points, for
/// targets) and owned_row (first-pass C index: row of P2). An extended point
/// with coarse_id[u] >= 0 (a final C point) is a target whose row of P2
/// (owned_rows + extended_rank[u]) is dropped; the others relay
/// (kIntermediate): a first-pass C point beyond this process is interpolated
/// by its owner, and only its rows of A and S matter here. Columns are
/// numbered in global order as in extended_roles(); table[c] = the global
/// coarse id of column c.
template <class Exec>
void two_stage_extended_roles(const Exec& exec, size_type n, size_type count,
                              const std::int32_t* owned_role, const index_type* owned_column,
                              const index_type* owned_row, size_type owned_rows,
                              std::int64_t coarse_begin, size_type owned_coarse,
                              const std::int64_t* coarse_id, const index_type* extended_rank,
                              size_type below, std::int32_t* role, index_type* column,
                              index_type* row, std::int64_t* table);

/// Rows [first, first + rows) of a CSR pattern (ptr, col) as a row block
/// with global column ids: out_ptr[r] = ptr[first + r] - ptr[first] for
/// r <= rows, out_cols[k] = table[col[ptr[first] + k]].
template <class Exec>
void row_slice(const Exec& exec, size_type first, size_type rows, const offset_type* ptr,
               const index_type* col, const std::int64_t* table, offset_type* out_ptr,
               std::int64_t* out_cols);

/// Column c of a matrix whose columns are [below | owned | rest] (in global
/// order) renumbered to the order [owned | below | rest]: c - below for the
/// owned block, owned + c below it, c above it.
template <class Exec>
void owned_columns_first(const Exec& exec, size_type m, const index_type* col, size_type below,
                         size_type owned, index_type* out);

/// Row lengths of two row blocks stacked (a's `a_rows` rows, then b's
/// `b_rows`): count[r] for r < a_rows + b_rows, count[a_rows + b_rows] = 0.
template <class Exec>
void stacked_counts(const Exec& exec, size_type a_rows, size_type b_rows, const offset_type* a_ptr,
                    const offset_type* b_ptr, offset_type* count);

/// Fills the stacked rows (offsets ptr from stacked_counts and a scan, nnz
/// entries in all) with
/// the blocks' columns (already in the result's numbering) and values, in
/// stored order. col may be null: values only, on an existing pattern.
template <class Exec, class T>
void stacked_fill(const Exec& exec, size_type a_rows, size_type b_rows, const offset_type* a_ptr,
                  const index_type* a_col, const T* a_val, const offset_type* b_ptr,
                  const index_type* b_col, const T* b_val, const offset_type* ptr,
                  offset_type nnz, index_type* col, T* val);

/// New values of the distributed P from the values of the owned rows
/// (ptr, col, values: local coarse columns, table[col] global): each row's
/// entries with global column in [coarse_begin, coarse_end) go, in order,
/// to the diagonal block's row, the others to the off-diagonal block's row
/// (the order DistributedCsrMatrix keeps when it splits a row).
template <class Exec, class T>
void split_values(const Exec& exec, size_type n, const offset_type* ptr, const index_type* col,
                  const T* values, const std::int64_t* table, std::int64_t coarse_begin,
                  std::int64_t coarse_end, const offset_type* diag_ptr, T* diag_values,
                  const offset_type* offd_ptr, T* offd_values);

/// #{k < m : 0 <= ids[k] < bound}.
template <class Exec>
size_type count_below(const Exec& exec, size_type m, const std::int64_t* ids, std::int64_t bound);

/// markers[k] = 1 if ids[k] >= 0 else 0 (C points of the extended set).
template <class Exec>
void mark_coarse(const Exec& exec, size_type m, const std::int64_t* ids, std::int32_t* markers);

/// out[k] = table[col[k]] (local coarse columns to global coarse ids).
template <class Exec>
void globalize(const Exec& exec, size_type m, const index_type* col, const std::int64_t* table,
               std::int64_t* out);

}  // namespace strata::kernels::distributed_classical
