#pragma once
// Kernel contract of blocked smoothed aggregation
// (strata/amg/smoothed_aggregation.hpp): the parallel steps that the
// unsmoothed aggregation kernels (aggregation_kernels.hpp) do not already
// provide. Bodies are written once (smoothed_aggregation_kernels.ipp) and
// instantiated per backend (backend/{host,cuda}/amg/).
//
// Matrices are passed as BSR arrays of square b x b blocks (a CSR matrix is
// the case b = 1). Products and sums use the separately rounded mul/add of
// kernels/base/rounding.hpp in a fixed order, so host and device give the
// same strength graph (hence the same aggregates) and the same P.
//
// Arguments are checked by the caller (src/core/amg/smoothed_aggregation.cpp).

#include <cstdint>

#include "strata/core/executor.hpp"
#include "strata/core/types.hpp"

namespace strata::kernels::smoothed_aggregation {

// ------------------------------------------------------------ 1. strength

/// norm[I] = ||A_II||_F, the Frobenius norm of block row I's diagonal block
/// (0 when it is not stored). Returns the number of block rows whose
/// diagonal block is missing or has a zero or non-finite norm.
template <class Exec, class T>
size_type diagonal_block_norms(const Exec& exec, size_type block_rows, int b,
                               const offset_type* row_ptr, const index_type* col_idx,
                               const T* values, T* norm);

/// The node matrix whose classic strength (aggregation's strength_graph
/// with alpha = 0) is the symmetric block rule: on A's block pattern,
/// s[e] = 1 for a diagonal block, -||A_IJ||_F / sqrt(norm_I norm_J) for a
/// strong block (that ratio > theta) and 0 for a weak one. keep[e] = 1 for
/// the diagonal and the strong blocks (the pattern of the filtered matrix).
/// The ratio is rounded to a multiple of 2^-24 first, so that coarse levels
/// whose values differ in the last bits between host and device still give
/// the same graph, weights and ties.
template <class Exec, class T>
void block_strength(const Exec& exec, size_type block_rows, int b, const offset_type* row_ptr,
                    const index_type* col_idx, const T* values, const T* norm, T theta, T* s,
                    std::uint8_t* keep);

// ------------------------------------------------------------- filtering

/// Block row offsets of the filtered matrix (the blocks with keep[e] = 1):
/// writes f_row_ptr (block_rows + 1 entries), returns its number of blocks.
template <class Exec>
size_type filtered_pattern(const Exec& exec, size_type block_rows, const offset_type* row_ptr,
                           const std::uint8_t* keep, offset_type* f_row_ptr);

/// The filtered matrix's block columns: f_col_idx[f] = col_idx of the f-th
/// kept block.
template <class Exec>
void filtered_columns(const Exec& exec, size_type block_rows, const offset_type* row_ptr,
                      const index_type* col_idx, const std::uint8_t* keep,
                      const offset_type* f_row_ptr, index_type* f_col_idx);

/// The filtered matrix's values: the kept blocks copied, and each scalar
/// row's sum over its dropped (weak) blocks added to its diagonal entry
/// (lumping, so A_f 1 = A 1 per unknown). Every block row must store its
/// diagonal block (checked by diagonal_block_norms).
template <class Exec, class T>
void filtered_values(const Exec& exec, size_type block_rows, int b, const offset_type* row_ptr,
                     const index_type* col_idx, const T* values, const std::uint8_t* keep,
                     const offset_type* f_row_ptr, T* f_values);

// ----------------------------------------------------- 2., 3. aggregates, B

/// dof_aggregate[I b + a] = node_aggregate[I] (a < b).
template <class Exec>
void expand_aggregates(const Exec& exec, size_type nodes, int b, const index_type* node_aggregate,
                       index_type* dof_aggregate);

/// The default near-null space of block size b, column-major (rows x b):
/// column c is 1 on unknown c of every node and 0 elsewhere.
template <class Exec, class T>
void translations(const Exec& exec, size_type rows, int b, T* B);

/// Rigid-body modes of `nodes` points (coordinates interleaved, dim = 2 or
/// 3 per node), column-major (nodes dim x modes, modes = 3 or 6):
/// translations first, then rotations ((-y, x) in 2D; about x, y, z in 3D).
template <class Exec, class T>
void rigid_body_modes(const Exec& exec, size_type nodes, int dim, const T* coordinates, T* B);

/// After the per-aggregate modified Gram-Schmidt of the aggregation kernels
/// (orthonormalize_aggregates) dropped columns of rank-deficient
/// aggregates (zeroed, keep = 0): each dropped column c of aggregate a is
/// replaced by the unit vector over the aggregate's unknowns (rows of
/// R = P^T) that is farthest from the span of the columns present (the
/// largest norm after modified Gram-Schmidt against them; ties: the first
/// unknown), orthogonalised and normalised, and written into P too. The
/// coarse near-null space keeps its zero row for c, so B = P B_c still holds
/// and P keeps k columns per aggregate (its b x k block structure) with
/// P^T P = I. Returns the number of aggregates with fewer unknowns than k,
/// which cannot be completed (those columns stay zero).
template <class Exec, class T>
size_type complete_dropped_columns(const Exec& exec, size_type aggregates, int k,
                                   const offset_type* r_row_ptr, T* r_values,
                                   const index_type* r_col_idx, const offset_type* p_row_ptr,
                                   T* p_values, const index_type* keep);

/// Block row offsets of the tentative BSR P (b x k blocks): one block in
/// block row I when node_aggregate[I] >= 0, none otherwise. Writes
/// t_row_ptr (nodes + 1 entries) and t_col_idx (the aggregates), returns the
/// number of blocks.
template <class Exec>
size_type tentative_pattern(const Exec& exec, size_type nodes, const index_type* node_aggregate,
                            offset_type* t_row_ptr, index_type* t_col_idx);

// -------------------------------------------------- 4. prolongator smoothing

/// Blocks per block row of P = (I - omega D^-1 A_f) P_tent: the distinct
/// aggregates of the block columns J of A_f's row I (J aggregated) and of I
/// itself. Writes p_row_ptr (block_rows + 1), returns the number of blocks.
template <class Exec>
size_type smoothed_pattern(const Exec& exec, size_type block_rows, const offset_type* a_row_ptr,
                           const index_type* a_col_idx, const index_type* node_aggregate,
                           offset_type* p_row_ptr);

/// P's block columns (ascending within each block row), and the kept plan
/// of the product: target[e] = the block of P's row I that A_f's block e =
/// (I, J) adds into (-1 when J is not aggregated), tentative[I] = the block
/// of P's row I holding P_tent's block of I (-1 when I is not aggregated).
template <class Exec>
void smoothed_plan(const Exec& exec, size_type block_rows, const offset_type* a_row_ptr,
                   const index_type* a_col_idx, const index_type* node_aggregate,
                   const offset_type* p_row_ptr, index_type* p_col_idx, offset_type* target,
                   offset_type* tentative);

/// The product's plan by P's blocks (from smoothed_plan's target): counts[q]
/// = the blocks e of A_f with target[e] == q (counts has p_blocks + 1
/// entries; the caller scans it into contrib_ptr) and p_row[q] = q's block
/// row.
template <class Exec>
void contribution_counts(const Exec& exec, size_type block_rows, const offset_type* a_row_ptr,
                         const offset_type* target, const offset_type* p_row_ptr,
                         offset_type* counts, index_type* p_row);

/// contrib[contrib_ptr[q] ..] = the blocks e with target[e] == q, ascending
/// (cursor: p_blocks entries of scratch).
template <class Exec>
void contribution_fill(const Exec& exec, size_type block_rows, const offset_type* a_row_ptr,
                       const offset_type* target, const offset_type* p_row_ptr,
                       const offset_type* contrib_ptr, offset_type* cursor,
                       offset_type* contrib);

/// Whether smoothed_values keeps W in registers for block size b (the
/// cases of its switch); otherwise it needs `scratch`.
constexpr bool smoothed_values_in_registers(int b) {
  return b == 1 || b == 2 || b == 3 || b == 6;
}

/// P's values on the plan, one thread per column c of a block q of P:
///   W_q = sum over e in contrib[q] of A_f(I, J_e) T_J   (ascending e),
///   P_q = T_I (when q = tentative[I]) - omega D_I^-1 W_q,
/// with I = p_row[q], T_J the b x k block of P_tent in block row J
/// (t_row_ptr) and dinv the row-major inverted b x b diagonal blocks. W
/// stays in registers for b = 1, 2, 3, 6; other sizes keep it in `scratch`
/// (P's value count). Why by blocks of P rather than by block rows: a coarse
/// level's block row meets a hundred 6x6 blocks, so a thread per row left
/// the GPU nearly idle (40 ms of a 100 ms setup at elasticity3d n = 64 on
/// an H100); the sums are in the same order, so the bits are the same.
template <class Exec, class T>
void smoothed_values(const Exec& exec, size_type p_blocks, int b, int k,
                     const index_type* a_col_idx, const T* a_values,
                     const offset_type* contrib_ptr, const offset_type* contrib,
                     const index_type* p_row, const offset_type* t_row_ptr, const T* t_values,
                     const T* dinv, T omega, const offset_type* tentative, T* scratch,
                     T* p_values);

// ------------------------------------------------------------ 5. restriction

/// Where each block of R = P^T comes from: source[r] = the block of P whose
/// transpose is R's block r. R's block rows list their block columns in
/// ascending order (what transpose() makes), so each block of P finds its
/// place by a binary search of R's row.
template <class Exec>
void transpose_plan(const Exec& exec, size_type p_block_rows, const offset_type* p_row_ptr,
                    const index_type* p_col_idx, const offset_type* r_row_ptr,
                    const index_type* r_col_idx, offset_type* source);

/// R's values from P's on the plan: R block r = (P block source[r])^T, P's
/// blocks b x k, R's k x b.
template <class Exec, class T>
void transpose_values(const Exec& exec, size_type r_blocks, int b, int k,
                      const offset_type* source, const T* p_values, T* r_values);

// ------------------------------------------------------------ distributed smoothing

/// The pattern of a block-diagonal BSR matrix (one block per block row, on
/// the diagonal): row_ptr[I] = I for I <= block_rows, col_idx[I] = I. With
/// BlockDiagonal's values it is D^-1 as a matrix (the distributed
/// prolongator smoothing multiplies it into A's rows).
template <class Exec>
void block_diagonal_pattern(const Exec& exec, size_type block_rows, offset_type* row_ptr,
                            index_type* col_idx);

/// S = I - omega M in place, on one block of a distributed matrix's rows
/// (M = D^-1 A): values[e] = delta - omega values[e], delta = 1 where
/// `diagonal` (the diagonal block, local columns) and col_idx[e] == i, 0
/// otherwise (the off-diagonal block: only scaled). Returns the number of
/// rows of a diagonal block that store no diagonal entry (0 otherwise).
template <class Exec, class T>
size_type identity_minus_scaled(const Exec& exec, size_type rows, const offset_type* row_ptr,
                                const index_type* col_idx, bool diagonal, T omega, T* values);

}  // namespace strata::kernels::smoothed_aggregation
