#pragma once
// Kernel contract of the sparse triangular solves (SpTrSV) behind
// strata/matrix/triangular.hpp. A solve first copies the triangle it reads
// (the strict part and the inverse diagonal) out of the input matrix, so
// entries of the other triangle are ignored, as cuSPARSE SpSV ignores them:
// one combined L\U factor serves both solves.
//
// Level scheduling (Anderson and Saad 1989; the hypre paper, section 4.2):
// the level of row i is 1 + the largest level of the rows it depends on (0
// without dependencies); the rows of one level are independent and solved
// in parallel, level after level.
//
// All pointers are in the executor's memory; the public entry points have
// checked locations and sizes.

#include <memory>
#include <vector>

#include "strata/core/executor.hpp"
#include "strata/core/types.hpp"

namespace strata::detail {
struct TriangularGraphState;  // backend/cuda/matrix/triangular_kernels.cu
}  // namespace strata::detail

namespace strata::kernels::triangular {

/// For k < rows and i = order[k] (i = k when order is null): count[k] =
/// the entries of row i strictly inside the triangle (column < i for lower,
/// column > i for upper) and inv_diag[k] = 1 / a_ii (1 when unit). Returns
/// the smallest row i whose diagonal entry is zero, missing or not finite
/// (never for unit), or -1.
template <class Exec, class T>
size_type split_count(const Exec& exec, size_type rows, const index_type* order,
                      const offset_type* row_ptr, const index_type* col_idx, const T* values,
                      bool lower, bool unit, offset_type* count, T* inv_diag);

/// Copies those entries of row order[k] (k when order is null), in their
/// stored order, to positions out_ptr[k] .. out_ptr[k + 1) of (out_col,
/// out_val).
template <class Exec, class T>
void split_fill(const Exec& exec, size_type rows, const index_type* order,
                const offset_type* row_ptr, const index_type* col_idx, const T* values,
                bool lower, const offset_type* out_ptr, index_type* out_col, T* out_val);

/// level[i] for every row of the strict triangle S (rows in natural order,
/// nnz entries): 1 + max level[j] over the columns j of row i, 0 for a row
/// without entries. Returns the number of levels (0 without rows). The host
/// walks the rows in dependency order (ascending for lower, descending for
/// upper), one pass over S.
template <class T>
size_type levels(const HostExec& exec, size_type rows, size_type nnz, const offset_type* s_ptr,
                 const index_type* s_col, const T* s_val, bool lower, index_type* level);
/// The device computes the same levels by a dependency-count topological
/// pass (Kahn's algorithm) over S^T, one frontier (one level) per kernel:
/// a row enters the next frontier when the last of its dependencies leaves
/// the current one (backend/cuda/matrix/triangular_kernels.cu).
template <class T>
size_type levels(const CudaExec& exec, size_type rows, size_type nnz, const offset_type* s_ptr,
                 const index_type* s_col, const T* s_val, bool lower, index_type* level);

/// order[k] = the rows sorted by (level, row) and level_ptr[l] = the first
/// position of level l (level_ptr[levels] = rows). `level` is overwritten
/// (it ends sorted). Every level below `levels` holds a row (a row of level
/// l > 0 depends on a row of level l - 1).
template <class Exec>
void order_by_level(const Exec& exec, size_type rows, size_type levels, index_type* level,
                    index_type* order, offset_type* level_ptr);

/// One level of the level-scheduled solve, for the positions k in
/// [begin, end) of a triangle stored in level order (row k of (ptr, col,
/// val) is row order[k] of the matrix):
///   x[i] = inv_diag[k] (b[i] - sum_e val[e] x[col[e]]),  i = order[k],
/// the sum in stored order (by one thread per row on the device too).
template <class Exec, class T>
void solve_level(const Exec& exec, size_type begin, size_type end, const index_type* order,
                 const offset_type* ptr, const index_type* col, const T* val, const T* inv_diag,
                 const T* b, T* x);

/// The device's level-scheduled solve, all levels (level_ptr: on the host,
/// levels + 1 entries; nnz: the strict entries), with the sums of
/// solve_level. Levels are mostly launch-bound (about 10^4 short rows
/// each), so the launches are recorded once in a CUDA graph, kept in
/// `graph`, and replayed with one launch per solve; b and x reach the
/// graph's kernels through a small device-side slot written before each
/// replay, so a recorded graph serves every b and x. The graph is recorded
/// again when `graph` was made for other arrays, another device or stream.
/// Runs of consecutive levels small enough for one block become one
/// single-block kernel (a __syncthreads() between levels), and every row is
/// read by a group of lanes, each holding up to two of its entries
/// (coalesced, all loads of a row in flight at once), whose partial sums a
/// shuffle butterfly adds: a fixed order, so every device solve gives the
/// same result, equal to solve_level's stored-order sum up to rounding.
/// With `overlap`, each level's kernel
/// is a programmatic dependent launch (sm_90): it starts, and loads its
/// rows' entries, while the previous level runs, and waits only before
/// reading x.
template <class T>
void solve_levels(const CudaExec& exec, bool overlap,
                  std::shared_ptr<detail::TriangularGraphState>& graph,
                  const std::vector<offset_type>& level_ptr, size_type nnz,
                  const index_type* order, const offset_type* ptr, const index_type* col,
                  const T* val, const T* inv_diag, const T* b, T* x);

/// The whole level-scheduled solve in one kernel on the device (see
/// detail::TriangularDeviceSchedule::sync_free in core/triangular_internal.hpp):
/// thread k takes row order[k] (blocks take their positions from an atomic
/// ticket, so every earlier position is held by a running thread), waits
/// until ready[j] == epoch for each column j of its row, then writes x[i]
/// and sets ready[i] = epoch (release / acquire). Returns false when a wait
/// ran past its bound (a bug, not bad input): the solve is then incomplete.
template <class T>
bool solve_sync_free(const CudaExec& exec, size_type rows, const index_type* order,
                     const offset_type* ptr, const index_type* col, const T* val,
                     const T* inv_diag, const T* b, T* x, int* ready, int epoch);

/// One sweep of the iterative (Jacobi) triangular solve on the strict
/// triangle N in natural order (Anzt, Chow, Dongarra 2015):
///   x_new[i] = inv_diag[i] (b[i] - sum_e val[e] x_old[col[e]]),
/// and x_new = inv_diag .* b when x_old is null (the sweep from x = 0).
template <class Exec, class T>
void jacobi_sweep(const Exec& exec, size_type rows, const offset_type* ptr, const index_type* col,
                  const T* val, const T* inv_diag, const T* b, const T* x_old, T* x_new);

}  // namespace strata::kernels::triangular
