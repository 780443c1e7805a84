#pragma once
// Kernel contract of classical coarsening (strata/amg/classical.hpp): the
// strength of connection, PMIS, the operands of the MM interpolations, direct
// interpolation, truncation, and the pieces of aggressive coarsening.
//
// The bodies are written once in classical_kernels.ipp against the parallel
// primitives; the CUDA backend adds a tuned strength kernel (a group of lanes
// per row, the hypre paper's Algorithm 2), declared here beside the generic
// one. Arguments are raw pointers in the executor's memory; the core
// (src/core/amg/classical.cpp) has checked locations and sizes.
//
// Notation. A is n x n in CSR (row_ptr, col_idx, values); strong[k] != 0
// marks entry k of A as a strong connection (never the diagonal). Points of a
// level have a splitting marker cf (kCoarse or kFine). Interpolation works on
// roles: kTarget (a coarse point of the interpolation being built, column
// cmap[i] of P), kInterpolated (a row of P computed by the formula) and
// kIntermediate (an F point that only relays: a neighbour through which
// distance-two interpolation passes, without a row of its own in P; used by
// the second stage of two-stage interpolation). Rows of P are the points with
// role >= 0, P's row of point i being dmap[i].

#include <cstdint>
#include <utility>

#include "strata/core/array.hpp"
#include "strata/core/executor.hpp"
#include "strata/core/types.hpp"
#include "strata/matrix/csr.hpp"

namespace strata::kernels::classical {

inline constexpr std::int32_t kCoarse = 1;
inline constexpr std::int32_t kFine = -1;
inline constexpr std::int32_t kUndecided = 0;

inline constexpr std::int32_t kTarget = 1;
inline constexpr std::int32_t kInterpolated = 0;
inline constexpr std::int32_t kIntermediate = -1;

/// Ties of the strength test are weak (hypre: strong iff a_ij < theta * m).
/// The threshold is moved by this relative amount towards "weak" so that an
/// entry that equals theta * m in exact arithmetic stays weak on both
/// backends although their Galerkin products round differently.
inline constexpr double strength_tie_tolerance = 1e-10;

/// Classical strength, one row at a time: with d = a_ii (the sum of the
/// row's diagonal entries, 0 when there is none),
///   d >= 0: strong[k] = a_ik < theta * min(0, min_{j != i} a_ij) * (1 + tol)
///   d <  0: strong[k] = a_ik > theta * max(0, max_{j != i} a_ij) * (1 + tol)
/// for off-diagonal entries k of row i, and 0 on the diagonal. When
/// max_row_sum < 1 and |sum_j a_ij| > max_row_sum * |d| the whole row is
/// weak (the row sum is added in the row's stored order on both backends).
template <class Exec, class T>
void strength(const Exec& exec, size_type n, size_type nnz, const offset_type* row_ptr,
              const index_type* col_idx, const T* values, double theta, double max_row_sum,
              std::uint8_t* strong);
/// The same on the GPU with a group of 4 to 32 lanes per row, sized to the
/// mean row length (backend/cuda/amg/classical_kernels.cu).
template <class T>
void strength(const CudaExec& exec, size_type n, size_type nnz, const offset_type* row_ptr,
              const index_type* col_idx, const T* values, double theta, double max_row_sum,
              std::uint8_t* strong);

/// PMIS (De Sterck, Yang, Heys 2006) on the graph whose edges are the
/// entries k of (row_ptr, col_idx) with strong[k] != 0 (every off-diagonal
/// entry when strong is null): i -> j means "i depends strongly on j".
/// weight_i = #{j : j -> i} + u_i, u_i in [0, 1) hashed from
/// (seed, global_id[i]) (global_id null: i). Points with no edge in either
/// direction are F (C with isolated_coarse: the second pass of aggressive
/// coarsening keeps C points that have no other C point near). Then, until no point is undecided:
/// every undecided point whose (weight, global id) beats those of all undecided neighbours (both
/// directions) becomes C, and every undecided point that depends on a new C
/// point becomes F. Every F point with an outgoing edge therefore depends on
/// a C point. Writes cf[i] (kCoarse or kFine). Deterministic, and equal on
/// both backends. The rounds after the first work on a list of the points
/// still undecided, rebuilt every two rounds.
template <class Exec>
void pmis(const Exec& exec, size_type n, size_type nnz, const offset_type* row_ptr,
          const index_type* col_idx, const std::uint8_t* strong, std::uint64_t seed,
          const index_type* global_id, bool isolated_coarse, std::int32_t* cf);

/// PMIS after a first splitting (the second half of HMIS): on entry cf[i] ==
/// kCoarse marks the C points of a first pass (any other value: not C).
/// Those stay C; every other point that depends on one of them, or has no
/// edge in either direction, is F; the rest are undecided, weighted as in
/// pmis() and decided by its rounds. Every F point with an outgoing edge
/// therefore depends on a C point. Deterministic, and equal on both backends.
template <class Exec>
void pmis_from_coarse(const Exec& exec, size_type n, size_type nnz, const offset_type* row_ptr,
                      const index_type* col_idx, const std::uint8_t* strong, std::uint64_t seed,
                      const index_type* global_id, std::int32_t* cf);

/// The first pass of Ruge-Stueben coarsening (Ruge and Stueben 1987; the
/// first half of hypre's HMIS), sequential and so on the host only. The
/// measure of a point is the number of undecided points that depend on it;
/// points that depend on none and influence none are F at once, and points
/// that influence none are F with their dependencies' measures raised by
/// one. Then, until no point is undecided: the point of largest measure
/// (the earliest to reach that measure among equals: buckets are FIFO,
/// filled in index order) becomes C; every undecided point depending on it
/// becomes F, raising by one the measure of each undecided point the new F
/// point depends on; each undecided point it depends on loses one of
/// measure, and becomes F (as above) at zero. Writes cf[i] (kCoarse or
/// kFine); an F point may be left without a strong C neighbour, which
/// pmis_from_coarse() then settles.
///
/// The pass runs on blocks of ruge_stueben_block_rows consecutive rows,
/// each on its own (edges to other blocks ignored, as hypre's HMIS ignores
/// those to other processes), the blocks in parallel: on many cores a
/// single pass over a large level was the setup's sequential part (1.07 s
/// of a 4.6 s setup at 7-point 128^3 on two cores). The blocks are fixed,
/// so the splitting does not depend on the thread count; a level of at most
/// one block (64^3 and smaller) is split as by one pass.
constexpr size_type ruge_stueben_block_rows = size_type{1} << 18;
void ruge_stueben_first_pass(const HostExec& exec, size_type n, const offset_type* row_ptr,
                             const index_type* col_idx, const std::uint8_t* strong,
                             std::int32_t* cf);

/// map[i] = #{i' < i : marker[i'] == value}; returns #{i : marker[i] == value}.
template <class Exec>
size_type enumerate(const Exec& exec, size_type n, const std::int32_t* marker, std::int32_t value,
                    index_type* map);

/// points[map[i]] = i for every i with marker[i] == value (map from enumerate()).
template <class Exec>
void list_points(const Exec& exec, size_type n, const std::int32_t* marker, std::int32_t value,
                 const index_type* map, index_type* points);

/// Roles of ordinary (one-stage) interpolation: role[i] = kTarget for C
/// points, kInterpolated for F points; dmap[i] = i.
template <class Exec>
void one_stage_roles(const Exec& exec, size_type n, const std::int32_t* cf, std::int32_t* role,
                     index_type* dmap);

/// Roles of the second stage of two-stage interpolation: cf1/c1map are the
/// first splitting and its C numbering, cf2/c2map the second splitting of
/// the C points (indexed by c1map). role[i] = kTarget (C in both passes),
/// kInterpolated (C of the first pass only) or kIntermediate (F of the
/// first pass); cmap[i] = coarse index for targets; dmap[i] = c1map[i] for
/// first-pass C points. final_cf[i] = kCoarse for targets, kFine otherwise.
template <class Exec>
void two_stage_roles(const Exec& exec, size_type n, const std::int32_t* cf1,
                     const index_type* c1map, const std::int32_t* cf2, const index_type* c2map,
                     std::int32_t* role, index_type* cmap, index_type* dmap,
                     std::int32_t* final_cf);

/// Everything an interpolation kernel reads about one level.
template <class T>
struct InterpolationInput {
  size_type n = 0;
  size_type nnz = 0;
  const offset_type* row_ptr = nullptr;
  const index_type* col_idx = nullptr;
  const T* values = nullptr;
  const std::uint8_t* strong = nullptr;
  const std::int32_t* role = nullptr;
  /// Coarse column of each kTarget point.
  const index_type* cmap = nullptr;
  /// Row of P of each point with role >= 0.
  const index_type* dmap = nullptr;
  /// Columns of P (targets) and rows of P (points with role >= 0).
  size_type nc = 0;
  size_type nd = 0;
  /// Every row of A lists its columns in ascending order (lookups of a_ki
  /// then bisect the row).
  bool sorted_rows = false;
};

/// Whether every row of the CSR pattern lists its columns in ascending order.
template <class Exec>
bool rows_sorted(const Exec& exec, size_type n, const offset_type* row_ptr,
                 const index_type* col_idx);

enum class MmVariant { ext, ext_i, ext_e };

/// The two factors of an MM interpolation, P_untruncated = AFF * AFC:
///
/// AFC (n x nc): row i of a non-target point holds its strong connections to
///   targets, (cmap[j], a_ij); a target's row is (cmap[i], 1).
/// AFF (nd x n): row dmap[i] of a target is (i, 1). Row dmap[i] of an
///   interpolated point is s_i * [(i, 1), (k, a_ik / d_k) for each strong
///   non-target neighbour k], with s_i = -1 / (a_ii + sum of weak a_ij
///   + lumped + theta_i) (0 when that is 0) and
///     ext:   d_k = beta_k,                  theta_i = 0
///     ext+i: d_k = beta_k + a_ki (a_ki if k depends strongly on i, else 0),
///            theta_i = sum_k a_ik a_ki / d_k
///     ext+e: d_k = beta_k + mu_k,            theta_i = sum_k a_ik mu_k / d_k
///   where beta_k = sum of k's strong connections to targets and mu_k the
///   mean of k's strong connections to non-targets; a neighbour with d_k = 0
///   is lumped: its a_ik joins the denominator ("lumped") and its entry is 0.
/// So (AFF AFC)_ij = s_i (a_ij + sum_k a_ik a_kj / d_k) for interpolated
/// rows, the identity for target rows: Li, Sjogren and Yang's formulas with
/// the diagonal of A_FF replaced as in hypre's GPU code.
template <class T>
struct MmOperands {
  CsrMatrix<T> AFF;
  CsrMatrix<T> AFC;
};

/// Builds both factors (patterns and values).
template <class Exec, class T>
MmOperands<T> mm_operands(const Exec& exec, const InterpolationInput<T>& in, MmVariant variant);
/// Recomputes the values of both factors on their existing patterns (same
/// strength flags and roles; new values of A).
template <class Exec, class T>
void mm_operand_values(const Exec& exec, const InterpolationInput<T>& in, MmVariant variant,
                       MmOperands<T>& operands);
/// The same two on the GPU with a group of lanes per row: the same patterns,
/// values equal up to the order of the row sums.
template <class T>
MmOperands<T> mm_operands(const CudaExec& exec, const InterpolationInput<T>& in, MmVariant variant);
template <class T>
void mm_operand_values(const CudaExec& exec, const InterpolationInput<T>& in, MmVariant variant,
                       MmOperands<T>& operands);

/// Direct interpolation (nd x nc): target rows are the identity; row dmap[i]
/// of an interpolated point holds, for each strong target neighbour j,
///   w_ij = -(a_ij < 0 ? alpha_i : beta_i) a_ij / d_i
/// with alpha_i = sum_{j != i} a_ij^- / sum_{j in C_i} a_ij^-,
///      beta_i = sum_{j != i} a_ij^+ / sum_{j in C_i} a_ij^+, and d_i = a_ii, to
/// which sum_{j != i} a_ij^+ is added when no strong target neighbour is
/// positive (beta_i = 0 then).
template <class Exec, class T>
CsrMatrix<T> direct_interpolation(const Exec& exec, const InterpolationInput<T>& in);
/// Values of direct_interpolation() on its existing pattern.
template <class Exec, class T>
void direct_interpolation_values(const Exec& exec, const InterpolationInput<T>& in,
                                 CsrMatrix<T>& P);

/// Truncation of the rows of P: entries with |p_ij| < factor * max_j |p_ij|
/// are dropped, then of the rest at most max_elements (0: all) with the
/// largest |p_ij| are kept (ties by smaller column); the kept entries keep
/// their order and are scaled by (row sum of P) / (row sum of the kept
/// entries) (1 when that is 0). Magnitudes are compared after rounding to
/// 20 bits of mantissa so that the choice is the same on both backends.
/// source[e] = index in P of entry e of the result.
template <class Exec, class T>
CsrMatrix<T> truncate(const Exec& exec, const CsrMatrix<T>& P, int max_elements, double factor,
                      Array<offset_type>& source);
/// The values of truncate()'s result for new values of P (same pattern).
template <class Exec, class T>
void truncated_values(const Exec& exec, const CsrMatrix<T>& P, const offset_type* source,
                      CsrMatrix<T>& result);
/// The same without `source`: each kept entry is found in P's row by its
/// column (the kept entries keep P's order, so one walk per row), so that
/// refresh need not hold a map of 8 bytes per entry. The same values as
/// truncated_values(), bit for bit. Returns the number of rows with an
/// entry of `result` that P's row lacks (0 unless the patterns differ).
template <class Exec, class T>
size_type truncated_values_by_columns(const Exec& exec, const CsrMatrix<T>& P,
                                      CsrMatrix<T>& result);

/// dst[k] = src[map[k]] for k < n.
template <class Exec, class T>
void gather_values(const Exec& exec, size_type n, const T* src, const offset_type* map, T* dst);

/// values[k] = k as T (entry numbers, to follow entries through a transpose).
template <class Exec, class T>
void entry_numbers(const Exec& exec, size_type n, T* values);
/// map[k] = (offset_type) values[k].
template <class Exec, class T>
void entry_numbers_to_map(const Exec& exec, size_type n, const T* values, offset_type* map);

/// The operands of the second-pass strength S_CC = (S_CF S_CC + I)(S_FC; S_CC)
/// of aggressive coarsening, as 0/1 matrices: S1 (nc x n) = the rows of the C
/// points of S + I, S2 (n x nc) = the columns of the C points of S.
template <class Exec>
std::pair<CsrMatrix<float>, CsrMatrix<float>> second_pass_operands(
    const Exec& exec, size_type n, const offset_type* row_ptr, const index_type* col_idx,
    const std::uint8_t* strong, const std::int32_t* cf, const index_type* cmap, size_type nc);

/// The graph of the A1 (num_paths = 1) or A2 (num_paths = 2) strength from
/// the path counts S1 S2: the off-diagonal entries with count >= num_paths.
template <class Exec>
CsrMatrix<float> second_pass_graph(const Exec& exec, const CsrMatrix<float>& counts, int num_paths);

/// The pattern of strong (a CSR matrix with rows of A and values 1).
template <class Exec, class T>
CsrMatrix<T> strength_pattern(const Exec& exec, size_type n, const offset_type* row_ptr,
                              const index_type* col_idx, const std::uint8_t* strong);

}  // namespace strata::kernels::classical
