#pragma once
// Kernel contract of unsmoothed aggregation AMG (strata/amg/aggregation.hpp):
// the parallel steps of the four setup stages. The bodies are written once
// (aggregation_kernels.ipp) against the parallel primitives; the backends
// instantiate them (backend/{host,cuda}/amg/aggregation_kernels.*), and the
// CUDA one adds a radix sort limited to the key bits in use.
//
// Reproducibility: no step depends on thread timing. Comparisons are on
// values that both backends compute identically, and sums run in a fixed
// order with separately rounded multiplies and adds (no fused multiply-add on
// the device), so host and device produce the same aggregates and
// bit-identical coarse matrices.
//
// Arguments are checked by the caller (src/core/amg/aggregation.cpp).

#include <cstdint>

#include "kernels/base/hd.hpp"
#include "strata/amg/aggregation.hpp"
#include "strata/core/array.hpp"
#include "strata/core/executor.hpp"
#include "strata/core/types.hpp"

namespace strata::kernels::aggregation {

/// The global id of a point of a graph in local numbering: points
/// [0, owned) are this process's rows first .. first + owned - 1, points
/// owned + g its ghosts, ghosts[g] (sorted global ids). The serial graph is
/// {0, rows, nullptr}. MIS(2) hashes and compares these ids, not the local
/// ones, so a distributed level picks the serial roots.
struct PointIds {
  std::int64_t first = 0;
  size_type owned = 0;
  const std::int64_t* ghosts = nullptr;
  STRATA_HD std::int64_t operator()(size_type j) const {
    return j < owned ? first + j : ghosts[j - owned];
  }
};

// ------------------------------------------------------------ 1. strength

/// Per row i of A: sign[i] = s_i = sign(a_ii) (+1 for a_ii >= 0 or no
/// diagonal) and strongest[i] = max_{j != i} (-s_i a_ij), or 0 when no
/// off-diagonal entry has the sign opposite to the diagonal. Returns
/// whether every row lists its columns in strictly ascending order (then
/// mark_strong finds transposed entries by binary search). One pass. nnz
/// is row_ptr[rows], here and below (the CUDA forms size their lane groups
/// by nnz / rows).
template <class Exec, class T>
bool row_strength(const Exec& exec, size_type rows, size_type nnz, const offset_type* row_ptr,
                  const index_type* col_idx, const T* values, T* sign, T* strongest);

/// Marks the edges of the symmetric strength graph. For each entry e = (i, j),
/// j != i, of A: C_ij = -s_i a_ij > max(0, alpha strongest_i); C_ji from the
/// entry (j, i), found by a binary search of row j (`sorted`) or a scan. strong[e] = C_ij || C_ji;
/// count[i] = number of strong entries of row i, influence[i] = sum of C_ji
/// over row i. Returns the number of entries (i, j) whose transpose (j, i)
/// is not stored (the pattern is not symmetric: the caller symmetrises it
/// and starts again).
/// out[k] = values[t] for entry k = (i, j) of a square block and t its
/// transposed entry (j, i): the block's transpose on its own pattern, for a
/// structurally symmetric block whose rows list their columns strictly
/// ascending (then equal to transpose() of (row_ptr, col_idx, values)).
/// Returns how many entries have no transposed entry or sit out of order
/// (then out is meaningless and the caller transposes).
template <class Exec, class T>
size_type transposed_values(const Exec& exec, size_type rows, const offset_type* row_ptr,
                            const index_type* col_idx, const T* values, T* out);

template <class Exec, class T>
size_type mark_strong(const Exec& exec, size_type rows, size_type nnz, const offset_type* row_ptr,
                      const index_type* col_idx, const T* values, bool sorted, T alpha,
                      const T* sign, const T* strongest, std::uint8_t* strong, offset_type* count,
                      index_type* influence);

/// Copies the marked entries into the graph (row offsets g_row_ptr, from a
/// scan of count): columns and weights -s_i a_ij / strongest_i (0 when
/// strongest_i is 0).
template <class Exec, class T>
void fill_strength_graph(const Exec& exec, size_type rows, size_type nnz,
                         const offset_type* row_ptr, const index_type* col_idx, const T* values,
                         const T* sign, const T* strongest, const std::uint8_t* strong,
                         const offset_type* g_row_ptr, index_type* g_col_idx, T* g_weight);

/// row_strength, mark_strong and fill_strength_graph on the GPU with a group
/// of 4 to 32 lanes per row, sized to the mean row length, so that a row's
/// entries are read together (backend/cuda/amg/aggregation_kernels.cu): the
/// single-source bodies give each row one thread, whose loads over a
/// 27-entry row hit a different sector per thread of a warp (27-point 192^3
/// on an H200: 38 ms for the strength stage). Same results bit for bit.
template <class T>
bool row_strength(const CudaExec& exec, size_type rows, size_type nnz, const offset_type* row_ptr,
                  const index_type* col_idx, const T* values, T* sign, T* strongest);
template <class T>
size_type mark_strong(const CudaExec& exec, size_type rows, size_type nnz,
                      const offset_type* row_ptr, const index_type* col_idx, const T* values,
                      bool sorted, T alpha, const T* sign, const T* strongest, std::uint8_t* strong,
                      offset_type* count, index_type* influence);
template <class T>
void fill_strength_graph(const CudaExec& exec, size_type rows, size_type nnz,
                         const offset_type* row_ptr, const index_type* col_idx, const T* values,
                         const T* sign, const T* strongest, const std::uint8_t* strong,
                         const offset_type* g_row_ptr, index_type* g_col_idx, T* g_weight);

/// A + 0 A^T: A's entries plus an explicit zero at (j, i) for every entry
/// (i, j) whose transpose is missing, rows sorted by column (a sort of the
/// 2 nnz keys i * n + j and a reduction by key).
template <class Exec, class T>
CsrMatrix<T> symmetrize_pattern(const Exec& exec, size_type rows, size_type nnz,
                                const offset_type* row_ptr, const index_type* col_idx,
                                const T* values);

/// Distributed strength, per entry e = (i, j) of this process's rows
/// (sign and strongest from row_strength on the whole rows): code[e] = 2
/// when C_ij (j != i), else 1 (a stored entry), and weight[e] = -s_i a_ij /
/// strongest_i (0 when strongest_i is 0; weight may be null). Column j of
/// the block is compared with i as j + column_offset: 0 for the local view
/// or the diagonal block, the row count for the off-diagonal block (no
/// diagonal there). The codes are transposed (the diagonal block's by a
/// local transpose, the off-diagonal block's across processes), so that
/// each process learns C_ji for its rows from the rows j that hold it.
template <class Exec, class T>
void strength_codes(const Exec& exec, size_type rows, const offset_type* row_ptr,
                    const index_type* col_idx, const T* values, index_type column_offset, T alpha,
                    const T* sign, const T* strongest, T* code, T* weight);

/// Row r of the transposed strength codes: the entries (j, r) stored in
/// this process's rows (its diagonal block transposed: local columns j,
/// global first + j) and those stored in other processes' rows (global
/// columns), each with code 2 when C_jr, 1 when only stored.
template <class T>
struct TransposedCodes {
  const offset_type* local_ptr = nullptr;
  const index_type* local_cols = nullptr;
  const T* local_code = nullptr;
  const offset_type* remote_ptr = nullptr;
  const std::int64_t* remote_cols = nullptr;
  const T* remote_code = nullptr;
};

/// The strength graph's row r (global row first + r) as the union of the
/// row's stored entries (a_ptr, a_cols: global columns, a_code from
/// strength_codes) and its transposed entries `t`: an edge to every j != i
/// with C_ij or C_ji, the transposed-only entries ((j, i) stored, (i, j)
/// not) included, as the serial graph of A + 0 A^T. Each column is looked
/// up in the other list by a scan (rows are short; nothing needs sorting).
/// Counts: count[r] edges (count has rows + 1 entries, the last 0),
/// influence[r] = #{j != i : C_ji}.
template <class Exec, class T>
void union_counts(const Exec& exec, size_type rows, std::int64_t first, const offset_type* a_ptr,
                  const std::int64_t* a_cols, const T* a_code, TransposedCodes<T> t,
                  offset_type* count, index_type* influence);

/// Fills the edges counted by union_counts (g_row_ptr, a scan of count):
/// the global column and the weight (a_weight of the stored entry, 0 for a
/// transposed-only one), the stored entries first in their order.
template <class Exec, class T>
void union_fill(const Exec& exec, size_type rows, std::int64_t first, const offset_type* a_ptr,
                const std::int64_t* a_cols, const T* a_code, const T* a_weight,
                TransposedCodes<T> t, const offset_type* g_row_ptr, std::int64_t* g_cols,
                T* g_weight);

// --------------------------------------------------------------- 2. MIS(2)

/// MIS(2) states (an unscoped enum so that device code can use them as
/// plain constants).
enum MisState : std::int8_t { not_root = -1, undecided = 0, root = 1 };

/// state[i] = undecided, or not_root for a point without strong connections
/// (left out of the aggregates). priority[i] = the v_i of Algorithm 2 as a
/// 30-bit integer: min(influence_i, 4095) in the high 12 bits, 18 bits of
/// hash(seed, first + i) below (the random part in [0, 1)), first + i being
/// the global row (0 for a serial level).
template <class Exec>
void mis2_init(const Exec& exec, size_type rows, const offset_type* g_row_ptr,
               const index_type* influence, std::uint64_t seed, std::int64_t first,
               std::int8_t* state, std::uint32_t* priority);

/// First round of maximum propagation: tuple[i] = max over i and its
/// neighbours j of (state_j, priority_j, j), packed into 64 bits as
/// (state + 1) << 62 | priority << 32 | j so that the integer maximum is the
/// lexicographic one.
template <class Exec>
void mis2_propagate(const Exec& exec, size_type rows, const offset_type* g_row_ptr,
                    const index_type* g_col_idx, const std::int8_t* state,
                    const std::uint32_t* priority, std::uint64_t* tuple);

/// Second round, fused with the decision: the maximum T over i and its
/// neighbours of `tuple` (the distance-two maximum); an undecided i becomes a
/// root when T is its own tuple and not_root when T belongs to a root.
/// Returns the number of points still undecided. `tuple` holds one entry
/// per column of the graph (a distributed level's ghosts after the owned
/// points); row i's own id is first + i.
template <class Exec>
size_type mis2_decide(const Exec& exec, size_type rows, const offset_type* g_row_ptr,
                      const index_type* g_col_idx, const std::uint64_t* tuple, std::int64_t first,
                      std::int8_t* state);

/// mis2_propagate then mis2_decide, round after round until no point is
/// undecided (a serial level, first = 0), on the host: each round only over
/// the undecided points and their neighbours (the tuples the decisions
/// read), so that the late rounds, with few points left, cost little where
/// the full rounds read the whole graph each time. The same states as the
/// full rounds. Returns the number of rounds; stops after rows + 1 (which
/// the caller reports: each round decides at least one point).
size_type mis2_rounds(const HostExec& exec, size_type rows, const offset_type* g_row_ptr,
                      const index_type* g_col_idx, std::int8_t* state,
                      const std::uint32_t* priority, std::uint64_t* tuple);

/// A distributed level's MIS(2) works on packed tuples, which is what the
/// ghosts' owners send: self[i] = (state_i, priority_i, first + i) packed
/// as in mis2_propagate.
template <class Exec>
void mis2_pack(const Exec& exec, size_type rows, std::int64_t first, const std::int8_t* state,
               const std::uint32_t* priority, std::uint64_t* self);

/// mis2_propagate on packed tuples: tuple[i] = max of self over i and its
/// neighbours (self has an entry per column: owned points, then ghosts).
template <class Exec>
void mis2_propagate_packed(const Exec& exec, size_type rows, const offset_type* g_row_ptr,
                           const index_type* g_col_idx, const std::uint64_t* self,
                           std::uint64_t* tuple);

/// state[g] = the state packed in self[g] (the ghosts' states, from the
/// tuples their owners sent).
template <class Exec>
void mis2_unpack_state(const Exec& exec, size_type count, const std::uint64_t* self,
                       std::int8_t* state);

// ----------------------------------------------------------- aggregation

/// Numbers the roots in index order: aggregate[i] = first + number of
/// roots before i for a root, -1 otherwise; root[a - first] = the point of
/// root a (root has `roots` entries). Returns the number of roots. `first`
/// is the number of roots on the processes before this one (0 serially),
/// so that a distributed level numbers its aggregates as the serial one.
template <class Exec>
size_type number_roots(const Exec& exec, size_type rows, const std::int8_t* state, index_type first,
                       index_type* aggregate);
template <class Exec>
void list_roots(const Exec& exec, size_type rows, const std::int8_t* state,
                const index_type* aggregate, index_type first, index_type* root);

/// Every non-root with a strong connection joins its nearest root: first
/// the roots adjacent to it (distance one), then, for the rest, the
/// aggregate of an adjacent distance-one point. Among candidates the largest
/// weight wins, then the smallest index. Returns the number of points with
/// strong connections left without an aggregate (0 after a correct MIS(2)).
template <class Exec, class T>
size_type join_nearest_root(const Exec& exec, size_type rows, const offset_type* g_row_ptr,
                            const index_type* g_col_idx, const T* g_weight,
                            const std::int8_t* state, index_type* aggregate);

/// join_nearest_root in its two passes, for a graph whose columns go past
/// its rows (a distributed level: the ghosts' state, aggregate and distance
/// come from their owners between the passes). Ties go to the smaller
/// global id (`ids`). First pass: distance[i] = 0 for a root, 1 for a
/// point adjacent to a root (it joins the strongest such root's
/// aggregate), 2 for the others with edges, 3 without.
template <class Exec, class T>
void join_adjacent_root(const Exec& exec, size_type rows, const offset_type* g_row_ptr,
                        const index_type* g_col_idx, const T* g_weight, const std::int8_t* state,
                        PointIds ids, index_type* aggregate, std::int32_t* distance);

/// Second pass: each distance-two point joins the aggregate of its
/// strongest distance-one neighbour. Returns the number left without one.
template <class Exec, class T>
size_type join_distance_two(const Exec& exec, size_type rows, const offset_type* g_row_ptr,
                            const index_type* g_col_idx, const T* g_weight,
                            const std::int32_t* distance, PointIds ids, index_type* aggregate);

// ---------------------------------------------------------- 3. interpolation

/// Pattern of the tentative P: row i holds k entries (columns a k .. a k + k-1
/// for a = aggregate[i]) or none (aggregate[i] < 0). Writes row_ptr (rows + 1
/// entries), returns nnz.
template <class Exec>
size_type interpolation_pattern(const Exec& exec, size_type rows, const index_type* aggregate,
                                int k, offset_type* row_ptr);

/// P's columns and values: P(i, a k + c) = B(i, c), B column-major with
/// `rows` rows. Columns as local indices (I = index_type) or global ids
/// (I = std::int64_t: global ids of a distributed level's aggregates).
template <class Exec, class T, class I>
void interpolation_fill(const Exec& exec, size_type rows, const index_type* aggregate, int k,
                        const T* B, const offset_type* row_ptr, I* col_idx, T* values);

/// Modified Gram-Schmidt per aggregate on R = P^T (rows a k .. a k + k-1 of R
/// hold B's k columns over the points of aggregate a, ascending): makes them
/// orthonormal, writes the same values into P, and the R-factor into the
/// coarse B (column-major, aggregates * k rows): Bc(a k + r, c) = R_a(r, c).
/// A column whose norm after orthogonalisation is at most `drop_tolerance`
/// times its norm before is zeroed and keep[a k + c] = 0 (else 1). Returns
/// the number of dropped columns. p_values may be null (a distributed
/// level orthonormalizes R's rows on the aggregate's owner and makes P from
/// them by a transpose).
template <class Exec, class T>
size_type orthonormalize_aggregates(const Exec& exec, size_type aggregates, int k,
                                    const offset_type* r_row_ptr, const index_type* r_col_idx,
                                    T* r_values, const offset_type* p_row_ptr, T* p_values,
                                    T* coarse_B, index_type* keep, T drop_tolerance);

/// After dropped columns: keep[c] says whether column c stays, new_index[c]
/// (an exclusive scan of keep) is its new number. Returns P without the dropped columns
/// (renumbered), and writes the kept rows of the column-major B (rows
/// `old_cols`, `k` columns) into B_kept (rows `new_cols`).
template <class Exec, class T>
CsrMatrix<T> drop_columns(const Exec& exec, size_type rows, size_type old_cols, size_type new_cols,
                          const offset_type* p_row_ptr, const index_type* p_col_idx,
                          const T* p_values, const index_type* keep, const index_type* new_index,
                          int k, const T* B, T* B_kept);

/// Sorts each row's entries by column (insertion sort of the row, values
/// alongside): R's rows on a distributed level, so that Gram-Schmidt sums
/// over an aggregate's points in global order as the serial stage does.
/// Rows are aggregates (tens of entries).
template <class Exec, class T>
void sort_rows(const Exec& exec, size_type rows, const offset_type* row_ptr, std::int64_t* cols,
               T* values);

/// A distributed level's dropped columns are rows of R on the aggregates'
/// owner: count[new_index[r]] = the length of row r of R for each kept r
/// (new_index an exclusive scan of keep; count has kept + 1 entries, the
/// last 0), so that a scan of count gives the kept rows' offsets.
template <class Exec>
void kept_row_lengths(const Exec& exec, size_type rows, size_type kept, const index_type* keep,
                      const index_type* new_index, const offset_type* row_ptr, offset_type* count);

/// The kept rows of R (out_ptr: the scan of kept_row_lengths) and of the
/// column-major coarse B (rows `rows` -> `kept` rows), as drop_columns
/// keeps P's columns.
template <class Exec, class T>
void copy_kept_rows(const Exec& exec, size_type rows, size_type kept, const index_type* keep,
                    const index_type* new_index, const offset_type* row_ptr,
                    const std::int64_t* cols, const T* values, const offset_type* out_ptr,
                    std::int64_t* out_cols, T* out_values, int k, const T* B, T* B_kept);

// ----------------------------------------------------------------- 4. Galerkin

/// The plan of SortReduceCoarseProduct (aggregation.hpp): equation 7 as two
/// segmented reductions.
///  1. Row by row of A, the products a_ij p_jJ (one per pair (e, q) of a
///     nonzero e = (i, j) and an entry q of P's row j) with equal J are summed
///     into one slot (i, J). The pairs of row i, in the order of e then q,
///     are [pair_ptr[i], pair_ptr[i+1]); pair_slot says which of the row's
///     slots [slot_ptr[i], slot_ptr[i+1]) each one adds into (slots are
///     numbered in the order their J first appears).
///  2. Every product p_iI s_(i,J) of an entry p of P's row i and a slot of
///     row i becomes the key I n_c + J; the keys are sorted stably and equal
///     keys summed in that order: for the k-th product in sorted order,
///     left[k] = p and slot[k] = its slot; coarse nonzero r sums the products
///     [segment_start[r], segment_start[r+1]).
/// Step 1 is the pre-combination of the duplicates that sit side by side in
/// each row (for piecewise-constant P most of a row maps to one or two
/// aggregates), so the sort handles a few keys per row instead of one per
/// nonzero of A. row_ptr and col_idx are A_c's pattern (n_c = P.cols()).
///
/// single_entry (every row of P holds exactly one entry: k = 1, every point
/// aggregated): the plan is then flattened into one sequence per coarse
/// nonzero r, [segment_start[r], segment_start[r+1]), of the products
/// p[left] a[entry] p[right] themselves (in sorted order, then A's order
/// within a slot), and galerkin_values sums those in one pass, with no slot
/// scratch and contiguous index reads; pair_ptr, pair_slot and slot_ptr are
/// then empty.
struct GalerkinPlan {
  bool single_entry = false;
  /// Length of the sorted sequence (products of an entry of P and a slot).
  size_type sorted_products = 0;
  Array<offset_type> entry, right;
  Array<offset_type> pair_ptr;
  Array<index_type> pair_slot;
  Array<offset_type> slot_ptr;
  Array<offset_type> left, slot, segment_start;
  Array<offset_type> row_ptr;
  Array<index_type> col_idx;
};

template <class Exec>
GalerkinPlan galerkin_plan(const Exec& exec, size_type rows, const offset_type* a_row_ptr,
                           const index_type* a_col_idx, const offset_type* p_row_ptr,
                           const index_type* p_col_idx, size_type coarse);

/// The plan's arrays as raw pointers (null where the plan has none).
struct GalerkinPlanView {
  bool single_entry = false;
  const offset_type* pair_ptr = nullptr;
  const index_type* pair_slot = nullptr;
  const offset_type* slot_ptr = nullptr;
  const offset_type* left = nullptr;
  const offset_type* slot = nullptr;
  const offset_type* entry = nullptr;
  const offset_type* right = nullptr;
  const offset_type* segment_start = nullptr;
};

/// A_c's values on the plan. Single entry: the flat sums. Otherwise step 1
/// into slot_values (one per slot, scratch kept by the caller), then step 2.
template <class Exec, class T>
void galerkin_values(const Exec& exec, size_type rows, size_type coarse_nnz,
                     const offset_type* a_row_ptr, const index_type* a_col_idx,
                     const offset_type* p_row_ptr, const GalerkinPlanView& plan, const T* a_values,
                     const T* p_values, T* slot_values, T* ac_values);

// ------------------------------------------------ the host's Galerkin product
// R A P row by row with a dense accumulator per thread (Gustavson's method
// for the triple product): on the host the sort of sort/reduce costs more
// than the whole product, while a coarse row's accumulator (n_c entries)
// stays in cache. Host only; the device keeps sort/reduce. Each coarse row
// is summed in a fixed order (its fine rows as R lists them, then A's and
// P's entries in stored order), so the result does not depend on the
// thread count.

/// A_c's pattern and values in one pass over R A P (the first product of a
/// setup): each thread collects its rows' (column, sum) pairs, sorts each
/// row by column, and copies them into place after the row counts are
/// scanned. The sums are those of galerkin_rows_values, bit for bit (each
/// (I, J) summed from zero in the same order).
template <class T>
void galerkin_rows_product(const HostExec& exec, size_type coarse, const offset_type* r_row_ptr,
                           const index_type* r_col_idx, const T* r_values,
                           const offset_type* a_row_ptr, const index_type* a_col_idx,
                           const T* a_values, const offset_type* p_row_ptr,
                           const index_type* p_col_idx, const T* p_values,
                           Array<offset_type>& row_ptr, Array<index_type>& col_idx,
                           Array<T>& values);

/// A_c's values on that pattern: ac[I, J] = sum over i in R's row I, j in
/// A's row i, J in P's row j of r_Ii a_ij p_jJ.
template <class T>
void galerkin_rows_values(const HostExec& exec, size_type coarse, const offset_type* r_row_ptr,
                          const index_type* r_col_idx, const T* r_values,
                          const offset_type* a_row_ptr, const index_type* a_col_idx,
                          const T* a_values, const offset_type* p_row_ptr,
                          const index_type* p_col_idx, const T* p_values,
                          const offset_type* ac_row_ptr, const index_type* ac_col_idx,
                          T* ac_values);

}  // namespace strata::kernels::aggregation
