#pragma once
// Kernel contract of the Gauss-Seidel smoothers (core/smoother/gauss_seidel.cpp):
// the hybrid (block-local) l1 Gauss-Seidel sweep, the distance-1 graph
// coloring and multicolor sweep, and the inner Jacobi sweeps of two-stage
// Gauss-Seidel. A is CSR (row_ptr, col_idx, values) with `rows` rows; all
// vectors have `rows` entries in the executor's memory. Each kernel is
// written once (gauss_seidel_kernels.ipp) for the host and the device, and
// every one is deterministic: the same input gives the same bits on any
// number of threads, and the same algorithm on host and device.

#include <cstdint>

#include "strata/core/executor.hpp"
#include "strata/core/types.hpp"

namespace strata::kernels::smoother {

// ------------------------------------------------ hybrid l1 Gauss-Seidel

/// The scaling of hybrid l1 Gauss-Seidel (Baker, Falgout, Kolev, Yang,
/// "Multigrid smoothers for ultraparallel computing", 2011, the l1 Gauss-
/// Seidel smoother; hypre's relax 8/13/14 family). Rows are split into
/// blocks of `block_rows` consecutive rows (the last may be shorter); a
/// coupling a_ij is off-block when j lies in another block. With
/// s_i = sum_{j off-block} |a_ij|, writes
///   d_i = omega / (a_ii + sign(a_ii) s_i / 2),
/// or omega / a_ii where s_i <= 2/3 |a_ii| (hypre's truncated l1 norms), and
/// returns the first row whose diagonal entry is zero, missing or not
/// finite (-1 when there is none; d_i = 0 there).
template <class Exec, class T>
size_type hybrid_gs_scaling(const Exec& exec, size_type rows, size_type block_rows,
                            const offset_type* row_ptr, const index_type* col_idx,
                            const T* values, T omega, T* d);

/// One hybrid Gauss-Seidel sweep: within each block, rows in increasing
/// order (backward: decreasing), each
///   x_i += d_i (b_i - sum_j a_ij x_j),
/// reading x_j as already updated in this sweep for j in the row's own
/// block and as x_old_j (x at the start of the sweep) for j in other
/// blocks. x_old must hold a copy of x. Blocks run in parallel (host: one
/// task per block; device: one thread per block), so the result does not
/// depend on the number of threads. With one block it is Gauss-Seidel.
template <class Exec, class T>
void hybrid_gs_sweep(const Exec& exec, size_type rows, size_type block_rows,
                     const offset_type* row_ptr, const index_type* col_idx, const T* values,
                     const T* d, const T* b, const T* x_old, T* x, bool backward);

// --------------------------------------------------- multicolor Gauss-Seidel

/// One round of the Jones-Plassmann coloring (Jones and Plassmann, "A
/// parallel graph coloring heuristic", SISC 1993), with Luby's random keys,
/// on the graph of A + A^T: the neighbours of row i are the columns j != i
/// of row i of A and of row i of A^T (t_row_ptr, t_col_idx), so that no
/// coupling in either direction joins two rows of one color, whatever the
/// pattern. Row i has the key (random_unit(seed, i), i), compared
/// lexicographically; an uncolored row is a candidate (candidate[i] = 1)
/// when its key exceeds the keys of all its uncolored neighbours, else 0.
/// color[i] < 0 marks uncolored rows.
template <class Exec>
void coloring_candidates(const Exec& exec, size_type rows, const offset_type* row_ptr,
                         const index_type* col_idx, const offset_type* t_row_ptr,
                         const index_type* t_col_idx, std::uint64_t seed, const int* color,
                         int* candidate);

/// Commits a round: every candidate takes the smallest color that none of
/// its neighbours has (greedy, as in Jones-Plassmann, so a stencil gets
/// about as few colors as a sequential greedy coloring). Candidates are
/// never neighbours, so the colors each reads are settled. Returns the rows
/// still uncolored; the uncolored row of largest key is always a
/// candidate, so every round colors at least one row.
template <class Exec>
size_type coloring_commit(const Exec& exec, size_type rows, const offset_type* row_ptr,
                          const index_type* col_idx, const offset_type* t_row_ptr,
                          const index_type* t_col_idx, const int* candidate, int* color);

/// The number of colors: 1 + the largest color (0 without rows).
template <class Exec>
int color_count(const Exec& exec, size_type rows, const int* color);

/// Sorts the rows by color (stable: increasing row order within a color):
/// order[k] is the k-th row, and color_start[c] (colors + 1 entries) the
/// first position of color c, color_start[colors] = rows. `color` is left
/// unchanged; `sorted_color` is scratch of rows entries.
template <class Exec>
void rows_by_color(const Exec& exec, size_type rows, int colors, const int* color,
                   int* sorted_color, index_type* order, offset_type* color_start);

/// One color's step of a multicolor Gauss-Seidel sweep: for the rows
/// order[0 .. count), x_i += d_i (b_i - sum_j a_ij x_j). The rows of one
/// color are not coupled, so they update in parallel in any order with the
/// result of a sequential Gauss-Seidel sweep in the color ordering.
template <class Exec, class T>
void multicolor_gs_color(const Exec& exec, size_type count, const index_type* order,
                         const offset_type* row_ptr, const index_type* col_idx, const T* values,
                         const T* d, const T* b, T* x);

// ---------------------------------------------------- two-stage Gauss-Seidel

/// One inner Jacobi sweep of two-stage Gauss-Seidel (hypre's relax 11/12;
/// Berger-Vergiat, Glusa, Hu, Swirydowicz, Thomas et al., "Two-stage
/// Gauss-Seidel preconditioners and smoothers for Krylov solvers on a GPU
/// cluster", 2021) for (D + L) y = r (upper: (D + U) y = r):
///   y_out_i = dinv_i (r_i - sum_{j < i} a_ij y_in_j)   (upper: j > i),
/// with y_in = D^-1 r when y_in is null (dinv_i = 1 / D_ii: the diagonal, or
/// the row l1 norm). y_out must not be y_in.
template <class Exec, class T>
void two_stage_inner(const Exec& exec, size_type rows, const offset_type* row_ptr,
                     const index_type* col_idx, const T* values, const T* dinv, const T* r,
                     const T* y_in, T* y_out, bool upper);

}  // namespace strata::kernels::smoother
